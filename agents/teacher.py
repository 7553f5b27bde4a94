"""Teachers: the agents whose choices label positions, with the values behind them.

``Teacher`` is the contract that labelling relies on (``train.labels``: the warm start, expert
iteration; ``train.teacher_noise``): ``judge(view)`` gives a ``Judgement``, the action and, for
a searched choice, every legal action's value (mean game points of the hand, own team minus the
other, R7) and, where the values come from sampled worlds, their standard errors. ``search``
and ``netsearch`` judge so; any other agent teaches through ``Acting`` (its action, no values).
``make_teacher`` builds one from an agent spec, the network that plays a guided netsearch's
playouts given when it is made (expert iteration's learner guiding the search that teaches it,
``expert.guide``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from agents.base import Agent
from agents.judgement import Judgement
from agents.registry import AgentSpecError, make_agent, resolve_spec
from baloot_env.view import PlayerView


@runtime_checkable
class Teacher(Protocol):
    """An agent that says what it plays and, for a searched choice, what every option is worth."""

    name: str

    def judge(self, view: PlayerView) -> Judgement: ...


class Acting:
    """An agent without values as a teacher: its action, no values (behaviour cloning)."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.name = agent.name

    def judge(self, view: PlayerView) -> Judgement:
        return Judgement(self.agent.act(view))


def guided(spec: str) -> bool:
    """Whether ``spec`` is a netsearch whose playouts a network plays (``leaves: "policy"``), so
    that a learner can guide it; read from the spec alone (no bundle is loaded).

    Raises:
        AgentSpecError: ``spec`` is unknown, or its file missing or corrupt.
    """
    resolved = resolve_spec(spec)
    return bool(resolved["agent"] == "netsearch" and resolved["params"].get("leaves") == "policy")


def make_teacher(spec: str, seed: int, rollout: Agent | None = None) -> Teacher:
    """The teacher of agent spec ``spec`` seeded ``seed``; with ``rollout`` (a policy agent) a
    guided netsearch whose playouts it plays.

    Raises:
        AgentSpecError: as ``make_agent``; a ``rollout`` for a spec that is not ``guided``.
    """
    if rollout is not None and not guided(spec):
        raise AgentSpecError(f"a guided teacher is a netsearch with leaves 'policy', got {spec!r}")
    agent = make_agent(spec, seed, rollout)
    return agent if isinstance(agent, Teacher) else Acting(agent)
