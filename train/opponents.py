"""The opponent pool of self-play: snapshots of the learner, champions, ``heuristic``, ``random``.

Each game draws its opponent team when it starts (``train.selfplay``), by the mixing weights of
the config; a category with no member yet (no champion before the first promotion) drops out and
the others are renormalised. Opponents act in batches across games (the rule agents through
``act_seats``, the vector env's player interface, ``baloot_env.lockstep``); the pool's networks of one architecture act
together, all their games in one stacked pass (``OpponentPool.act_nets``,
``agents.neural.network.StackedNets``), which the vector env asks for through its
``array_group``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.neural.network import BalootNet, NetSpec, StackedNets
from agents.neural.policy import sample_masked
from agents.registry import make_agent
from baloot_env.players import AgentPlayer, Seat
from train.config import OpponentConfig

__all__ = ["CATEGORIES", "AgentOpponent", "NetOpponent", "OpponentPool", "Seat"]

CATEGORIES = ("self", "champion", "heuristic", "random")


def category_weights(weights: Sequence[float], present: Sequence[bool]) -> list[float]:
    """The mixing weights of ``CATEGORIES`` with the empty ones dropped (``present``); when none
    is left (only "self" weighted and no snapshot yet), ``random`` alone. Both backends draw
    their opponents by these (``OpponentPool.sample``, in the RLlib backend inside its EnvRunners)."""
    out = [float(w) if here else 0.0 for w, here in zip(weights, present, strict=True)]
    if sum(out) <= 0:
        out[CATEGORIES.index("random")] = 1.0
    return out


class NetOpponent:
    """A frozen copy of a network in the pool. It acts through its pool, with the pool's other
    networks of its architecture in one stacked pass (``OpponentPool.act_nets``, asked by
    self-play's vector env through ``array_group``)."""

    def __init__(self, name: str, category: str, spec: NetSpec, state_dict: dict[str, Any]):
        self.name, self.category = name, category
        self.net = BalootNet(spec)
        self.net.load_state_dict(state_dict)
        self.net.eval()


class AgentOpponent(AgentPlayer):
    """A rule agent (``heuristic`` or ``random``) acting on ``PlayerView``s (the vector env's
    ``AgentPlayer``, with its pool category)."""

    def __init__(self, name: str, seed: int):
        agent = make_agent(name, seed)
        super().__init__(agent, name)
        self.agent: Agent = agent  # a rule agent: its ``rng`` is saved with the pool
        self.category = name


class OpponentPool:
    """Snapshots (most recent ``pool_size``), champions, and the two rule agents. ``precision``
    ("fp32" or "bf16", resolved: ``train.hardware``): the number format of the networks' stacked
    pass, the run's ``ppo.precision``."""

    def __init__(self, cfg: OpponentConfig, spec: NetSpec, seed: int, precision: str = "fp32"):
        self.cfg = cfg
        self.spec = spec
        self.dtype = torch.bfloat16 if precision == "bf16" else torch.float32  # of the stacked pass (resolved)
        self.rng = np.random.default_rng(seed)
        self.snapshots: deque[NetOpponent] = deque(maxlen=cfg.pool_size)
        self.champions: list[NetOpponent] = []
        self.rule_agents = {
            "heuristic": AgentOpponent("heuristic", seed + 1),
            "random": AgentOpponent("random", seed + 2),
        }
        self._stacks: dict[NetSpec, tuple[tuple[int, ...], StackedNets]] = {}  # spec -> (its nets' ids, their stack)

    def nets(self, spec: NetSpec) -> list[NetOpponent]:
        """The pool's networks of architecture ``spec``: the snapshots, then the champions."""
        return [o for o in (*self.snapshots, *self.champions) if o.net.spec == spec]

    def act_nets(self, obs: np.ndarray, masks: np.ndarray, members: Sequence[NetOpponent]) -> list[int]:
        """The actions of the networks ``members`` (one architecture, one a row) on their rows:
        one stacked pass (``StackedNets`` over the pool's networks of that architecture and any
        member that has left the pool while its game goes on; rebuilt when that set changes),
        then one sample a row from the pool's generator, in row order."""
        spec = members[0].net.spec
        nets = self.nets(spec)
        index = {id(o): k for k, o in enumerate(nets)}
        for o in members:
            if id(o) not in index:  # a snapshot pushed out of the pool, its game not over yet
                index[id(o)] = len(nets)
                nets.append(o)
        ids = tuple(id(o) for o in nets)
        held = self._stacks.get(spec)
        if held is None or held[0] != ids:
            held = self._stacks[spec] = (ids, StackedNets([o.net for o in nets], self.dtype))
        which = torch.tensor([index[id(o)] for o in members], dtype=torch.long)
        logits = held[1].policy_logits(torch.from_numpy(obs), torch.from_numpy(masks), which)
        probs = torch.softmax(logits, dim=-1).numpy().astype(np.float64)
        probs *= masks  # exactly zero on illegal actions
        return sample_masked(probs, self.rng)

    def add_snapshot(self, name: str, state_dict: dict[str, Any]) -> None:
        sd = {k: v.detach().clone() for k, v in state_dict.items()}
        self.snapshots.append(NetOpponent(name, "self", self.spec, sd))

    def add_champion(self, name: str, state_dict: dict[str, Any], spec: NetSpec | None = None) -> None:
        sd = {k: v.detach().clone() for k, v in state_dict.items()}
        self.champions.append(NetOpponent(name, "champion", spec or self.spec, sd))

    def sample(self) -> NetOpponent | AgentOpponent:
        """Draw an opponent team for a new game by the config's weights."""
        c = self.cfg
        members: dict[str, list[NetOpponent | AgentOpponent]] = {
            "self": [*self.snapshots],
            "champion": [*self.champions],
            "heuristic": [self.rule_agents["heuristic"]],
            "random": [self.rule_agents["random"]],
        }
        weights = np.array(
            category_weights(
                (c.self_weight, c.champion_weight, c.heuristic_weight, c.random_weight),
                [bool(members[cat]) for cat in CATEGORIES],
            ),
            dtype=np.float64,
        )
        cat = CATEGORIES[int(self.rng.choice(4, p=weights / weights.sum()))]
        group = members[cat]
        return group[int(self.rng.integers(len(group)))]

    def reseed(self, seed: int) -> None:
        """Draws and rule agents from ``seed`` again, as a new pool of that seed; members kept."""
        self.rng = np.random.default_rng(seed)
        for offset, agent in enumerate(self.rule_agents.values(), start=1):  # heuristic seed+1, random seed+2
            agent.agent.reset(seed + offset)

    # ------------------------------------------------------------------ checkpoints
    def members(self) -> dict[str, Any]:
        """The snapshots and champions (names, specs, weights), without the generators: what
        another process's pool needs to draw from the same members (``load_members``)."""
        return {
            "snapshots": [(o.name, o.net.state_dict()) for o in self.snapshots],
            "champions": [(o.name, o.net.spec.to_dict(), o.net.state_dict()) for o in self.champions],
        }

    def load_members(self, data: dict[str, Any]) -> None:
        """Replace the snapshots and champions by ``members()``'s; the generators are untouched."""
        self.snapshots.clear()
        for name, sd in data["snapshots"]:
            self.add_snapshot(name, sd)
        self.champions = []
        for name, spec, sd in data["champions"]:
            self.add_champion(name, sd, NetSpec.from_dict(spec))

    def state(self) -> dict[str, Any]:
        return {
            **self.members(),
            "rng": self.rng.bit_generator.state,
            "rule_rngs": {k: a.agent.rng.getstate() for k, a in self.rule_agents.items()},
        }

    def load_state(self, data: dict[str, Any]) -> None:
        self.rng.bit_generator.state = data["rng"]
        self.load_members(data)
        for k, st in data["rule_rngs"].items():
            self.rule_agents[k].agent.rng.setstate(st)
