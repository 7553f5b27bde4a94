"""The lockstep on the batched core: ``backend="core"`` against ``backend="python"``.

The Python backend (one driver ``Table`` a game) is the reference. With the same seed (or the
same given deals) and the same learner actions, the core backend must give identical
observations, masks, rewards, dones and infos (terminal observations, ``episode``, summaries,
hand and match results), and its games rebuilt in the engine's form (``HandState``, every field)
must equal the Python backend's at every step: every kind of other player (``random``,
``heuristic`` as kernels, policies on arrays, a bundle, any other agent on views), team and seat
learners, hand and match episodes, every reward mode, rule variants, privileged observations;
self-play with networks in the pool; checkpoints crossing between the backends.
"""

from __future__ import annotations

import io
import re
from typing import Any

import numpy as np
import pytest
import torch

from agents import HeuristicAgent, RandomAgent
from baloot_env import BalootError, DealSource, IllegalActionError, RuleConfig, random_deal
from baloot_env.vector import BalootVecEnv


class PickyHeuristic(HeuristicAgent):
    """The heuristic through the generic path (an agent on ``PlayerView``s), not its kernels."""


def _first_legal(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.array([np.flatnonzero(m)[0] for m in masks])


def _by_sight(obs: np.ndarray, masks: np.ndarray) -> list[int]:
    """A policy on arrays whose choice depends on what it sees."""
    out = []
    for o, m in zip(obs, masks, strict=True):
        legal = np.flatnonzero(m)
        out.append(int(legal[int(o.sum() * 7919) % len(legal)]))
    return out


def _plain(x: Any) -> Any:
    """Infos as comparable plain data (arrays by value)."""
    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def _same_games(core: Any, python: Any, steps: int, seed: int = 0, hands: bool = True) -> int:
    """Step both envs with the same random legal learner actions and compare everything; returns
    the number of episodes that ended."""
    assert np.array_equal(core.reset(), python.reset())
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        mc, mp = core.action_masks(), python.action_masks()
        assert np.array_equal(mc, mp) and mc.dtype == mp.dtype == bool
        if hands:  # the core's games in the engine's form, every field (HandState.__eq__)
            for gc, gp in zip(core.games, python.games, strict=True):
                assert gc.hand == gp.hand
                assert gc.table.context == gp.table.context
                assert (gc.learner_team, gc.learner_seat) == (gp.learner_team, gp.learner_seat)
                assert core._players.index(gc.opponent) == python._players.index(gp.opponent)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mc])
        oc, rc, dc, ic = core.step(actions)
        op, rp, dp, ip = python.step(actions)
        assert np.array_equal(oc, op) and oc.dtype == op.dtype
        assert np.array_equal(rc, rp) and rc.dtype == rp.dtype
        assert np.array_equal(dc, dp)
        assert _plain(ic) == _plain(ip)
        ended += int(dc.sum())
    assert core.decisions == python.decisions
    assert _plain(list(core.finished)) == _plain(list(python.finished))
    return ended


@pytest.mark.parametrize(
    ("opponents", "kwargs"),
    [
        ("random", {"learner": "team", "seed": 0}),
        ("heuristic", {"learner": "team", "seed": 1}),
        ("heuristic", {"learner": "seat", "seed": 2, "privileged": True}),
        ("heuristic", {"learner": "seat", "episode": "match", "reward": "win", "seed": 3}),
        (
            "random",
            {
                "learner": "team",
                "episode": "match",
                "seed": 4,
                "rules": RuleConfig(match="hands", hands=5, sun_double=True, four_aces_hokum="hundred"),
            },
        ),
        (
            "heuristic",
            {
                "learner": "team",
                "reward": "points",
                "seed": 5,
                "rules": RuleConfig(projects=False, doubling=False, deal_rotation="right"),
            },
        ),
        (
            ["heuristic", "random", "policies/champion", "heuristic", "random", "policies/champion"],
            {"learner": "seat", "position": 1, "seed": 6},
        ),
    ],
)
def test_the_core_backend_plays_the_python_backends_games(opponents, kwargs):
    core = BalootVecEnv(6, opponents=opponents, backend="core", **kwargs)
    python = BalootVecEnv(6, opponents=opponents, backend="python", **kwargs)
    assert _same_games(core, python, 160, seed=kwargs["seed"]) >= 6


