"""Random-playout invariants over 20,000 seeded hands (RULES.md R1-R9).

One module-scoped playout drives 20,000 random deals through ``HandState`` with a biased random
policy (so that hokum, sun, throw-ins and every doubling level occur) under several rule
variants, and records every broken invariant. The cheap properties are checked on every hand;
the expensive ones (all 42 actions tried on every state, replay, the JSON round trip, an
independent R5 legality oracle) on a subsample. Each test below asserts one family, and the
coverage test asserts that the interesting cases were actually reached.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from helpers import biased_action

from baloot_env.actions import HOKUM_BASE, NUM_ACTIONS, PASS, SUN_ACTION, action_name
from baloot_env.cards import mask_of
from baloot_env.deal import random_deal
from baloot_env.errors import IllegalActionError
from baloot_env.hand import BIDDING, DONE, DOUBLING, PLAY, HandState
from baloot_env.projects import FOUR_HUNDRED
from baloot_env.rules import RuleConfig

N_HANDS = 20_000
SEED = 20240501
ALL = (1 << 32) - 1
# The sampling periods below are odd so that every config gets its share of each check.
CONFIGS = (
    RuleConfig(),
    RuleConfig(sun_double=True),
    RuleConfig(projects=False, doubling=False),
    RuleConfig(four_aces_hokum="hundred", tie_rule="last_digit", baloot_kept=True, sun_double=True),
)
EVERY_ACTION_EVERY = 401  # hands whose every state gets all 42 actions tried
REPLAY_EVERY = 41  # hands checked by replay and the JSON round trip
ORACLE_EVERY = 11  # hands whose play states are checked against the reference R5

# The oracles below are written from docs/RULES.md's text, not from the engine's tables.
RANKS = "789TJQKA"  # R1.2: rank r of card 8 * suit + r
PLAIN_ORDER = "ATKQJ987"  # R1.3, strongest first
TRUMP_ORDER = "J9ATKQ87"  # R1.3, the trump suit in Hokum
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}  # R1.4
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}  # R1.4
LAST_TRICK = 10  # R1.4
RAW_TOTAL = {"hokum": 162, "sun": 130}  # R1.4, as the text sums them
NEXT_RAISE = {1: "double", 2: "three", 3: "four", 4: "gahwa"}  # R4.1: one level at a time


def ref_strength(card: int, trump: int) -> int:
    """R1.3: higher is stronger, within the card's suit."""
    order = TRUMP_ORDER if card >> 3 == trump else PLAIN_ORDER
    return len(order) - order.index(RANKS[card & 7])


def ref_points(card: int, trump: int) -> int:
    """R1.4."""
    return (TRUMP_POINTS if card >> 3 == trump else PLAIN_POINTS)[RANKS[card & 7]]


def test_reference_tables_sum_as_the_rules_say():
    """R1.4's own arithmetic: three plain suits of 30 and a trump suit of 62, plus the last trick."""
    assert sum(ref_points(c, -1) for c in range(32)) + LAST_TRICK == RAW_TOTAL["sun"]
    assert sum(ref_points(c, 0) for c in range(32)) + LAST_TRICK == RAW_TOTAL["hokum"]
    assert sum(PLAIN_POINTS.values()) == 30 and sum(TRUMP_POINTS.values()) == 62


def ref_trick_winner(trick: list[tuple[int, int]], trump: int) -> tuple[int, int]:
    """R5.5 from the text: highest trump, else highest card of the led suit. (seat, card)."""
    led = trick[0][1] >> 3
    trumps = [(s, c) for s, c in trick if c >> 3 == trump]
    pool = trumps or [(s, c) for s, c in trick if c >> 3 == led]
    return max(pool, key=lambda sc: ref_strength(sc[1], trump))


