"""The ``heuristic`` player's kernels (``agents.rule_based.batch_heuristic``) equal
``HeuristicAgent`` decision for decision.

``run_heuristic_differential`` plays the batched core and the engine side by side on the same
deals and, at every decision, compares the kernel's action with ``HeuristicAgent().act(view)``
on the engine's ``PlayerView`` of the seat to act; some games also make random legal moves to
reach positions the heuristic would not. Every ``RuleConfig`` switch is flipped from its
default, in hand and match episodes, plus random combinations and non-default bars. Whole
games (every seat the kernel on one side, the Python agent on the other) must give the same
hand and match results. The agent is deterministic (``HeuristicAgent.deterministic``: the seed
is never read), so every decision is compared. The kernel sees only what the seat may know:
changing the other seats' hidden cards changes neither its view row nor its action. The full
run (200,000+ decisions, with timings) is ``benchmarks/batch_heuristic.py``.
"""

from __future__ import annotations

import ast
import zlib
from pathlib import Path

import numpy as np
import pytest

from agents.rule_based import batch_heuristic as bh
from agents.rule_based.heuristic import HeuristicAgent, HeuristicConfig
from baloot_env.batch import BatchGame, seed_streams
from baloot_env.batch.state import (
    BALOOT_ANNOUNCED,
    BALOOT_SEAT,
    BIDDING,
    DEAL,
    DEAL_STOCK,
    DEAL_TURNED,
    DONE,
    FIRST_HAND_SIZE,
    HANDS,
    PHASE,
    PROJECT_CARDS,
    PROJECT_KEY,
    PROJECT_KINDS,
    TO_ACT,
)
from baloot_env.batch.variants import variant_id, variants
from baloot_env.batch.view import VIEW_SIZE, seat_view
from baloot_env.cards import NUM_CARDS, NUM_SEATS, cards_of
from baloot_env.rules import RuleConfig

VARIANTS = variants(seed=1616, combos=4)
# Per (variant, episode): 16 variants x 2 episodes x 4,000 = 128,000 decisions compared.
DECISIONS = 4_000


def test_the_agent_is_deterministic():
    """Nothing random to reproduce: the Python agent never reads its seed."""
    assert HeuristicAgent.deterministic


@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("rules", VARIANTS, ids=variant_id)
def test_kernel_equals_agent_every_switch(rules: RuleConfig, episode: str):
    # Matches run to their end only with few games and many steps each.
    games = 16 if episode == "hand" else 2
    stats = bh.run_heuristic_differential(rules, episode, games, DECISIONS, seed=zlib.crc32(variant_id(rules).encode()))
    assert stats.decisions >= DECISIONS
    assert stats.choices > stats.decisions // 2  # most decisions had a real choice
    assert stats.bids and stats.cards and stats.hands
    if rules.doubling:
        assert stats.doubles
    if episode == "match":
        assert stats.matches >= 1


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_whole_games_kernel_vs_agent(episode: str):
    """Every seat played by the kernel on the core and by ``HeuristicAgent`` on the engine: the
    same decisions, hand results (R11.4), match books and results (R11.5)."""
    for i, rules in enumerate((RuleConfig(), RuleConfig(sun_double=True, baloot_kept=True), VARIANTS[-1])):
        games = 8 if episode == "hand" else 2
        stats = bh.run_heuristic_differential(rules, episode, games, 4_000, seed=70 + i, explore=(0.0,))
        assert stats.heuristic_moves == stats.decisions
        assert stats.hands >= 50
        if episode == "match":
            assert stats.matches >= 2


def test_non_default_bars():
    """The bars are kernel arguments: odd values (not multiples of 0.5) and bars low enough
    that every raise is said (R4.1) give the agent's decisions too."""
    configs = (
        HeuristicConfig(hokum_bar=6.3, sun_bar=7.1, sun_over_partner=9.7, dealer_discount=0.7),
        HeuristicConfig(double_bar=5.0, three_bar=6.0, four_bar=6.5, gahwa_bar=8.0, sun_bar=5.5),
        HeuristicConfig.from_dict({"hokum_bar": 9, "sun_bar": 10, "dealer_discount": 2}),
    )
    rules = RuleConfig(sun_double=True)
    for i, cfg in enumerate(configs):
        for episode in ("hand", "match"):
            stats = bh.run_heuristic_differential(rules, episode, 8, 1_500, seed=30 + i, config=cfg)
            assert stats.decisions >= 1_500


def test_heuristic_steps_equals_actions_and_step():
    """The all-heuristic stepping kernel plays exactly the actions ``heuristic_actions_all``
    chooses (so its games are the ones the differential compares with the agent)."""
    for episode in ("hand", "match"):
        a = BatchGame(32, RuleConfig(sun_double=True), episode, seed=5)
        b = BatchGame(32, RuleConfig(sun_double=True), episode, seed=5)
        bars = bh.heuristic_bars()
        acts = np.zeros(32, dtype=np.int64)
        total = 0
        for _ in range(300):
            st, res = a.state, a.results
            d, _ = bh.heuristic_steps(st.games, st.rng, st.queue, res.table, res.reward, a.switches, a.payoff, bars, 1)
            bh.heuristic_actions_all(b.state.games, bars, acts)
            b.step(acts)
            total += d
            assert np.array_equal(a.state.games, b.state.games)
            assert np.array_equal(a.results.table, b.results.table)
            assert np.array_equal(a.results.reward, b.results.reward)
        assert total == 300 * 32


