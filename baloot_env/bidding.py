"""The calling (R3): who may say what, and the contract it settles.

Two rounds from the dealer's right (R3.1); in round 1 only the turned suit may be called as
hokum, and a later seat may still say sun over it (R3.2, R3.3); in round 2 any other suit or
sun, the first call settling at once (R3.4); two rounds of passes throw the deal in (R3.5).
Once the contract is settled the stock is dealt (R2.3), projects are declared (R6) and the hand
moves on to the doubling (R4) or straight to play.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baloot_env.actions import HOKUM_ACTIONS, HOKUM_BASE, PASS, SUN_ACTION
from baloot_env.cards import NO_TRUMP, mask_of
from baloot_env.deal import stock_shares
from baloot_env.doubling import doubling_applies, start_doubling
from baloot_env.phases import DONE
from baloot_env.play import start_play
from baloot_env.projects import declare_projects, has_baloot
from baloot_env.results import HandResult
from baloot_env.scoring import HOKUM, SUN
from baloot_env.seats import NO_SEAT, NUM_SEATS, next_seat

if TYPE_CHECKING:
    from baloot_env.hand import HandState

FIRST_ROUND, SECOND_ROUND = 1, 2  # R3.1, R3.4
_ALWAYS = 1 << PASS | 1 << SUN_ACTION  # R3.1, R3.4: pass and sun are always open
_ALL_HOKUM = sum(1 << a for a in HOKUM_ACTIONS)


def legal_bids(state: HandState) -> int:
    """Bit ``a`` set iff call ``a`` is legal for the seat to act (R3.1-R3.4)."""
    turned_hokum = 1 << (HOKUM_BASE + (state.deal.turned >> 3))
    if state.bid_round == FIRST_ROUND:
        return _ALWAYS | turned_hokum if state.hokum_bidder < 0 else _ALWAYS  # R3.1, R3.3
    return _ALWAYS | (_ALL_HOKUM & ~turned_hokum)  # R3.4: any suit but the turned one


def apply_bid(state: HandState, action: int) -> None:
    """R3: record one call and settle the contract when the calling is over."""
    seat = state.to_act
    state.bids.append((state.bid_round, seat, action))
    if action == SUN_ACTION:  # R3.2, R3.4
        settle(state, SUN, NO_TRUMP, seat)
        return
    if action != PASS:
        if state.bid_round == SECOND_ROUND:  # R3.4: the first call settles at once
            settle(state, HOKUM, action - HOKUM_BASE, seat)
            return
        state.hokum_bidder = seat  # R3.3: round 1 runs on (a later seat may say sun)
    if seat == state.dealer:  # the round's last speaker
        if state.bid_round == FIRST_ROUND:
            if state.hokum_bidder >= 0:  # R3.3
                settle(state, HOKUM, state.deal.turned >> 3, state.hokum_bidder)
                return
            state.bid_round = SECOND_ROUND  # R3.4
        else:
            throw_in(state)  # R3.5
            return
    state.to_act = next_seat(seat)


def settle(state: HandState, contract: str, trump: int, caller: int) -> None:
    """The contract is settled: deal the stock (R2.3), declare projects (R6), then R4 or R5."""
    state.contract, state.trump, state.caller = contract, trump, caller
    for seat, share in enumerate(stock_shares(state.deal, caller)):  # R2.3
        state.hands[seat] |= mask_of(share)
    state.full_hands = state.hands[:]
    hokum = contract == HOKUM
    rules = state.rules
    if rules.projects:  # R6.1, R6.5, R6.6
        state.projects = [declare_projects(h, hokum, rules.four_aces_hokum) for h in state.hands]
        if hokum:
            for seat in range(NUM_SEATS):
                if has_baloot(state.hands[seat], trump):
                    state.baloot_seat = seat
    if doubling_applies(rules, contract):
        start_doubling(state)
    else:
        start_play(state)


def throw_in(state: HandState) -> None:
    """R3.5: all passed twice; nobody scores."""
    state.phase = DONE
    state.to_act = NO_SEAT
    state.result = HandResult.thrown_in(state.dealer)
