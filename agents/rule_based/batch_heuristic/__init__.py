"""The ``heuristic`` player as numba kernels over the batched core's state.

The readable player (``agents.rule_based.heuristic``, ``card_play``) is the reference; these
kernels choose, for a game of the batched core (``baloot_env.batch``), the action that
``HeuristicAgent(config=config).act(view)`` chooses for the view of the seat to act, bid for
bid, double for double, card for card (``tests/agents/test_batch_heuristic.py``,
``benchmarks/batch_heuristic.py``). The agent is deterministic (its seed is never read), so
there is no random tie-break to reproduce: every tie is broken as Python's ``min``/``max``
break them, by the first card in ascending id order, and the one float comparison of card play
(the lead cost, ``0.2 * length``) is computed with the same operations in the same order.

What the seat may know (``agents.base.PlayerView``). A decision is taken in two steps:

1. ``seat_view(games, g, v)`` copies out of game g's row, into the int64 row ``v`` (``VIEW_SIZE``
   columns, ``VIEW_FIELDS``), what the seat to act may know and the player reads: its own
   cards, the turned card, the calling so far (round, the round-1 hokum caller, R3), the
   contract (trump, caller), the cards each seat has played, the voids and missing trumps the
   play has shown (R5.2, R5.4), the trick on the table, and its legal actions (from the core's
   ``legal_mask``, which reads only the seat's own cards and public columns). It reads no other
   seat's cards, no stock, no hidden project: ``HANDS`` only at the seat to act.
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
- ``seat_view``, ``decide``, ``card_action``: the two steps, for kernels that build a view
  row of their own (a search playout's world, say).

Modules, by job: ``jit`` (the cache guard, imported first), ``view`` (the view row, the tables,
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
from agents.rule_based.batch_heuristic.bidding import defence_strength, hokum_strength, sun_strength  # noqa: F401
from agents.rule_based.batch_heuristic.differential import HeuristicDiffStats, run_heuristic_differential  # noqa: F401
from agents.rule_based.batch_heuristic.jit import _sources_digest, njit  # noqa: F401  (agents.search_player.jit)
from agents.rule_based.batch_heuristic.play import card_action
from agents.rule_based.batch_heuristic.view import (  # noqa: F401  (the old module's public names)
    B_DEALER_DISCOUNT,
    B_DOUBLE,
    B_FOUR,
    B_GAHWA,
    B_HOKUM,
    B_SUN,
    B_SUN_OVER_PARTNER,
    B_THREE,
    BARS,
    V_BID_ROUND,
    V_CALLER,
    V_DEALER,
    V_HAND,
    V_HOKUM_BIDDER,
    V_LEGAL,
    V_NO_TRUMPS,
    V_PHASE,
    V_PLAYED,
    V_POSSIBLE,
    V_SEAT,
    V_TRICK_CARDS,
    V_TRICK_SIZE,
    V_TRICK_WIN_CARD,
    V_TRICK_WINNER,
    V_TRUMP,
    V_TURNED,
    V_UNSEEN,
    V_VOIDS,
    VIEW_FIELDS,
    VIEW_SIZE,
    heuristic_bars,
    seat_view,
)

__all__ = [
    "BARS",
    "VIEW_FIELDS",
    "VIEW_SIZE",
    "act",
    "card_action",
    "decide",
    "heuristic_action",
    "heuristic_actions",
    "heuristic_actions_all",
    "heuristic_bars",
    "heuristic_steps",
    "run_heuristic_differential",
    "seat_view",
]