def test_act_on_chosen_games_and_finished_ones():
    """``act(games, idx=...)`` answers for the chosen games in their order; a game whose hand is
    over (no automatic reset) gets -1."""
    game = BatchGame(12, RuleConfig(), "hand", seed=9, auto_reset=False)
    rng = seed_streams(3, 12)
    games = game.state.games
    while not (games[:, PHASE] == DONE).any():
        game.random_steps(1, rng)
    assert (games[:, PHASE] != DONE).any()
    every = bh.act(games)
    idx = np.array([7, 2, 2, 11, 0])
    assert np.array_equal(bh.act(games, idx=idx), every[idx])
    assert np.array_equal(every == -1, games[:, PHASE] == DONE)


def _hide_differently(row: np.ndarray, rng: np.random.Generator) -> None:
    """Redeal game ``row``'s hidden cards: the other seats' hands (same sizes) and, during the
    calling, the stock; scramble the deal's hidden cells and the other seats' private projects.
    Only what the seat to act may not know changes."""
    seat = int(row[TO_ACT])
    others = [r for r in range(NUM_SEATS) if r != seat]
    stock_cells = list(range(DEAL + DEAL_STOCK, DEAL + NUM_CARDS)) if row[PHASE] == BIDDING else []
    hidden = [c for r in others for c in cards_of(int(row[HANDS + r]))] + [int(row[i]) for i in stock_cells]
    rng.shuffle(hidden)
    k = 0
    for r in others:
        n = int(row[HANDS + r]).bit_count()
        row[HANDS + r] = sum(1 << c for c in hidden[k : k + n])
        k += n
    for i in stock_cells:
        row[i] = hidden[k]
        k += 1
    own_first = range(DEAL + FIRST_HAND_SIZE * seat, DEAL + FIRST_HAND_SIZE * (seat + 1))
    cells = [i for i in range(DEAL, DEAL + NUM_CARDS) if i not in own_first and i != DEAL + DEAL_TURNED]
    if row[PHASE] != BIDDING:
        row[cells] = row[rng.permutation(cells)]  # the first hands of others and the dealt stock
    for r in others:  # their projects (public only from their first card, and unread by the player)
        row[PROJECT_CARDS + r] = int(rng.integers(1 << 31))
        row[PROJECT_KINDS + 2 * r : PROJECT_KINDS + 2 * r + 2] = rng.integers(-1, 4, size=2)
        row[PROJECT_KEY + r] = int(rng.integers(100))
    if not row[BALOOT_ANNOUNCED] and row[BALOOT_SEAT] != seat:
        row[BALOOT_SEAT] = rng.choice([-1, *others])


def test_hidden_cards_do_not_change_the_action():
    """Two states that differ only in what the seat to act may not know (the other seats' cards,
    the stock, their undeclared projects and baloot) give the same view row and the same action
    (the same information as its ``PlayerView``)."""
    rng = np.random.default_rng(11)
    game = BatchGame(64, RuleConfig(sun_double=True), "match", seed=12)
    play_rng = seed_streams(13, 64)
    v1 = np.zeros(VIEW_SIZE, dtype=np.int64)
    v2 = np.zeros(VIEW_SIZE, dtype=np.int64)
    compared = changed = 0
    for step in range(120):
        games = game.state.games
        want = bh.act(games)
        for _ in range(3):
            other = games.copy()
            for g in range(games.shape[0]):
                _hide_differently(other[g], rng)
            changed += int((other[:, HANDS : HANDS + NUM_SEATS] != games[:, HANDS : HANDS + NUM_SEATS]).any(1).sum())
            assert np.array_equal(bh.act(other), want)
            for g in range(0, games.shape[0], 8):
                seat_view(games, g, v1)
                seat_view(other, g, v2)
                assert np.array_equal(v1, v2)
            compared += games.shape[0]
        if step % 2:
            game.step(want)
        else:
            game.random_steps(1, play_rng)
    assert compared == 120 * 3 * 64
    assert changed > compared * 0.9  # the other hands did change (only a last trick leaves nothing to redeal)


def test_only_seat_view_reads_the_state():
    """Structurally: the deciding kernels take the view row, never ``games``; the functions with
    the state as a parameter are the batched drivers around ``decide``, and the modules that
    decide read no state column: the core's ``seat_view`` copies the row they read."""
    trees = [ast.parse(path.read_text()) for path in Path(bh.__file__).parent.glob("*.py")]  # the package's modules
    readers = {
        node.name
        for tree in trees
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.args.args and node.args.args[0].arg in ("s", "games")
    }
    deciding = ("bidding.py", "play.py", "tables.py")
    for path in Path(bh.__file__).parent.glob("*.py"):
        if path.name in deciding:
            assert "baloot_env.batch.state" not in path.read_text(), path.name
    assert readers == {
        "heuristic_action",
        "heuristic_actions",
        "heuristic_actions_all",
        "heuristic_steps",
        "act",
    }
