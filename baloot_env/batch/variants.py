"""The rule variants the differential checks run over (``RuleConfig``, V1-V9), and the rewards.

One list for ``tests/baloot_env/test_batch_core.py``, ``tests/agents/test_batch_heuristic.py``,
``benchmarks/batch_exactness.py`` and ``benchmarks/batch_heuristic.py``: every switch flipped
from its default alone, random combinations of all of them, and a short name for each.
"""

from __future__ import annotations

import random

from baloot_env.rewards import Reward
from baloot_env.rules import FOUR_ACES_HOKUM, HANDS_CHOICES, TIE_RULES, RuleConfig

# Every switch flipped from its default (V1-V9); a new RuleConfig field without a case here
# fails ``test_every_switch_is_flipped_alone``.
SINGLE_SWITCHES = (
    RuleConfig(),
    RuleConfig(sun_double=True),
    RuleConfig(projects=False),
    RuleConfig(doubling=False),
    RuleConfig(match="hands", hands=5),
    RuleConfig(match="hands", hands=9),
    RuleConfig(match="hands", hands=11),
    RuleConfig(tie_rule="last_digit"),
    RuleConfig(win_above=True),
    RuleConfig(four_aces_hokum="hundred"),
    RuleConfig(baloot_kept=True),
    RuleConfig(deal_rotation="right"),
)
REWARDS = (Reward(), Reward("points", match_bonus=2.5), Reward("win"), Reward(scale=10.0, match_bonus=0.5))


def random_rules(rng: random.Random) -> RuleConfig:
    """A random combination of every switch (V1-V9)."""
    return RuleConfig(
        sun_double=rng.random() < 0.5,
        projects=rng.random() < 0.7,
        doubling=rng.random() < 0.7,
        match=rng.choice(("target", "hands")),
        hands=rng.choice(HANDS_CHOICES),
        tie_rule=rng.choice(TIE_RULES),
        win_above=rng.random() < 0.5,
        four_aces_hokum=rng.choice(FOUR_ACES_HOKUM),
        baloot_kept=rng.random() < 0.5,
        deal_rotation=rng.choice(("left", "right")),
    )


def variants(seed: int, combos: int) -> tuple[RuleConfig, ...]:
    """``SINGLE_SWITCHES`` and then ``combos`` random combinations drawn from ``random.Random(seed)``."""
    rng = random.Random(seed)
    return SINGLE_SWITCHES + tuple(random_rules(rng) for _ in range(combos))


def variant_id(rules: RuleConfig) -> str:
    """The switches ``rules`` changes from the defaults, ``"key=value,..."``, or ``"default"``."""
    changed = {k: v for k, v in rules.to_dict().items() if v != getattr(RuleConfig(), k)}
    return ",".join(f"{k}={v}" for k, v in changed.items()) or "default"
