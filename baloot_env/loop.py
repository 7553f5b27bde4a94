"""The one game loop: at each turn the seat to act sees its view and its answer is applied.

``play(table, choose)`` drives a ``driver.Table`` whose episode has begun (``reset``): at each
turn it builds the view of the seat to act (``PlayerView.from_table``), asks ``choose(view)``
for an action, applies it (``Table.apply``: a refused action raises ``IllegalActionError`` and
changes nothing, R9) and yields the ``Turn``. It stops when the episode is over, or before a turn
whose view ``until`` accepts (nothing is chosen or applied at that turn). A caller that stops
iterating stops the game where it is.

``play_hands(table, new_hand, enough)`` plays hand after hand until ``enough()``: the one
position collector's loop, under ``agents.neural.positions`` (positions for distillation and
export checks), ``train.pretrain`` (warm-start labels) and ``train.call_iteration`` (call
decisions). Evaluation (``eval.duplicate``) and the league's timing positions (``eval.league``)
play through ``play`` too.
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


def play_hands(
    table: Table,
    new_hand: Callable[[], Callable[[PlayerView], int]],
    enough: Callable[[], bool],
    until: Callable[[PlayerView], bool] | None = None,
) -> Iterator[Turn]:
    """The turns of hand after hand until ``enough()`` (asked before each hand): ``table.reset()``
    deals the next one, then ``new_hand()`` seats its players and returns its ``choose``, and
    the hand is played as ``play`` plays it (``until``: stop it before the turn whose view it
    accepts). A hand's last turn carries its ``outcome.hand_result``."""
    while not enough():
        table.reset()
        yield from play(table, new_hand(), until)