def ref_legal_cards(hand: list[int], trick: list[tuple[int, int]], trump: int, me: int) -> set[int]:
    """R5.1-R5.4 written from the text, independently of the engine's mask arithmetic."""
    if not trick:
        return set(hand)  # R5.1
    led = trick[0][1] >> 3
    follow = [c for c in hand if c >> 3 == led]
    table_trumps = [c for _, c in trick if c >> 3 == trump]
    best = max((ref_strength(c, trump) for c in table_trumps), default=-1)
    if follow:
        if led == trump:  # R5.2: overtrump when able, partner winning or not
            higher = [c for c in follow if ref_strength(c, trump) > best]
            return set(higher or follow)
        return set(follow)  # R5.2
    if trump < 0:
        return set(hand)  # R5.3
    if ref_trick_winner(trick, trump)[0] == (me + 2) % 4:
        return set(hand)  # R5.4 partner winning
    mine = [c for c in hand if c >> 3 == trump]
    if not mine:
        return set(hand)
    higher = [c for c in mine if ref_strength(c, trump) > best]
    return set(higher or mine)  # R5.4


def ref_bids(state: HandState) -> set[int]:
    """R3.1/R3.4 from the text."""
    turned = state.deal.turned >> 3
    out = {PASS, SUN_ACTION}
    if state.bid_round == 1:
        if not any(a != PASS for r, _, a in state.bids if r == 1):
            out.add(HOKUM_BASE + turned)
    else:
        out |= {HOKUM_BASE + s for s in range(4) if s != turned}
    return out


