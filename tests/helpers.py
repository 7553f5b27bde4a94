"""Builders for hand-worked test cases: named cards, constructed deals, scripted bidding.

Card names follow R1.2 (rank then suit: ``"JS"``, ``"TH"``, ``"9D"``, ``"AC"``).
"""

from __future__ import annotations

import random

from baloot_env.actions import HOKUM_BASE, PASS, SUN_ACTION
from baloot_env.cards import card_name, cards_of, parse_card
from baloot_env.deal import Deal, parse_deal
from baloot_env.hand import BIDDING, DOUBLING, PLAY, HandState
from baloot_env.rules import RuleConfig

SUITS = "SHDC"


def c(name: str) -> int:
    """Card id of a name (R1.2)."""
    return parse_card(name)


def cs(text: str) -> list[int]:
    """Card ids of a space-separated list of names: ``cs("JS 9S AH")``."""
    return [parse_card(n) for n in text.split()]


def names(cards) -> set[str]:
    """Set of card names of an iterable of ids or of a mask (int)."""
    if isinstance(cards, int):
        cards = cards_of(cards)
    return {card_name(x) for x in cards}


def legal_names(state: HandState) -> set[str]:
    """Legal cards of the seat to act, as names (play phase only)."""
    assert state.phase == PLAY
    return names(state.legal_actions())


def make_deal(dealer: int, hands: list[str], turned: str, stock: str) -> Deal:
    """A validated deal (R2.4) from names: ``hands`` are four strings of 5 names."""
    return parse_deal({"dealer": dealer, "hands": [h.split() for h in hands], "turned": turned, "stock": stock.split()})


def deal_for(dealer: int, caller: int, hands8: list[str], turned: str) -> Deal:
    """The deal that gives each seat exactly ``hands8[seat]`` (8 names) after R2.3.

    R2.3: from ``(dealer + 1) % 4`` in play order, each seat takes the next 3 stock cards, the
    caller the turned card and the next 2. The first 5 names of each seat (the turned card
    excluded for the caller) are its first cards; the rest go into the stock in that order.
    """
    lists = [h.split() for h in hands8]
    assert all(len(h) == 8 for h in lists), [len(h) for h in lists]
    assert turned in lists[caller], "the caller must end with the turned card"
    first, extra = [], []
    for seat, h in enumerate(lists):
        rest = [n for n in h if n != turned] if seat == caller else h
        first.append(rest[:5])
        extra.append(rest[5:])
    stock = []
    for i in range(4):
        stock += extra[(dealer + 1 + i) % 4]
    return parse_deal({"dealer": dealer, "hands": first, "turned": turned, "stock": stock})


def bid(state: HandState, *actions: int) -> None:
    """Apply bidding/doubling actions in order."""
    for a in actions:
        state.apply(a)


def call_contract(state: HandState, caller: int, contract: str, trump: int | None = None) -> None:
    """Script the calling so that ``caller`` gets ``contract`` (R3).

    Sun: seats before the caller pass, the caller says sun. Hokum in the turned suit: round 1,
    the caller calls and the rest pass. Hokum in another suit: all pass round 1, then round 2
    up to the caller.
    """
    assert state.phase == BIDDING
    dealer = state.dealer
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    turned_suit = state.deal.turned >> 3
    if contract == "sun":
        for _ in order[: order.index(caller)]:
            state.apply(PASS)
        state.apply(SUN_ACTION)
    elif trump is None or trump == turned_suit:
        for seat in order:
            state.apply(HOKUM_BASE + turned_suit if seat == caller else PASS)
    else:
        for _ in order:
            state.apply(PASS)
        for _ in order[: order.index(caller)]:
            state.apply(PASS)
        state.apply(HOKUM_BASE + trump)
    assert state.contract == contract and state.caller == caller


def start_play(deal: Deal, caller: int, contract: str, trump: int | None = None, rules: RuleConfig | None = None):
    """A HandState at the first card: contract called, doubling (if any) passed by both defenders."""
    state = HandState(deal, rules)
    call_contract(state, caller, contract, trump)
    if state.phase == DOUBLING:
        state.apply(PASS)
        state.apply(PASS)
    assert state.phase == PLAY
    return state


def play(state: HandState, text: str) -> None:
    """Play the named cards in order (each by the seat to act)."""
    for n in text.split():
        state.apply(parse_card(n))


def biased_action(rng: random.Random, state: HandState, raise_p: float = 0.4) -> int:
    """A random legal action, biased so that hokum, sun, throw-ins and every level occur.

    Uniform bidding almost always ends in sun (it is legal at every turn); here a seat says sun
    rarely, calls hokum fairly often and passes otherwise; a doubling call raises with
    probability ``raise_p``.
    """
    legal = state.legal_actions()
    if state.phase == PLAY:
        return legal[int(rng.random() * len(legal))]
    if state.phase == BIDDING:
        hokums = [a for a in legal if HOKUM_BASE <= a < SUN_ACTION]
        x = rng.random()
        if x < 0.07:
            return SUN_ACTION
        if hokums and x < 0.35:
            return rng.choice(hokums)
        return PASS
    if state.phase == DOUBLING:
        return legal[1] if rng.random() < raise_p else PASS
    raise ValueError(f"no action in phase {state.phase}")


def card_decisions(rules: RuleConfig, hands: int, seed: int):
    """(state, seat) at every card decision (R5) with two or more legal cards, in ``hands``
    seeded hands played by ``heuristic`` in every seat."""
    from agents import HeuristicAgent, PlayerView
    from baloot_env.deal import random_deal

    rng = random.Random(seed)
    agents = [HeuristicAgent(s) for s in range(4)]
    for _ in range(hands):
        state = HandState(random_deal(rng), rules)
        while state.result is None:
            seat = state.to_act
            view = PlayerView.from_state(state, seat)
            if state.phase == PLAY and len(cards_of(view.legal_mask)) > 1:
                yield state, seat
            state.apply(agents[seat].act(view))


def playout_values(template, worlds, cards, sw, team: int, endgame_cards: int):
    """``batch_search.search_values`` of every card in every world (one heuristic playout each,
    then the exact endgame): the reference the other leaves are checked against."""
    import numpy as np

    from agents.search_player.batch_endgame import claim_stamps
    from agents.search_player.batch_search import search_values

    values = np.zeros((len(worlds), len(cards)))
    rng = np.zeros(1, dtype=np.uint64)
    search_values(template, worlds, cards, sw, team, endgame_cards, 0.0, 1, rng, values, *claim_stamps(len(worlds)))
    return values


def documentation_pages() -> list:
    """The README, then every page of the documentation site in the order of its nav
    (``mkdocs.yml``): the files whose code blocks the tests run."""
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parent.parent

    def pages(items: list) -> list[str]:  # a nav entry: "page.md", {title: "page.md"} or {title: [entries]}
        out: list[str] = []
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            out += pages(value) if isinstance(value, list) else [value]
        return out

    nav = yaml.safe_load((root / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    return [root / "README.md", *(root / "docs" / page for page in pages(nav))]
