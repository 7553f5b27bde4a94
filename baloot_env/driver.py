"""One game of Baloot from the deal to the result: the single game driver.

Every game loop in the project runs through a ``Table``: the PettingZoo environment
(``baloot_env.aec``), self-play training (``train.selfplay``), duplicate evaluation and its match
chains (``eval.duplicate``), warm-start labelling (``train.pretrain``) and position collection
(``agents.neural.positions``). A ``Table`` owns:

- where the deals come from (``DealSource``: given deals, then a seeded generator, R2.4, R11.2);
- the dealer rotation between the hands of a match (R2.1, V9);
- the hand (``HandState``) and, in match episodes, the match (``MatchState``, R8);
- whose turn it is, and applying an action: a refused action raises ``IllegalActionError``
  and changes nothing (``HandState.verify``, R9);
- what an action did (``Outcome``: a hand ended with its ``HandResult``, the match ended with its
  ``MatchResult``, the episode is over) and what it paid each team (``baloot_env.rewards``);
- the match context every seat knows (``context``, ``baloot_env.match.MatchContext``).

The agents are not the driver's business: ``baloot_env.loop.play`` asks ``to_act``, builds
that seat's view (``baloot_env.view.PlayerView.from_table``) and applies the answer. Standard
library only.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from baloot_env.deal import Deal, parse_deal, random_deal
from baloot_env.errors import BalootError, StateError
from baloot_env.hand import HandState
from baloot_env.match import MatchContext, MatchResult, MatchState, match_context
from baloot_env.results import HandResult
from baloot_env.rewards import Reward, hand_rewards
from baloot_env.rules import RuleConfig

EPISODES = ("hand", "match")
DEALERS = ("given", "rotate")


RESET_OPTIONS = ("deal", "deals")  # what an env's reset(options=...) reads (R11.2)


def reset_arguments(seed: object, options: object) -> tuple[int | None, list[Deal], list[str]]:
    """An env's ``reset(seed, options)`` checked before anything changes (R11.2): the seed (None
    or an integer >= 0), the given deals (``deal``, one deal, or ``deals``, a non-empty list; not
    both) and the option names it does not know (the AEC env warns of them, the Gymnasium env
    refuses them).

    Raises:
        BalootError: a seed or options of the wrong kind, both ``deal`` and ``deals``, an empty or
            non-list ``deals``, or a deal ``parse_deal`` refuses; one line naming the argument.
    """
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise BalootError(f"reset seed must be None or an integer >= 0, got {seed!r:.80}")
        seed = int(seed)  # numpy's integers too
    if options is not None and not isinstance(options, dict):
        raise BalootError(f"reset options must be a dict (of 'deal' or 'deals'), got {type(options).__name__}")
    options = options or {}
    if "deal" in options and "deals" in options:
        raise BalootError("reset options give 'deal' or 'deals', not both (R11.2)")
    deals = [parse_deal(options["deal"])] if "deal" in options else []
    if "deals" in options:
        given = options["deals"]
        if not isinstance(given, (list, tuple)) or not given:
            raise BalootError(
                "options['deals'] must be a non-empty list of deals (R11.2); leave it out for random deals"
            )
        deals = [parse_deal(d) for d in given]
    return seed, deals, sorted((str(k) for k in options if k not in RESET_OPTIONS), key=str)


class DealSource:
    """Where a table's deals come from: the given deals in order, then deals drawn from ``rng``.

    Args:
        rng: a ``numpy.random.Generator`` or ``random.Random``; None: only the given deals.
        deals: deals (``Deal`` or R2.4 dicts) to play first, in order.
        dealers: "given": a given deal keeps the dealer written in it (R11.2, the environment's
            ``options={"deals": ...}``); "rotate": from the second deal of a match on, the
            dealer is the rotation's (R2.1), whatever is written (evaluation's match chains,
            docs/rule-choices.md, choice 11).

    A random deal takes the rotation's dealer; a match's first deal and a hand episode's deal
    draw theirs from ``rng`` (R2.1: the seed picks the first dealer).

    Raises:
        DealError: a malformed deal (naming the problem).
    """

    def __init__(self, rng: Any = None, deals: Iterable[Deal | dict[str, Any]] = (), dealers: str = "given"):
        if dealers not in DEALERS:
            raise ValueError(f"dealers must be one of {DEALERS}, got {dealers!r}")
        self.rng = rng
        self.dealers = dealers
        self._deals = tuple(parse_deal(d) for d in deals)
        self._next = 0

    @property
    def pending(self) -> list[Deal]:
        """The given deals not yet played."""
        return list(self._deals[self._next :])

    @property
    def used(self) -> int:
        """How many given deals have been played."""
        return self._next

    def next_deal(self, dealer: int | None) -> Deal | None:
        """The next deal; ``dealer`` is the rotation's (None at a match's first deal or in a hand
        episode). None when the given deals are used up and there is no generator."""
        if self._next < len(self._deals):
            deal = self._deals[self._next]
            self._next += 1
            if dealer is not None and self.dealers == "rotate" and deal.dealer != dealer:
                deal = replace(deal, dealer=dealer)
            return deal
        if self.rng is None:
            return None
        return random_deal(self.rng, dealer)


@dataclass(frozen=True)
class Outcome:
    """What one action did.

    Attributes:
        hand_result: the hand's result when this action ended a hand (R11.4), else None.
        match_result: the match's result when this action ended the match (R11.5), else None.
        rewards: what teams 0 and 1 earned by this action (``baloot_env.rewards``).
        episode_over: the episode ended (hand episode: the hand; match episode: the match, or
            the given deals ran out with no generator to draw more).
    """

    hand_result: HandResult | None = None
    match_result: MatchResult | None = None
    rewards: tuple[float, float] = (0.0, 0.0)
    episode_over: bool = False


NOTHING = Outcome()  # an action that ended no hand


class Table:
    """One game: deals, dealer rotation, the hand, the match, turns and rewards (module docstring).

    Usage::

        table = Table(rules, "match", DealSource(np.random.default_rng(0)))
        table.reset()
        while not table.over:
            outcome = table.apply(choose(table.hand, table.to_act))

    Args:
        rules: rule variants (default RULES.md).
        episode: "hand" (one deal) or "match" (R8).
        deals: the deal source (default: none; give one here or to ``reset``).
        reward: how the teams are paid (default ``Reward()``: "diff" / 44).
    """

    def __init__(
        self,
        rules: RuleConfig | None = None,
        episode: str = "hand",
        deals: DealSource | None = None,
        reward: Reward | None = None,
    ):
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if rules is not None and not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a RuleConfig, got {type(rules).__name__}")
        self.rules = rules or RuleConfig()
        self.episode = episode
        self.deals = deals if deals is not None else DealSource()
        self.reward = reward or Reward()
        self.hand: HandState | None = None
        self.match: MatchState | None = None

    # ------------------------------------------------------------------ episodes
    def reset(self, deals: DealSource | None = None) -> None:
        """Start a new episode (R11.2) with its first deal (from ``deals`` if given).

        Raises:
            BalootError: the deal source has no deal to give.
        """
        if deals is not None:
            self.deals = deals
        self.match = MatchState(self.rules) if self.episode == "match" else None
        self.hand = None
        if not self._start_hand():
            raise BalootError("the table's deal source has no deal to start an episode with")

    def _start_hand(self) -> bool:
        """Deal the next hand (R2.1: the match rotates the dealer); False when out of deals."""
        deal = self.deals.next_deal(self.match.next_dealer() if self.match is not None else None)
        if deal is None:
            return False
        self.hand = self.match.start_hand(deal) if self.match is not None else HandState(deal, self.rules)
        return True

    @property
    def over(self) -> bool:
        """The episode has ended (or not started): no seat may act."""
        return self.hand is None or self.hand.done

    @property
    def out_of_deals(self) -> bool:
        """A match stopped, unfinished, because the deal source ran out."""
        return self.hand is not None and self.hand.done and self.match is not None and self.match.result is None

    @property
    def to_act(self) -> int:
        """The seat the rules ask to act (R3.1, R4.2, R5.1); -1 when the episode is over."""
        return -1 if self.hand is None else self.hand.to_act

    @property
    def current_hand(self) -> HandState:
        """The hand being played; ``StateError`` before the first ``reset()``."""
        if self.hand is None:
            raise StateError("the table has no hand yet: call reset() first")
        return self.hand

    @property
    def context(self) -> MatchContext:
        """The match around the current hand, as every seat knows it (R8)."""
        return match_context(self.match)

    # ------------------------------------------------------------------ acting
    def verify(self, action: object) -> int:
        """The action as a plain int if the seat to act may take it; else ``IllegalActionError``
        naming the seat, the action and the legal ones. Changes nothing."""
        if self.hand is None:
            raise BalootError("the table has no hand yet: call reset() first")
        return self.hand.verify(action)

    def apply(self, action: object) -> Outcome:
        """Apply the action of the seat to act and say what it did (``Outcome``).

        When a hand of a match ends and the match goes on, the next hand is dealt at once, so
        ``to_act`` is its first bidder (R3.1). A refused action raises ``IllegalActionError``
        before anything changes.
        """
        hand = self.hand
        if hand is None:
            raise BalootError("the table has no hand yet: call reset() first")
        hand.apply(action)  # verifies first: a refused action raises before anything changes
        if not hand.done:
            return NOTHING
        result = hand.result
        assert result is not None  # a finished hand has its result (R7)
        if self.match is None:
            return Outcome(result, None, hand_rewards(self.reward, result, match_episode=False), True)
        self.match.end_hand()
        mres = self.match.result
        rewards = hand_rewards(self.reward, result, match_episode=True, match=mres)
        over = mres is not None or not self._start_hand()
        return Outcome(result, mres, rewards, over)

    # ------------------------------------------------------------------ saving
    def to_data(self) -> dict[str, Any]:
        """The hand and the match as plain data (the deal source is its owner's to save)."""
        return {
            "hand": self.hand.to_json() if self.hand is not None else None,
            "match": self.match.to_data() if self.match is not None else None,
        }

    def load_data(self, data: dict[str, Any]) -> None:
        """Restore ``to_data()``.

        Raises:
            StateError: a malformed hand; ValueError: a hand under other rules, or a malformed match.
        """
        hand = HandState.from_json(data["hand"]) if data["hand"] is not None else None
        if hand is not None and hand.rules != self.rules:
            raise ValueError("a saved game was played under other rules than this table's")
        match = MatchState.from_data(data["match"], self.rules, hand) if data["match"] is not None else None
        if hand is not None and (match is None) != (self.episode == "hand"):
            raise ValueError(f"a saved game does not fit a {self.episode} episode")
        self.hand, self.match = hand, match