def test_every_kind_of_player_on_both_backends():
    """Policies on arrays (one call per round with the observation block of its games), an agent
    on views (here a heuristic that the kernels do not recognise), a partner of its own."""
    calls: dict[str, list[int]] = {"core": [], "python": []}

    def counting(backend: str) -> Any:
        def policy(obs: np.ndarray, masks: np.ndarray) -> list[int]:
            calls[backend].append(len(obs))
            return _by_sight(obs, masks)

        return policy

    for opponents, partner in ((_first_legal, _by_sight), (PickyHeuristic(), None)):
        kw = {"learner": "seat", "seed": 7, "partner": partner}
        core = BalootVecEnv(8, opponents=opponents, backend="core", **kw)
        python = BalootVecEnv(8, opponents=opponents, backend="python", **kw)
        _same_games(core, python, 100, seed=7)
    core = BalootVecEnv(8, opponents=counting("core"), seed=8, backend="core")
    python = BalootVecEnv(8, opponents=counting("python"), seed=8, backend="python")
    _same_games(core, python, 60, seed=8, hands=False)
    assert calls["core"] == calls["python"] and max(calls["core"]) > 1  # the same batches


@pytest.mark.parametrize("agent", [HeuristicAgent(), RandomAgent(3)], ids=["heuristic", "random"])
def test_an_agent_with_a_twin_of_its_own_class_plays_through_it(agent, monkeypatch):
    """``core_actions`` defined by the agent's class: the core never builds it a view; a subclass
    (``PickyHeuristic``) inherits no twin and is asked on views."""

    def no_views(self, views):
        raise AssertionError("asked on views although it has a batched twin")

    monkeypatch.setattr(type(agent), "act_batch", no_views)
    venv = BalootVecEnv(4, opponents=agent, seed=2, backend="core")
    venv.reset()
    for _ in range(40):
        venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))
    picky = PickyHeuristic()
    asked = []
    monkeypatch.setattr(
        PickyHeuristic,
        "act_batch",
        lambda self, views: asked.append(len(views)) or [HeuristicAgent.act(self, v) for v in views],
    )
    venv = BalootVecEnv(4, opponents=picky, seed=2, backend="core")
    venv.reset()
    venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))
    assert asked


def test_given_deals_are_played_in_order_and_running_out_ends_alike():
    """Deals given as a list (R11.2), the dealer rotating over them in a match (R2.1); when the
    list runs out in the middle of a match both backends end the episode there and refuse to
    start another."""
    rng = np.random.default_rng(11)
    deals = [random_deal(rng) for _ in range(4)]
    envs = [BalootVecEnv(1, opponents="heuristic", episode="match", seed=11, backend=b) for b in ("core", "python")]
    for e in envs:
        e.games[0].table.deals = DealSource(deals=deals, dealers="rotate")
    core, python = envs
    assert np.array_equal(core.reset(), python.reset())
    step = np.random.default_rng(0)
    for _ in range(200):
        actions = np.array([step.choice(np.flatnonzero(core.action_masks()[0]))])
        try:
            out_c = core.step(actions)
        except BalootError as e:
            with pytest.raises(BalootError, match=re.escape(str(e))):
                python.step(actions)
            break
        out_p = python.step(actions)
        assert _plain(out_c) == _plain(out_p)
    else:
        raise AssertionError("four deals did not run out")
    assert [len(e["hands"]) for e in core.finished] == [len(e["hands"]) for e in python.finished]
    assert sum(len(e["hands"]) for e in core.finished) == len(deals)  # every given deal, then the end


