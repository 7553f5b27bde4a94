"""Hypothesis tests over action sequences: invariants after every step, illegal actions refused.

The state machine picks actions as indices into the legal actions (so hypothesis shrinks a
failing game to a short sequence of choices), sometimes tries an illegal action, and starts a
new deal when a hand is over. Invariants are those of RULES.md R1-R9.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from baloot_env.actions import NUM_ACTIONS, action_name
from baloot_env.cards import mask_of
from baloot_env.deal import random_deal
from baloot_env.errors import IllegalActionError
from baloot_env.hand import BIDDING, DONE, DOUBLING, PHASES, PLAY, HandState
from baloot_env.rules import RuleConfig

ALL = (1 << 32) - 1
CONFIGS = [
    RuleConfig(),
    RuleConfig(sun_double=True),
    RuleConfig(projects=False, doubling=False),
    RuleConfig(four_aces_hokum="hundred", tie_rule="last_digit", baloot_kept=True),
]
SEEDS = st.integers(0, 2**32 - 1)
NON_ACTIONS = st.one_of(
    st.integers(-5, -1), st.integers(NUM_ACTIONS, 60), st.sampled_from([None, "pass", 1.5, True, False])
)


REACHED: Counter[str] = Counter()  # what the machine's runs got to, asserted after them


def new_state(seed: int, rules: RuleConfig) -> HandState:
    return HandState(random_deal(random.Random(seed)), rules)


class HandMachine(RuleBasedStateMachine):
    """Random games driven by hypothesis, with the R1-R9 invariants after every step."""

    @initialize(seed=SEEDS, rules=st.sampled_from(CONFIGS))
    def start(self, seed, rules):
        self.state = new_state(seed, rules)
        self.hands_done = 0

    @precondition(lambda self: not self.state.done)
    @rule(i=st.integers(0, NUM_ACTIONS - 1))
    def act(self, i):
        legal = self.state.legal_actions()
        self.state.apply(legal[i % len(legal)])

    @precondition(lambda self: not self.state.done)
    @rule(i=st.integers(0, NUM_ACTIONS - 1), n=st.integers(1, 12))
    def act_many(self, i, n):
        """Several steps at once (with the same index) so that hands get finished."""
        for _ in range(n):
            if self.state.done:
                break
            legal = self.state.legal_actions()
            self.state.apply(legal[i % len(legal)])

    @rule(i=st.integers(0, NUM_ACTIONS - 1))
    def illegal_action(self, i):
        """R9: an action outside the mask raises IllegalActionError and changes nothing."""
        legal = set(self.state.legal_actions())
        illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
        a = illegal[i % len(illegal)]
        before = self.state.clone()
        with pytest.raises(IllegalActionError):
            self.state.apply(a)
        assert self.state == before

    @rule(a=NON_ACTIONS)
    def non_action(self, a):
        before = self.state.clone()
        with pytest.raises(IllegalActionError):
            self.state.apply(a)
        assert self.state == before

    @precondition(lambda self: self.state.done)
    @rule(seed=SEEDS, rules=st.sampled_from(CONFIGS))
    def next_hand(self, seed, rules):
        self.hands_done += 1
        self.state = new_state(seed, rules)

    @invariant()
    def record_coverage(self):
        s = self.state
        REACHED[s.phase] += 1
        if s.done and s.result is not None:
            REACHED["thrown" if s.result.thrown else "scored"] += 1

    @invariant()
    def cards_are_conserved(self):
        """32 cards: hands + played (+ turned card and stock before the contract)."""
        s = self.state
        parts = s.hands + (s.played_by if s.contract else [mask_of(s.deal.stock) | 1 << s.deal.turned])
        union = 0
        for m in parts:
            union |= m
        assert union == ALL and sum(m.bit_count() for m in parts) == 32

    @invariant()
    def phase_and_turn_are_consistent(self):
        s = self.state
        assert s.phase in PHASES
        legal = s.legal_actions()
        if s.phase == DONE:
            assert legal == [] and s.to_act == -1 and s.result is not None
        else:
            assert legal and 0 <= s.to_act <= 3 and s.result is None
        if s.phase == PLAY:
            assert set(legal) <= {c for c in range(32) if s.hands[s.to_act] >> c & 1}
            assert len(s.trick_cards) < 4 and s.trick_seats == [
                (s.trick_seats[0] + k) % 4 for k in range(len(s.trick_seats))
            ]
        if s.phase == DOUBLING:
            assert s.contract == "hokum" or s.rules.sun_double
        if s.phase in (DOUBLING, PLAY):
            assert [h.bit_count() + p.bit_count() for h, p in zip(s.hands, s.played_by, strict=True)] == [8] * 4
        if s.phase == BIDDING:
            assert s.contract is None and s.bid_round in (1, 2)

    @invariant()
    def public_inferences_are_true(self):
        """Voids shown (R5.2, R5.4) and trumps a seat cannot hold (R5.2, R5.4) are really absent."""
        s = self.state
        for seat in range(4):
            suits = sum(0xFF << (8 * x) for x in range(4) if s.voids[seat] >> x & 1)
            assert s.hands[seat] & suits == 0, (seat, s.voids[seat])
            assert s.hands[seat] & s.no_trumps[seat] == 0, (seat, s.no_trumps[seat])

    @invariant()
    def is_legal_agrees_with_the_mask(self):
        s = self.state
        mask = s.legal_mask()
        assert (
            [a for a in range(NUM_ACTIONS) if s.is_legal(a)]
            == s.legal_actions()
            == [a for a in range(NUM_ACTIONS) if mask >> a & 1]
        )
        assert not s.is_legal(True) and not s.is_legal(None) and not s.is_legal(-1) and not s.is_legal(42)

    @invariant()
    def points_add_up(self):
        """R1.4: raw never exceeds the hand's total and reaches it exactly at the end."""
        s = self.state
        total = 162 if s.contract == "hokum" else 130
        assert sum(s.tricks_won) == len(s.tricks) <= 8
        if s.done and s.result is not None and not s.result.thrown:
            assert sum(s.raw) == total and min(s.result.score) >= 0
        else:
            assert sum(s.raw) <= total

    @invariant()
    def replay_and_json_reproduce_the_state(self):
        s = self.state
        assert HandState.replay(s.deal, s.history, s.rules, s.match_score) == s
        assert HandState.from_json(json.loads(json.dumps(s.to_json()))) == s


