"""The ``heuristic`` player as numba kernels over the batched core's state.

The readable player (``agents.rule_based.heuristic``, ``card_play``) is the reference; these
kernels choose, for a game of the batched core (``baloot_env.batch``), the action that
``HeuristicAgent(config=config).act(view)`` chooses for the view of the seat to act, bid for
bid, double for double, card for card (``tests/agents/test_batch_heuristic.py``,
``benchmarks/batch_heuristic.py``). The agent is deterministic (its seed is never read), so
there is no random tie-break to reproduce: every tie is broken as Python's ``min``/``max``
break them, by the first card in ascending id order, and the one float comparison of card play
(the lead cost, ``0.2 * length``) is computed with the same operations in the same order.

What the seat may know (``baloot_env.view.PlayerView``). A decision is taken in two steps:

1. the core's ``baloot_env.batch.view.seat_view(games, g, v)`` copies out of game g's row, into
   the int64 row ``v`` (``VIEW_SIZE`` columns, ``VIEW_FIELDS``), what the seat to act may know:
   its own cards, the public calling, contract, play and trick, and its legal actions; no other
   seat's cards, no stock, no hidden project.
2. ``decide(v, bars)`` chooses from ``v`` alone; it never sees ``games``.

The view row is this player's subset of the ``PlayerView`` (projects, the baloot and the
scores are public there but the player ignores them). Two states that differ only in the
other seats' hidden cards give the same view row and the same action (tested).

API (every kernel nopython, cached on disk; ``bars`` is ``heuristic_bars(config)``, float64[8]):

- ``heuristic_actions(games, bars, idx, actions)``: ``actions[i]`` for game ``idx[i]``; -1 for
  a game whose hand is over. ``act(games, config, idx)`` is its Python face.
- ``heuristic_actions_all(games, bars, actions)``: every game.
- ``heuristic_action(games, g, bars, v)``: one game, for other kernels (``v`` a scratch row).
- ``heuristic_steps(...)``: like ``core.random_steps``, every seat played by the heuristic.
- ``decide``, ``card_action``: the second step, for kernels that take a view row of their own
  (a search playout's world, say).

Modules, by job: ``jit`` (the cache guard, imported first), ``tables`` (the engine's tables,
the bars), ``bidding`` (R3, R4), ``play`` (R5), ``batched`` (``decide`` and the batched kernels),
``differential`` (the check against the Python agent).
"""

from __future__ import annotations

from agents.rule_based.batch_heuristic.batched import (
    act,
    decide,
    heuristic_action,
    heuristic_actions,
    heuristic_actions_all,
    heuristic_steps,
)
from agents.rule_based.batch_heuristic.differential import run_heuristic_differential
from agents.rule_based.batch_heuristic.play import card_action
from agents.rule_based.batch_heuristic.tables import BARS, heuristic_bars

__all__ = [
    "BARS",
    "act",
    "card_action",
    "decide",
    "heuristic_action",
    "heuristic_actions",
    "heuristic_actions_all",
    "heuristic_bars",
    "heuristic_steps",
    "run_heuristic_differential",
]
