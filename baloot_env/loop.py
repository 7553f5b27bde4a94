"""The one game loop: at each turn the seat to act sees its view and its answer is applied.

``play(table, choose)`` drives a ``driver.Table`` whose episode has begun (``reset``): at each
turn it builds the view of the seat to act (``PlayerView.from_table``), asks ``choose(view)``
for an action, applies it (``Table.apply``: a refused action raises ``IllegalActionError`` and
changes nothing, R9) and yields the ``Turn``. It stops when the episode is over, or before a turn
whose view ``until`` accepts (nothing is chosen or applied at that turn). A caller that stops
iterating stops the game where it is.

Evaluation (``eval.duplicate``), position collection (``agents.neural.positions``), warm-start
labelling (``train.pretrain``), the call step (``train.call_iteration``) and the league's timing
positions (``eval.league``) all play through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from baloot_env.driver import Outcome, Table
from baloot_env.view import PlayerView


@dataclass(frozen=True)
class Turn:
    """One turn: the view the seat to act saw, the action it chose, what the action did."""

    view: PlayerView
    action: int
    outcome: Outcome


def play(
    table: Table,
    choose: Callable[[PlayerView], int],
    until: Callable[[PlayerView], bool] | None = None,
) -> Iterator[Turn]:
    """The turns of ``table``'s episode from where it stands (module docstring).

    Args:
        table: a driver ``Table`` after ``reset``.
        choose: the action of the seat to act, given its view (every seat's, in turn).
        until: stop before the turn whose view it accepts (None: play to the episode's end).

    Raises:
        IllegalActionError: ``choose`` gave an action the rules refuse; the table is unchanged
            and ``table.to_act`` is the seat that chose it.
    """
    while not table.over:
        view = PlayerView.from_table(table, table.to_act)
        if until is not None and until(view):
            return
        action = choose(view)
        yield Turn(view, action, table.apply(action))