def test_hand_state_machine():
    """Run the machine, then check that its games reached every phase and finished hands."""
    REACHED.clear()
    run_state_machine_as_test(
        HandMachine,
        settings=settings(
            max_examples=40, stateful_step_count=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
        ),
    )
    for key in (BIDDING, DOUBLING, PLAY, DONE, "scored"):
        assert REACHED[key] > 0, dict(REACHED)


def play_prefix(seed: int, rules: RuleConfig, choices: list[int]) -> HandState:
    s = new_state(seed, rules)
    for i in choices:
        if s.done:
            break
        legal = s.legal_actions()
        s.apply(legal[i % len(legal)])
    return s


@settings(max_examples=150, deadline=None)
@given(
    seed=SEEDS,
    rules=st.sampled_from(CONFIGS),
    choices=st.lists(st.integers(0, NUM_ACTIONS - 1), max_size=50),
    bad=st.integers(0, NUM_ACTIONS - 1),
)
def test_illegal_action_is_refused_and_changes_nothing(seed, rules, choices, bad):
    """R9: any action outside legal_actions() raises IllegalActionError, naming the seat and
    the action, and leaves the state exactly as it was."""
    s = play_prefix(seed, rules, choices)
    legal = set(s.legal_actions())
    illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
    a = illegal[bad % len(illegal)]
    before = s.clone()
    snap = json.dumps(s.snapshot())
    with pytest.raises(IllegalActionError) as e:
        s.apply(a)
    assert s == before and json.dumps(s.snapshot()) == snap
    msg = str(e.value)
    if s.done:
        assert "over" in msg
    else:
        assert f"seat {s.to_act}" in msg and action_name(a) in msg and "legal" in msg
        assert all(action_name(x) in msg for x in legal)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, rules=st.sampled_from(CONFIGS), choices=st.lists(st.integers(0, NUM_ACTIONS - 1), max_size=50))
def test_every_legal_action_is_accepted(seed, rules, choices):
    """R9: the mask is exact the other way too: every listed action is accepted by apply()."""
    s = play_prefix(seed, rules, choices)
    for a in s.legal_actions():
        t = s.clone()
        t.apply(a)
        assert t.history == s.history + [a]
    assert s.legal_mask() == sum(1 << a for a in s.legal_actions())