def test_an_illegal_action_moves_no_game_and_says_what_the_engine_says():
    core = BalootVecEnv(4, opponents="heuristic", seed=3, backend="core")
    core.reset()
    before = [g.hand for g in core.games]
    masks = core.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    actions[2] = np.flatnonzero(~masks[2])[0]
    with pytest.raises(IllegalActionError) as caught:
        core.step(actions)
    with pytest.raises(IllegalActionError) as engine:
        before[2].verify(int(actions[2]))
    assert str(caught.value) == str(engine.value)
    assert [g.hand for g in core.games] == before  # nothing moved, not even the games before it
    core.step(np.array([np.flatnonzero(m)[0] for m in masks]))  # and the env plays on


def test_a_backend_is_one_of_two_and_the_core_needs_autoreset():
    with pytest.raises(ValueError, match="backend"):
        BalootVecEnv(2, backend="rust")
    from baloot_env.lockstep import LockstepGames

    with pytest.raises(ValueError, match="autoreset"):
        LockstepGames(2, backend="core", autoreset=False)


# ---------------------------------------------------------------------- self-play
def _pool(seed: int) -> Any:
    from agents.neural.network import BalootNet, NetSpec
    from train.config import OpponentConfig
    from train.opponents import OpponentPool

    weights = OpponentConfig(self_weight=0.5, champion_weight=0.1, heuristic_weight=0.3, random_weight=0.1)
    pool = OpponentPool(weights, NetSpec(trunk=(16,), head_hidden=8, value_hidden=(8,)), seed)
    for k in range(3):
        torch.manual_seed(k)
        pool.add_snapshot(f"step_{k}", BalootNet(pool.spec).state_dict())
    pool.add_champion("champ", BalootNet(pool.spec).state_dict())
    return pool


def _selfplay(backend: str, episode: str, seed: int = 0) -> Any:
    from train.config import EnvConfig
    from train.selfplay import SelfPlayVecEnv

    return SelfPlayVecEnv(6, EnvConfig(episode=episode), _pool(seed), seed, privileged=True, backend=backend)


def _steps(venv: Any, rng: np.random.Generator, steps: int) -> list:
    log = []
    for _ in range(steps):
        masks = venv.action_masks()
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = venv.step_wait()
        log.append(_plain((masks, obs, rewards, dones, infos)))
    return log


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_selfplay_backends_agree_and_their_checkpoints_cross_over(episode):
    """Pool networks on observation blocks, heuristic kernels, random on masks: the same games on
    both backends, the same checkpoint (one format), and a checkpoint of either backend resumes
    on the other exactly (through torch.save and a weights_only load)."""
    core, python = _selfplay("core", episode), _selfplay("python", episode)
    assert np.array_equal(core.reset(), python.reset())
    assert _steps(core, np.random.default_rng(1), 150) == _steps(python, np.random.default_rng(1), 150)
    saved = core.state()
    assert _plain(saved) == _plain(python.state())
    drawn = {e["opponent"] for e in core.finished} | {g.opponent.category for g in core.games}
    assert {"self", "heuristic"} <= drawn  # networks of the pool and the heuristic's kernels played
    for source, target in ((core, "python"), (python, "core")):
        buf = io.BytesIO()
        torch.save({"pool": source.pool.state(), "games": source.state()}, buf)
        buf.seek(0)
        data = torch.load(buf, weights_only=True)
        resumed = _selfplay(target, episode, seed=5)  # other seeds: everything comes from the save
        resumed.pool.load_state(data["pool"])
        resumed.load_state(data["games"])
        assert np.array_equal(resumed.reset(), source.observe())
        for g, h in zip(resumed.games, source.games, strict=True):
            assert g.hand == h.hand
        twin = _selfplay(source.backend, episode, seed=5)
        twin.pool.load_state(data["pool"])
        twin.load_state(data["games"])
        twin.reset()
        assert _steps(resumed, np.random.default_rng(2), 120) == _steps(twin, np.random.default_rng(2), 120)
