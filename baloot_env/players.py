"""The players of the seats a learner does not hold in lockstep games, and how each is asked.

A seat's decision is a ``Seat`` (its hand, seat and match context). A player answers a batch of
them, one call for every game waiting on it (``act_seats``), and is re-seeded with the games
(``reseed``). ``make_player`` turns what a caller gives into one:

- an agent name or path (``"heuristic"``, a bundle folder): made by the agent factory that an
  installed package declares in the entry-point group ``baloot_env.agents``
  (``agents.registry.make_agent``, in ``pyproject.toml``), so that the engine names no layer above it;
- an ``agents.Agent`` (``ViewAgent``: ``act_batch`` on ``PlayerView``s, ``reset``);
- a policy on arrays (``ArrayPolicy``: ``act_arrays(observations, masks)``, a policy bundle): the
  observations are encoded straight from the hands;
- a callable ``f(observations N x OBS_SIZE float32, masks N x 42 int8) -> N actions``;
- an object that is already a ``SeatPlayer``.

The lockstep games (``baloot_env.lockstep``) and their batched core (``baloot_env.lockstep_core``)
both ask players through this module. Needs numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

import numpy as np

from baloot_env.hand import HandState
from baloot_env.match import MatchContext
from baloot_env.observation import action_mask, encode
from baloot_env.view import PlayerView


@runtime_checkable
class SeatPlayer(Protocol):
    """What the lockstep games ask: actions for a batch of seats; a new seed with the games."""

    def act_seats(self, seats: Sequence[Seat]) -> list[int]: ...

    def reseed(self, seed: int) -> None: ...


@runtime_checkable
class ViewAgent(Protocol):
    """An ``agents.Agent`` as the engine sees it: actions for a batch of ``PlayerView``s."""

    def act_batch(self, views: Sequence[PlayerView]) -> Sequence[int]: ...

    def reset(self, seed: int) -> None: ...


@runtime_checkable
class ArrayPolicy(Protocol):
    """A policy on encoded arrays (a policy bundle): observations N x OBS_SIZE, masks N x 42."""

    def act_arrays(self, observations: np.ndarray, masks: np.ndarray) -> Any: ...


class Seat:
    """One decision for another player: what the seat to act may know of it, and no more.

    The lockstep games build it from their hand; a player reads the seat's observation and legal
    mask, encoded straight from the hand (the fast path, equal to the seat's
    ``PlayerView.observation()``, tests/baloot_env/test_barrier.py), or the seat's ``PlayerView``.
    The hand itself, with the other seats' cards, is not offered to players.
    """

    __slots__ = ("_hand", "seat", "context")

    def __init__(self, hand: HandState, seat: int, context: MatchContext) -> None:
        self._hand = hand
        self.seat = seat
        self.context = context

    def observation(self) -> np.ndarray:
        return encode(self._hand, self.seat, self.context)

    def action_mask(self) -> np.ndarray:
        return action_mask(self._hand, self.seat)

    def view(self) -> PlayerView:
        return PlayerView.from_state(self._hand, self.seat, self.context)


def seat_arrays(seats: Sequence[Seat]) -> tuple[np.ndarray, np.ndarray]:
    """The seats' observations (N x OBS_SIZE float32) and legal masks (N x 42 int8), stacked."""
    return np.stack([s.observation() for s in seats]), np.stack([s.action_mask() for s in seats])


class AgentPlayer:
    """An ``agents.Agent`` in a seat: asked through ``act_batch`` on the seats' ``PlayerView``s."""

    def __init__(self, agent: ViewAgent, name: str | None = None):
        self.agent = agent
        self.name = name or getattr(agent, "name", type(agent).__name__)

    def act_seats(self, seats: Sequence[Seat]) -> list[int]:
        return list(self.agent.act_batch([s.view() for s in seats]))

    def reseed(self, seed: int) -> None:
        self.agent.reset(seed)


class ArrayPlayer:
    """A policy on arrays in a seat: ``fn(observations N x OBS_SIZE, masks N x 42) -> N actions``."""

    def __init__(
        self,
        fn: Callable[[np.ndarray, np.ndarray], Any],
        name: str = "policy",
        reseed: Callable[[int], None] | None = None,
    ):
        self.fn = fn
        self.name = name
        self._reseed = reseed

    def act_seats(self, seats: Sequence[Seat]) -> list[int]:
        obs, masks = seat_arrays(seats)
        return [int(a) for a in np.asarray(self.fn(obs, masks)).reshape(-1)]

    def reseed(self, seed: int) -> None:
        if self._reseed is not None:
            self._reseed(seed)


AGENT_FACTORY_GROUP = "baloot_env.agents"  # entry points: callables (spec, seed) -> agent


def agent_factory() -> Callable[[str, int], Any]:
    """The factory that makes agents from names and paths (module docstring).

    Raises:
        TypeError: no installed package declares one (the engine alone takes agents as objects).
    """
    found = entry_points(group=AGENT_FACTORY_GROUP)
    if not found:
        raise TypeError(
            f"an agent name needs an agent factory (entry point group {AGENT_FACTORY_GROUP!r}; "
            "pip install the project); without one, pass agents as objects or callables"
        )
    factory: Callable[[str, int], Any] = sorted(found, key=lambda ep: ep.name)[0].load()
    return factory


def make_player(spec: Any, seed: int = 0) -> SeatPlayer:
    """A player for the non-learner seats from a spec, an ``Agent``, a policy or a callable
    (module docstring). A ``SeatPlayer`` is used as it is.

    Raises:
        agents.AgentSpecError: an unknown agent name or a bad agent file.
        TypeError: anything else.
    """
    if isinstance(spec, SeatPlayer):
        return spec
    if isinstance(spec, str):
        spec = agent_factory()(spec, seed)
    if isinstance(spec, ArrayPolicy):  # a policy bundle: encode from the hands, one forward pass
        return ArrayPlayer(spec.act_arrays, getattr(spec, "name", "policy"), getattr(spec, "reset", None))
    if isinstance(spec, ViewAgent):
        return AgentPlayer(spec)
    if callable(spec):
        return ArrayPlayer(spec, getattr(spec, "__name__", "policy"))
    raise TypeError(
        "a player is an agent name or path, an agents.Agent, a policy with act_arrays, or a callable "
        f"f(observations, masks) -> actions; got {type(spec).__name__}"
    )
