"""The search player: consistent and uniform worlds, exact endgame, legal moves,
no hidden information.

Consistency is checked by the engine itself: a sampled world is turned into a deal (R2.4)
and the hand's history is replayed on it (R3-R5); the replay must accept every action and give
the observing seat exactly the same view (voids, missing trumps, projects, baloot, R5.2, R5.4,
R6.2, R6.5).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from agents import HeuristicAgent, PlayerView, RandomAgent, make_agent
from agents.registry import AgentSpecError
from agents.search_player.endgame import legal_cards, solve
from agents.search_player.player import SearchAgent, SearchConfig, build_world, leaf_function
from baloot_env import DONE, PLAY, HandState, random_deal
from baloot_env.cards import ALL_CARDS_MASK, NUM_SEATS, cards_of
from baloot_env.deal import parse_deal
from baloot_env.errors import ConfigError, IllegalActionError
from baloot_env.worlds import WorldSampler, sample_bidding_deal
from eval.duplicate import play_deal


# ---------------------------------------------------------------------- helpers
def _mixed_action(rng: random.Random, state: HandState, heuristic: HeuristicAgent) -> int:
    """Half heuristic, half random: random calls give contracts, the heuristic gives sense."""
    if rng.random() < 0.5:
        return rng.choice(state.legal_actions())
    return heuristic.act(PlayerView.from_state(state, state.to_act))


def _positions(seed: int, hands: int, per_hand: int = 99):
    """Play-phase states (copies) from random hands, at up to ``per_hand`` random turns each."""
    rng = random.Random(seed)
    h = HeuristicAgent(0)
    out = []
    for _ in range(hands):
        state = HandState(random_deal(rng))
        taken = []
        while state.phase != DONE:
            if state.phase == PLAY and rng.random() < 0.5:
                taken.append(state.clone())
            state.apply(_mixed_action(rng, state, h))
        rng.shuffle(taken)
        out += taken[:per_hand]
    return out


def _deal_of_world(state: HandState, world_hands: list[int]) -> dict:
    """A deal (R2.4) that gives every seat ``world_hands`` plus what it has played (R2.3)."""
    turned, caller, dealer = state.deal.turned, state.caller, state.dealer
    first, extra = [None] * 4, [None] * 4
    for s in range(NUM_SEATS):
        full = cards_of(world_hands[s] | state.played_by[s])
        rest = [c for c in full if c != turned] if s == caller else full
        first[s], extra[s] = rest[:5], rest[5:]
    stock = []
    for i in range(NUM_SEATS):
        stock += extra[(dealer + 1 + i) % NUM_SEATS]
    return {"dealer": dealer, "hands": first, "turned": turned, "stock": stock}


def _replayed(state: HandState, world_hands: list[int]) -> HandState:
    return HandState.replay(parse_deal(_deal_of_world(state, world_hands)), state.history, state.rules)


def _sampler(view: PlayerView) -> WorldSampler:
    return WorldSampler(view)  # the rule variants come from the view (view.rules)


# ---------------------------------------------------------------------- sampling
def test_every_sampled_world_is_consistent_with_the_view():
    """Thousands of random mid-hand positions (R2.3, R5.2, R5.4, R6.2, R6.5): the engine replays
    the whole history on each world and shows the seat the same view."""
    rng = random.Random(11)
    checked = fixed_cards = constrained = 0
    for state in _positions(seed=1, hands=260, per_hand=8):
        seat = state.to_act
        view = PlayerView.from_state(state, seat)
        sampler = _sampler(view)
        assert all(sampler.allowed[s] & state.hands[s] == state.hands[s] for s in sampler.others)
        fixed_cards += sum(m.bit_count() for m in sampler.fixed)
        constrained += any(view.voids[s] or view.no_trumps[s] for s in sampler.others)
        for _ in range(2):
            hands = sampler.sample(rng)
            assert hands[seat] == state.hands[seat]
            union = 0
            for s in range(NUM_SEATS):
                assert hands[s].bit_count() == state.hands[s].bit_count()  # R2.3 hand sizes
                assert not union & hands[s]
                union |= hands[s]
            assert union == ALL_CARDS_MASK & ~sum(state.played_by)
            replay = _replayed(state, hands)  # raises IllegalActionError if a card could not be played
            assert PlayerView.from_state(replay, seat).public_fields() == view.public_fields()
            checked += 1
        assert sampler.fallbacks == 0
    assert checked >= 2000
    assert fixed_cards > 100 and constrained > 300  # the constraints were really exercised


def test_a_world_against_a_shown_void_is_refused_by_the_replay():
    """The engine's replay is a real check (R5.2): a world that gives a seat a card of a suit it
    has shown it lacks cannot replay the history (the seat would have had to follow). Every
    position with such a swap reaches the assertion; they are counted."""
    refused = 0
    for state in _positions(seed=2, hands=40, per_hand=3):
        seat = state.to_act
        view = PlayerView.from_state(state, seat)
        others = [s for s in range(4) if s != seat]
        void_seat = next((s for s in others if view.voids[s] and state.hands[s]), None)
        if void_seat is None:
            continue
        suit = next(u for u in range(4) if view.voids[void_seat] >> u & 1)
        donor = next((s for s in others if s != void_seat and state.hands[s] >> (8 * suit) & 0xFF), None)
        back = next((c for c in cards_of(state.hands[void_seat]) if c != state.deal.turned), None)
        if donor is None or back is None:  # (the turned card stays with the caller, R2.3)
            continue
        card = cards_of(state.hands[donor] >> (8 * suit) & 0xFF)[0] + 8 * suit
        if card == state.deal.turned:
            continue
        hands = state.hands[:]
        hands[donor] ^= 1 << card | 1 << back
        hands[void_seat] ^= 1 << card | 1 << back
        with pytest.raises(IllegalActionError, match="may not play"):
            _replayed(state, hands)
        refused += 1
    assert refused >= 30


def _small_case() -> HandState:
    """A late position (trick 6 or later) with a void or missing trumps shown, found by seed."""
    for state in _positions(seed=3, hands=80):
        view = PlayerView.from_state(state, state.to_act)
        unseen = sum(state.hands) - state.hands[state.to_act]
        others = [s for s in range(4) if s != state.to_act]
        if 6 <= unseen.bit_count() <= 8 and any(view.voids[s] or view.no_trumps[s] for s in others):
            return state
    raise AssertionError("no small case found")


def test_sampling_is_uniform_on_a_small_countable_case():
    """Brute force lists every consistent deal (by replay); the exact count agrees and the
    sample frequencies fit the uniform distribution (chi-square)."""
    state = _small_case()
    seat = state.to_act
    view = PlayerView.from_state(state, seat)
    others = [s for s in range(4) if s != seat]
    unseen = cards_of(sum(state.hands[s] for s in others))
    sizes = [state.hands[s].bit_count() for s in others]
    consistent = []
    per_card = 0  # agreeing in everything but the project declarations (R6.1)
    partitions = 0
    for perm in itertools.permutations(range(len(unseen))):
        # one representative per set partition: indices ascending within each seat's block
        blocks, pos = [], 0
        for n in sizes:
            blocks.append(perm[pos : pos + n])
            pos += n
        if any(list(b) != sorted(b) for b in blocks):
            continue
        partitions += 1
        hands = [0] * 4
        hands[seat] = state.hands[seat]
        for s, b in zip(others, blocks, strict=True):
            for i in b:
                hands[s] |= 1 << unseen[i]
        try:
            replay = _replayed(state, hands)
        except IllegalActionError:
            continue
        seen, want = PlayerView.from_state(replay, seat).public_fields(), view.public_fields()
        if seen == want:
            consistent.append(tuple(hands))
        holds_public = all(
            (hands[s] | state.played_by[s]) >> c & 1 for s in others for p in view.projects[s] for c in p.cards
        )  # R6.2: the cards of a public project are in the holder's 8 cards
        per_card += holds_public and all(seen[k] == want[k] for k in want if k != "projects")
    assert len(set(consistent)) == len(consistent)
    assert 3 <= len(consistent) < partitions  # the constraints bite, several deals remain
    sampler = _sampler(view)
    assert sampler.total == per_card  # exact counting of the per-card constraints
    assert per_card > len(consistent)  # and this case needs the project rejection too
    rng = random.Random(7)
    n = 300 * len(consistent)
    freq = Counter(tuple(sampler.sample(rng)) for _ in range(n))
    assert set(freq) == set(consistent)
    expected = n / len(consistent)
    chi2 = sum((freq[d] - expected) ** 2 / expected for d in consistent)
    dof = len(consistent) - 1
    assert chi2 < dof + 5 * (2 * dof) ** 0.5 + 10  # ~5 sd above the chi-square mean


def test_bidding_deal_keeps_own_cards_and_turned_card():
    rng = random.Random(4)
    state = HandState(random_deal(rng))
    view = PlayerView.from_state(state, state.to_act)
    deal = sample_bidding_deal(view, rng)
    parse_deal(deal.to_dict())  # R2.4: all 32 cards once
    assert deal.turned == view.turned and sorted(deal.hands[view.seat]) == view.hand_cards


# ---------------------------------------------------------------------- endgame
def _brute(state: HandState, team: int) -> int:
    """Plain minimax through the engine itself (R5, R7)."""
    if state.phase == DONE:
        return state.result.score[team] - state.result.score[1 - team]
    vals = []
    for a in state.legal_actions():
        s = state.clone()
        s.apply(a)
        vals.append(_brute(s, team))
    return max(vals) if state.to_act % 2 == team else min(vals)


def test_compact_legality_is_the_engines():
    """R5.1-R5.4: the solver plays by the engine's one statement of the rules (``play.legal_cards``,
    checked against a reference written from RULES.md in test_invariants), given its compact
    position it equals ``HandState.legal_mask`` on every seat to act."""
    from baloot_env import play

    assert legal_cards is play.legal_cards
    for state in _positions(seed=5, hands=150):
        seat = state.to_act
        led = state.trick_cards[0] >> 3 if state.trick_cards else -1
        got = legal_cards(state.hands[seat], seat, led, state.trick_winner, state.trick_win_card, state.trump)
        assert got == state.legal_mask()


def test_exact_endgame_agrees_with_brute_force():
    """Last 1-3 tricks, at trick starts and mid-trick, both teams to maximise."""
    cases = [s for s in _positions(seed=6, hands=120) if sum(h.bit_count() for h in s.hands) <= 10]
    assert len(cases) >= 40
    for state in cases[:40]:
        team = state.to_act % 2
        for t in (team, 1 - team):
            trick = list(zip(state.trick_seats, state.trick_cards, strict=True))
            got = solve(
                state.hands[:],
                state.to_act,
                trick,
                state.trump,
                state.raw[0],
                state.tricks_won[0],
                len(state.tricks),
                t,
                leaf_function(state, t),
            )
            assert got == _brute(state, t)


# ---------------------------------------------------------------------- the agent
def _small_agent(seed: int = 0, backend: str = "core") -> SearchAgent:
    return SearchAgent(seed, SearchConfig(worlds=4, backend=backend))


BACKENDS = ("core", "python")  # where the playouts run (tests/agents/test_search_core.py proves them equal)


@pytest.mark.parametrize("backend", BACKENDS)
def test_agent_plays_only_legal_cards(backend):
    """Duplicate hands against the heuristic and random (the evaluator raises on an illegal
    action, R9), plus direct checks on random positions."""
    agent = _small_agent(backend=backend)
    rng = random.Random(8)
    for i in range(4):
        play_deal(i, random_deal(rng), agent, HeuristicAgent(0), seed=1)
    play_deal(5, random_deal(rng), agent, RandomAgent(0), seed=1)
    for state in _positions(seed=9, hands=30, per_hand=2):
        view = PlayerView.from_state(state, state.to_act)
        agent.reset(3)
        assert view.legal_mask >> agent.act(view) & 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_decision_uses_no_hidden_cards_and_is_seeded(backend):
    """Two states differing only in other seats' hidden cards give the same view, the same
    values and the same card with the same seed."""
    rng = random.Random(10)
    agent = SearchAgent(0, SearchConfig(worlds=6, backend=backend))
    compared = 0
    for state in _positions(seed=12, hands=20, per_hand=2):
        seat = state.to_act
        view = PlayerView.from_state(state, seat)
        if view.legal_mask.bit_count() < 2:
            continue
        other = _replayed(state, _sampler(view).sample(rng))
        view2 = PlayerView.from_state(other, seat)
        assert view2.public_fields() == view.public_fields()
        agent.reset(42)
        v1 = agent.evaluate(view)
        agent.reset(42)
        v2 = agent.evaluate(view2)
        assert v1 == v2
        agent.reset(42)
        a1 = agent.act(view)
        agent.reset(42)
        assert agent.act(view2) == a1
        compared += other.hands != state.hands
    assert compared >= 10


def test_world_state_scores_like_the_engine():
    """A world built from the true hands is the true state for play and scoring (R6, R7)."""
    for state in _positions(seed=13, hands=30, per_hand=1):
        view = PlayerView.from_state(state, state.to_act)
        world = build_world(view, state.hands, state.rules)
        assert world.projects == state.projects and world.baloot_seat == state.baloot_seat
        a, b = world.clone(), state.clone()
        while b.phase != DONE:
            act = b.legal_actions()[0]
            a.apply(act)
            b.apply(act)
        assert a.result.score == b.result.score


def test_registry_and_config_errors():
    agent = make_agent("search", seed=1)
    assert isinstance(agent, SearchAgent) and agent.config == SearchConfig()
    with pytest.raises(ConfigError, match="unknown search params"):
        SearchConfig.from_dict({"world": 3})
    with pytest.raises(ConfigError, match="worlds"):
        SearchConfig(worlds=0)
    with pytest.raises(ConfigError, match="epsilon"):
        SearchConfig(epsilon=2.0)
    assert SearchConfig.from_dict({"worlds": 8, "time_budget": 1}).time_budget == 1.0
    with pytest.raises(ConfigError, match="backend"):
        SearchConfig(backend="gpu")
    with pytest.raises(AgentSpecError):
        from agents.registry import _make_search

        _make_search(0, {"worlds": "many"})


@pytest.mark.parametrize("backend", BACKENDS)
def test_worlds_by_trick_sets_each_tricks_worlds(backend):
    """A card decision in trick t searches ``worlds_by_trick[t - 1]`` worlds (the calls keep
    ``worlds``); with the schedule of a constant, the values equal those of ``worlds`` alone."""
    schedule = (9, 8, 7, 6, 5, 4, 3, 2)
    seen = set()
    for state in _positions(seed=15, hands=6):
        if state.legal_mask().bit_count() < 2:
            continue
        view = PlayerView.from_state(state, state.to_act)
        agent = SearchAgent(3, SearchConfig(worlds=4, worlds_by_trick=schedule, backend=backend))
        agent.evaluate(view)
        assert agent.last_stats["worlds"] == schedule[len(state.tricks)]
        seen.add(len(state.tricks))
        flat = SearchAgent(3, SearchConfig(worlds=5, worlds_by_trick=(5,) * 8, backend=backend))
        assert flat.evaluate(view) == SearchAgent(3, SearchConfig(worlds=5, backend=backend)).evaluate(view)
    assert len(seen) >= 6
    spec = SearchConfig.from_dict({"worlds_by_trick": list(schedule)})
    assert spec.worlds_by_trick == schedule and SearchConfig.from_dict(spec.to_dict()) == spec
    assert "worlds_by_trick" not in SearchConfig().to_dict()  # descriptions without it unchanged
    for bad in ([64] * 7, [64] * 7 + [0], [64] * 7 + [True], [64] * 7 + [1 << 20]):
        with pytest.raises(ConfigError, match="worlds_by_trick"):
            SearchConfig.from_dict({"worlds_by_trick": bad})


@pytest.mark.parametrize("backend", BACKENDS)
def test_time_budget_and_noisy_playouts(backend):
    """The budgeted and epsilon-playout settings still give a value for every legal card."""
    state = next(s for s in _positions(seed=14, hands=10) if s.legal_mask().bit_count() >= 2 and not s.tricks)
    view = PlayerView.from_state(state, state.to_act)
    agent = SearchAgent(0, SearchConfig(time_budget=0.001, min_worlds=2, playouts=2, epsilon=0.2, backend=backend))
    values = agent.evaluate(view)
    assert set(values) == set(view.legal_actions) and agent.last_stats["worlds"] >= 2
    assert view.legal_mask >> agent.act(view) & 1


def test_a_search_whose_total_work_would_run_for_hours_is_refused(tmp_path):
    """Issue 46, goal 4: each count within its bound is not enough; worlds x playouts is capped."""
    import json

    from agents.search_player.player import MAX_WORLDS

    SearchConfig(worlds=MAX_WORLDS, playouts=1)  # the largest single search: accepted
    SearchConfig(worlds=64, playouts=1024)
    with pytest.raises(ConfigError, match="worlds x playouts"):
        SearchConfig(worlds=MAX_WORLDS, playouts=1000)
    with pytest.raises(ConfigError, match="worlds x playouts"):
        SearchConfig(worlds=64, call_worlds=MAX_WORLDS, playouts=2)
    spec = tmp_path / "huge.json"
    spec.write_text(json.dumps({"agent": "search", "params": {"worlds": 65536, "playouts": 1000}}))
    with pytest.raises(AgentSpecError, match="worlds x playouts"):
        make_agent(str(spec))