def cards_of_hand(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


class Playout:
    def __init__(self) -> None:
        self.failures: dict[str, list[str]] = {}
        self.seen: Counter[str] = Counter()

    def fail(self, family: str, where: str, what: str) -> None:
        lst = self.failures.setdefault(family, [])
        if len(lst) < 5:
            lst.append(f"{where}: {what}")
        self.seen[f"fail:{family}"] += 1

    def check(self, family: str, ok: bool, where: str, what) -> None:
        self.seen[f"checked:{family}"] += 1
        if not ok:
            self.fail(family, where, what() if callable(what) else what)


def check_cards(p: Playout, s: HandState, where: str) -> None:
    """32 cards conserved: hands + played + (before the contract) turned card and stock."""
    if s.contract is None:
        parts = s.hands + [mask_of(s.deal.stock) | 1 << s.deal.turned]
        sizes_ok = [h.bit_count() for h in s.hands] == [5, 5, 5, 5]
    else:
        parts = s.hands + s.played_by
        sizes_ok = all((s.hands[i] | s.played_by[i]).bit_count() == 8 for i in range(4))
    union, total = 0, 0
    for m in parts:
        union |= m
        total += m.bit_count()
    p.check("cards", union == ALL and total == 32 and sizes_ok, where, lambda: f"cards {parts}")
    # Public inferences (voids shown, trumps a seat cannot hold; R5.2, R5.4) must be true.
    for seat in range(4):
        suits = sum(0xFF << (8 * x) for x in range(4) if s.voids[seat] >> x & 1)
        ok = s.hands[seat] & (suits | s.no_trumps[seat]) == 0
        p.check("inference", ok, where, lambda seat=seat: f"seat {seat} holds a card it was inferred not to hold")


def check_every_action(p: Playout, s: HandState, where: str) -> None:
    """legal_actions == the set of actions apply() accepts; refusals leave the state unchanged."""
    legal = set(s.legal_actions())
    mask = s.legal_mask()
    before = s.snapshot()
    accepted = set()
    for a in range(NUM_ACTIONS):
        if a in legal:
            t = s.clone()
            try:
                t.apply(a)
                accepted.add(a)
            except IllegalActionError:
                pass
        else:
            try:
                s.apply(a)
                accepted.add(a)  # must not happen; the state is now spoilt, reported below
                break
            except IllegalActionError:
                pass
    p.check("mask", accepted == legal, where, lambda: f"legal {sorted(legal)} accepted {sorted(accepted)}")
    p.check("mask", mask == sum(1 << a for a in legal), where, "legal_mask disagrees with legal_actions")
    p.check("refusal", s.snapshot() == before, where, "a refused action changed the state")
    p.check("mask", (not legal) == s.done, where, lambda: f"no legal action but phase {s.phase}")


def check_replay(p: Playout, s: HandState, where: str) -> None:
    r = HandState.replay(s.deal, s.history, s.rules, s.match_score)
    p.check("replay", r == s, where, "replay(deal, history) differs")
    j = HandState.from_json(json.loads(json.dumps(s.to_json())))
    p.check("json", j == s and j.legal_actions() == s.legal_actions(), where, "JSON round trip differs")
    c = s.clone()
    p.check("clone", c == s, where, "clone differs")


def recompute_tricks(p: Playout, s: HandState, where: str) -> None:
    """Raw points and trick winners recomputed from the trick list (R1.4, R5.1, R5.5)."""
    raw = [0, 0]
    leader = (s.dealer + 1) % 4
    for i, (lead, cards, winner) in enumerate(s.tricks):
        seats = [(lead + k) % 4 for k in range(4)]
        w = ref_trick_winner(list(zip(seats, cards, strict=True)), s.trump)[0]
        p.check(
            "trick",
            lead == leader and w == winner,
            where,
            lambda i=i, cards=cards, winner=winner: f"trick {i} {cards} won by {winner}",
        )
        raw[w % 2] += sum(ref_points(c, s.trump) for c in cards) + (LAST_TRICK if i == 7 else 0)
        leader = w
    p.check("raw", raw == s.raw, where, lambda: f"raw {s.raw} but the tricks give {raw}")


def check_end(p: Playout, s: HandState, where: str, recompute: bool) -> None:
    r = s.result
    p.check("result", r is not None and s.to_act == -1 and s.legal_mask() == 0, where, "done without a result")
    if r.thrown:
        p.seen["thrown"] += 1
        ok = r.score == (0, 0) and len(s.bids) == 8 and all(a == PASS for _, _, a in s.bids)
        p.check("result", ok, where, "throw-in that scores or without 8 passes")
        return
    hokum = s.contract == "hokum"
    p.seen[f"{s.contract}"] += 1
    p.seen[f"{s.contract}-level{r.level}"] += 1
    total = RAW_TOTAL[s.contract]
    p.check("raw", sum(r.raw) == total and list(r.raw) == s.raw, where, lambda: f"raw {r.raw} in {s.contract}")
    p.check("raw", sum(r.tricks) == 8 and len(s.tricks) == 8, where, lambda: f"tricks {r.tricks}")
    if recompute:
        recompute_tricks(p, s, where)
    p.check("score", min(r.score) >= 0, where, lambda: f"negative score {r.score}")
    p.check("score", r.kaboot == (8 in r.tricks), where, "kaboot flag")
    p.check("score", 1 <= r.level <= 5 and (hokum or r.level <= 2), where, lambda: f"level {r.level}")
    if not hokum:
        p.check("score", r.level == 1 or s.rules.sun_double, where, "Sun doubled without V1")
    if r.level == 5:
        p.seen["gahwa"] += 1
        w = r.gahwa_winner  # R8.3 from a 0-0 match; V8 adds a kept baloot to the hand's score
        kept = r.baloot if s.rules.baloot_kept else (0, 0)
        ok = w in (0, 1) and r.score[w] == 152 + kept[w] and r.score[1 - w] == kept[1 - w]
        p.check("score", ok, where, lambda: f"gahwa {w} {r.score}")
    elif r.level > 1 or not r.callers_won or r.kaboot:
        # R7.5-R7.7: one team takes the hand; the other scores 0 (bar a kept baloot, V8).
        winner = (s.caller % 2) if r.callers_won else 1 - s.caller % 2
        kept = r.baloot[1 - winner] if s.rules.baloot_kept else 0
        p.check("score", r.score[1 - winner] == kept, where, lambda: f"loser scores {r.score}")
    if r.kaboot:
        p.seen["kaboot"] += 1
    if not r.callers_won:
        p.seen["callers_lost"] += 1
    if any(r.projects):
        p.seen["projects_scored"] += 1
        p.check("score", not (r.projects[0] and r.projects[1]), where, "both teams score projects (R6.3)")
    if any(pr.kind == FOUR_HUNDRED for ps in s.projects for pr in ps):
        p.seen["four_hundred"] += 1
    if s.baloot_seat >= 0:
        p.seen["baloot"] += 1
        p.check("score", r.baloot[s.baloot_seat % 2] == 2, where, "baloot not reported")
        p.check("score", s.baloot_announced, where, "baloot never announced though both cards were played")
    if not s.rules.projects:
        p.check("score", r.projects == ((), ()) and s.baloot_seat == -1, where, "projects scored with R6.6 off")


def run_playout() -> Playout:
    p = Playout()
    rng = random.Random(SEED)
    for i in range(N_HANDS):
        rules = CONFIGS[i % len(CONFIGS)]
        s = HandState(random_deal(rng), rules)
        every = i % EVERY_ACTION_EVERY == 0
        replay_at = rng.randrange(40) if i % REPLAY_EVERY == 0 else -1
        oracle = i % ORACLE_EVERY == 0
        step = 0
        checked = every or oracle or replay_at >= 0
        while not s.done:
            if not checked:
                s.apply(biased_action(rng, s))
                continue
            where = f"hand {i} step {step}"
            if every:
                check_every_action(p, s, where)
            if step == replay_at:
                check_replay(p, s, where)
            if oracle or every:
                check_cards(p, s, where)
                legal = set(s.legal_actions())
                if s.phase == PLAY:
                    trick = list(zip(s.trick_seats, s.trick_cards, strict=True))
                    ref = ref_legal_cards(cards_of_hand(s.hands[s.to_act]), trick, s.trump, s.to_act)
                    p.check(
                        "r5",
                        legal == ref,
                        where,
                        lambda legal=legal, ref=ref: f"legal {sorted(legal)} reference {sorted(ref)}",
                    )
                elif s.phase == BIDDING:
                    ref = ref_bids(s)
                    p.check(
                        "r3",
                        legal == ref,
                        where,
                        lambda legal=legal, ref=ref: f"legal {sorted(legal)} reference {sorted(ref)}",
                    )
                elif s.phase == DOUBLING:
                    names = {action_name(a) for a in legal}
                    ok = names == {"pass", NEXT_RAISE[s.level]}  # R4.1, R4.2
                    p.check(
                        "r4", ok, where, lambda names=names, level=s.level: f"legal {sorted(names)} at level {level}"
                    )
            s.apply(biased_action(rng, s))
            step += 1
        where = f"hand {i} end"
        if i % REPLAY_EVERY == 0:
            check_replay(p, s, where)
        if every:
            check_every_action(p, s, where)
        check_cards(p, s, where)
        check_end(p, s, where, recompute=i % 3 == 0)
        if s.contract == "sun" and s.level == 2:
            p.seen["sun_doubled"] += 1
    p.seen["hands"] = N_HANDS
    return p


@pytest.fixture(scope="module")
def playout() -> Playout:
    return run_playout()


FAMILIES = [
    "cards",
    "inference",
    "raw",
    "trick",
    "score",
    "result",
    "mask",
    "refusal",
    "replay",
    "json",
    "clone",
    "r3",
    "r4",
    "r5",
]


@pytest.mark.slow  # the shared playout takes about 10 s
@pytest.mark.parametrize("family", FAMILIES)
def test_invariant_family_holds(playout, family):
    """Each invariant family was checked many times and never failed."""
    assert playout.seen[f"checked:{family}"] > 0, f"{family} was never checked"
    assert family not in playout.failures, (playout.seen[f"fail:{family}"], playout.failures[family])


@pytest.mark.slow  # the shared playout takes about 10 s
def test_playout_reached_the_interesting_cases(playout):
    """The biased policy really covers both contracts, every level, throw-ins, kaboot, projects."""
    seen = playout.seen
    assert seen["hands"] >= 20_000
    for key in ("hokum", "sun", "thrown", "kaboot", "callers_lost", "projects_scored", "baloot", "four_hundred"):
        assert seen[key] > 0, (key, dict(seen))
    for level in range(1, 6):
        assert seen[f"hokum-level{level}"] > 0, (level, dict(seen))
    assert seen["sun_doubled"] > 0 and seen["gahwa"] > 0
    assert seen["hokum"] > 0.2 * seen["hands"] and seen["sun"] > 0.1 * seen["hands"], dict(seen)
    assert seen["checked:mask"] > 1000 and seen["checked:r5"] > 30_000 and seen["checked:json"] > 500


def test_playout_is_deterministic():
    """Same seed, same deals and actions: a short rerun gives the same first hands."""
    a, b = random.Random(SEED), random.Random(SEED)
    for _ in range(20):
        sa, sb = HandState(random_deal(a)), HandState(random_deal(b))
        while not sa.done:
            sa.apply(biased_action(a, sa))
            sb.apply(biased_action(b, sb))
        assert sa == sb and sb.phase == DONE
