"""``heuristic``: a rule-based player a club player would find sensible.

Bidding (R3) scores the cards the seat would hold as caller: its 5 cards plus the turned
card, which the caller always takes (R2.3).

- Hokum strength: each trump counts 1, with the J worth 4, the 9 3, the A 2 and the T 1.5
  (R1.3, R1.4: they win tricks and carry points); a side ace 1.5, a side ten guarded by its ace
  1 more, a side void 0.5 when holding three trumps or more.
- Sun strength: an ace 3, a ten 2 with its ace (1 guarded, 0.5 bare), a king 0.5 beside its
  ace or ten, and 0.5 a card for a long suit headed by the ace.
- Round 1 (R3.1-R3.3): sun when the Sun strength clears its bar by more than the hokum does;
  hokum in the turned suit over its bar; over a partner's hokum, sun only when very strong;
  over an opponent's hokum, sun over the normal bar. Round 2 (R3.4): the best suit other than
  the turned one, or sun; the dealer, last to speak, bids a little lighter (a throw-in scores
  nothing, R3.5).

Doubling (R4) looks at the seat's 8 cards: defenders double on strong trumps (J and 9 of trump
with length), the callers say three and the defenders four only with much more, and gahwa
(which ends the match, R8.3) only with a near-certain hand.

Card play is in ``agents.rule_based.card_play``. Every decision is a few integer operations (well under
0.2 ms), so that evaluation stays fast.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.base import Agent
from agents.rule_based.card_play import choose_card
from baloot_env.actions import DOUBLE, FOUR, GAHWA_ACTION, HOKUM_BASE, PASS, SUN_ACTION, THREE
from baloot_env.bidding import FIRST_ROUND, SECOND_ROUND
from baloot_env.cards import ACE, KING, NUM_RANKS, NUM_SUITS, TEN
from baloot_env.config import from_mapping
from baloot_env.seats import NO_SEAT, partner_of
from baloot_env.view import PlayerView

if TYPE_CHECKING:
    from baloot_env.lockstep_core import CoreRows

# R1.3/R1.4: what a trump is worth for taking tricks, by rank 7 8 9 T J Q K A.
TRUMP_VALUE = (1.0, 1.0, 3.0, 1.5, 4.0, 1.0, 1.0, 2.0)


@dataclass(frozen=True)
class HeuristicConfig:
    """The heuristic's bars (strength points, see the module docstring).

    Attributes:
        hokum_bar: call hokum at this Hokum strength or more.
        sun_bar: call sun at this Sun strength or more.
        sun_over_partner: sun over the partner's own hokum (R3.3) only at this strength.
        dealer_discount: the dealer, last to speak in round 2, lowers both bars by this.
        double_bar: defenders double (R4.1) at this defensive strength.
        three_bar: callers answer three at this strength.
        four_bar: defenders answer four at this strength.
        gahwa_bar: callers answer gahwa (the match, R8.3) at this strength.
    """

    hokum_bar: float = 7.5
    sun_bar: float = 8.0
    sun_over_partner: float = 11.0
    dealer_discount: float = 0.5
    double_bar: float = 9.0
    three_bar: float = 13.0
    four_bar: float = 14.0
    gahwa_bar: float = 17.0

    @classmethod
    def from_dict(cls, data: object) -> HeuristicConfig:
        """Build from a mapping (``baloot_env.config.from_mapping``); unknown keys or non-numbers
        raise ``ConfigError``."""
        return from_mapping(cls, data, "heuristic param")

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def hokum_strength(mask: int, trump: int) -> float:
    """Hokum strength of the cards ``mask`` with ``trump`` as trump (module docstring)."""
    trumps = (mask >> (8 * trump)) & 0xFF
    score = sum(TRUMP_VALUE[r] for r in range(NUM_RANKS) if trumps >> r & 1)
    n_trumps = trumps.bit_count()
    for s in range(NUM_SUITS):
        if s == trump:
            continue
        b = (mask >> (8 * s)) & 0xFF
        if b >> ACE & 1:
            score += 1.5
            if b >> TEN & 1:
                score += 1.0
        elif not b and n_trumps >= 3:
            score += 0.5
    return score


def sun_strength(mask: int) -> float:
    """Sun strength of the cards ``mask`` (module docstring)."""
    score = 0.0
    for s in range(NUM_SUITS):
        b = (mask >> (8 * s)) & 0xFF
        if not b:
            continue
        n = b.bit_count()
        ace, ten = b >> ACE & 1, b >> TEN & 1
        if ace:
            score += 3.0 + 0.5 * max(0, n - 3)
        if ten:
            score += 2.0 if ace else (1.0 if n >= 2 else 0.5)
        if b >> KING & 1 and (ace or ten):
            score += 0.5
    return score


def defence_strength(mask: int, trump: int) -> float:
    """Trump strength of an 8-card hand for doubling (R4): trumps as in Hokum, side aces 1."""
    trumps = (mask >> (8 * trump)) & 0xFF
    score = sum(TRUMP_VALUE[r] for r in range(NUM_RANKS) if trumps >> r & 1)
    for s in range(NUM_SUITS):
        if s != trump and mask >> (8 * s + ACE) & 1:
            score += 1.0
    return score


class HeuristicAgent(Agent):
    """Rule-based bidding, doubling and card play; deterministic (the seed is not used)."""

    name = "heuristic"
    deterministic = True

    def __init__(self, seed: int = 0, config: HeuristicConfig | None = None):
        super().__init__(seed)
        self.config = config or HeuristicConfig()

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name, "params": self.config.to_dict()}

    def core_actions(self, rows: CoreRows) -> np.ndarray:
        """``act`` on the batched core's games (``baloot_env.lockstep_core.CoreRows``): its numba
        port on the rows (``agents.rule_based.batch_heuristic``, proven action for action equal)."""
        # imported here: the port's numba kernels load only when the core asks for them
        from agents.rule_based.batch_heuristic import heuristic_actions, heuristic_bars

        chosen = np.empty(len(rows), np.int64)
        heuristic_actions(rows.games, heuristic_bars(self.config), rows.rows, chosen)
        return chosen

    def act(self, view: PlayerView) -> int:
        phase = view.phase
        if phase == "play":
            return choose_card(view)
        if phase == "bidding":
            action = self._bid(view)
        elif phase == "doubling":
            action = self._double(view)
        else:
            raise ValueError(f"seat {view.seat} is asked to act in the {phase} phase")
        if not view.legal_mask >> action & 1:  # defensive: never return an illegal call
            action = PASS
        return action

    # ------------------------------------------------------------------ R3
    def _bid(self, view: PlayerView) -> int:
        cfg = self.config
        legal = view.legal_mask
        mine = view.hand | 1 << view.turned  # R2.3: the caller takes the turned card
        turned_suit = view.turned >> 3
        sun = sun_strength(mine)
        discount = cfg.dealer_discount if view.seat == view.dealer and view.bid_round == SECOND_ROUND else 0.0
        if view.bid_round == FIRST_ROUND:
            hokum_bidder = next((s for r, s, a in view.bids if a != PASS), NO_SEAT)
            if hokum_bidder >= 0:  # R3.3: only sun can still be said
                bar = cfg.sun_over_partner if hokum_bidder == partner_of(view.seat) else cfg.sun_bar
                return SUN_ACTION if sun >= bar else PASS
            hokum = hokum_strength(mine, turned_suit)
            hokum_action = HOKUM_BASE + turned_suit
        else:
            suits = [s for s in range(NUM_SUITS) if legal >> (HOKUM_BASE + s) & 1]
            hokum, best = max((hokum_strength(mine, s), -s) for s in suits)
            hokum_action = HOKUM_BASE - best
        sun_margin = sun - (cfg.sun_bar - discount)
        hokum_margin = hokum - (cfg.hokum_bar - discount)
        if sun_margin >= 0 and sun_margin >= hokum_margin:
            return SUN_ACTION
        if hokum_margin >= 0 and legal >> hokum_action & 1:
            return hokum_action
        return PASS

    # ------------------------------------------------------------------ R4
    def _double(self, view: PlayerView) -> int:
        cfg = self.config
        legal = view.legal_mask
        if view.trump < 0:  # V1 Sun double: only with a very strong Sun hand of our own
            return DOUBLE if legal >> DOUBLE & 1 and sun_strength(view.full_hand) >= cfg.sun_bar + 4 else PASS
        strength = defence_strength(view.full_hand, view.trump)
        for action, bar in ((DOUBLE, cfg.double_bar), (THREE, cfg.three_bar), (FOUR, cfg.four_bar)):
            if legal >> action & 1:
                return action if strength >= bar else PASS
        if legal >> GAHWA_ACTION & 1:
            return GAHWA_ACTION if strength >= cfg.gahwa_bar else PASS
        return PASS
