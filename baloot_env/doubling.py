"""The doubling (R4): the raises after the contract, and who may say them.

The first defender after the caller speaks first (R4.2); the team entitled to raise speaks one
player at a time, a pass handing the turn to the partner and a raise handing it to the other
team; each raise goes one level up, none skipped (R4.1); gahwa, or a Sun double (V1), closes
the calling; two passes in a row start the play.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baloot_env.actions import GAHWA_ACTION, PASS, raise_action
from baloot_env.phases import DOUBLING
from baloot_env.play import start_play
from baloot_env.rules import RuleConfig
from baloot_env.scoring import HOKUM, SUN
from baloot_env.seats import next_seat, partner_of

if TYPE_CHECKING:
    from baloot_env.hand import HandState

PASSES_TO_PLAY = 2  # R4.2: both players of the entitled team pass


def doubling_applies(rules: RuleConfig, contract: str) -> bool:
    """Whether a hand of ``contract`` has a doubling phase (R4.3; V1 Sun doubles, V3 off)."""
    return rules.doubling and (contract == HOKUM or rules.sun_double)


def start_doubling(state: HandState) -> None:
    """R4.2: the first defender after the caller speaks first."""
    state.phase = DOUBLING
    state.to_act = next_seat(state.caller)


def legal_doubling(state: HandState) -> int:
    """Bit ``a`` set iff call ``a`` is legal now: pass or the next raise, none skipped (R4.1)."""
    return 1 << PASS | 1 << raise_action(state.level)


def apply_doubling(state: HandState, action: int) -> None:
    """R4.2: the entitled team's two players speak in turn; a raise hands over the turn."""
    seat = state.to_act
    state.doubling_calls.append((seat, action))
    if action == PASS:
        state.doubling_passes += 1
        if state.doubling_passes == PASSES_TO_PLAY:
            start_play(state)
        else:
            state.to_act = partner_of(seat)  # the entitled team's other player
        return
    state.level += 1
    state.last_raiser = seat
    state.doubling_passes = 0
    if action == GAHWA_ACTION or state.contract == SUN:  # R4.2 gahwa closes; V1 one double
        start_play(state)
    else:
        state.to_act = next_seat(seat)  # the other team, first after the raiser
