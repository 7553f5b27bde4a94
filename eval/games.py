"""Played games as data: a stored hand replayed through the engine, decision by decision.

A stored hand is a row of the hands database (``baloot_io.hands_db``: its deal, rules, the match
score before it, every action as ``[seat, action, seconds into the hand, by]``, its result and
``meta``) in its JSON form. ``python -m table export`` writes the finished hands of a table as a
deal set (``eval.deals``) with their ``games`` beside the deals, in that form, so that

- ``python -m eval --deal-set FILE`` plays the people's deals between any two agents,
- the replays (``table.replay``) and the leaderboard read the games, and
- the imitation loop (``train.pretrain``, ``pretrain.games``) learns from the people's choices:
  ``decisions`` replays a game and gives each action with the view of the seat that took it.

Replaying goes through ``HandState``, so the rules are the only authority: a game whose actions
the rules refuse is not a game, and ``load_games`` refuses the whole file (one line) before any
work starts. ``by`` says who made a move: ``person``, ``timeout`` (the club's clock, R10.2),
``standin`` (a bot on a person's seat) or ``bot``; only a person's own moves are theirs.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baloot_env.deal import parse_deal
from baloot_env.errors import BalootError
from baloot_env.hand import HandState
from baloot_env.match import MatchContext
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView
from baloot_io.reading import InputFileError, MiB, parse_json, read_text_checked
from eval.deals import DealSet, DealSetError, from_json

PERSON = "person"  # ``by`` of a move a person made (not a time-out, a stand-in or a bot)
GAMES_FILE_LIMIT = 512 * MiB  # an export of about half a million hands


class GamesError(ValueError):
    """A games file that is not one, or a game that does not replay."""


def humans_of(hand: dict[str, Any]) -> list[int]:
    """The seats people played (from the room's seats at the time; none for eval hands)."""
    seats = (hand.get("meta") or {}).get("seats") or []
    return [i for i, s in enumerate(seats) if isinstance(s, dict) and s.get("kind") == PERSON]


def start_of(hand: dict[str, Any]) -> tuple[HandState, MatchContext]:
    """A stored hand before its first action, and the match around it as every seat knew it
    (``meta.context``; a hand stored without it: its match score only).

    Raises:
        ValueError, TypeError, KeyError: a stored hand whose fields are not a hand's.
    """
    rules = RuleConfig.from_dict(hand["rules"])
    score = (int(hand["match_score"][0]), int(hand["match_score"][1]))
    saved = (hand.get("meta") or {}).get("context")
    context = MatchContext(**{**saved, "score": score}) if saved else MatchContext(score=score)
    return HandState(parse_deal(hand["deal"]), rules, score), context


@dataclass(frozen=True)
class Decision:
    """One action of a replayed hand: the acting seat's view just before it, the four holdings
    then (for a privileged critic, training only), the action and who made it (``by``)."""

    view: PlayerView
    hands: tuple[int, ...]
    action: int
    by: str


def decisions(hand: dict[str, Any]) -> tuple[list[Decision], HandResult]:
    """Every action of a stored hand with what its seat saw, and the hand's result (R11.4).

    Raises:
        GamesError: the hand's fields are not a hand's, an action is by a seat not to act or
            refused by the rules, or the hand does not end with its last action.
    """
    try:
        state, context = start_of(hand)
        out = []
        for i, (seat, action, _t, by) in enumerate(hand["actions"]):
            if seat != state.to_act:
                raise GamesError(f"action {i} is by seat {seat}, but seat {state.to_act} was to act")
            view = PlayerView.from_state(state, seat, context)
            out.append(Decision(view, tuple(state.hands), int(action), str(by)))
            state.apply(action)
    except GamesError:
        raise
    except (BalootError, ValueError, TypeError, KeyError, IndexError) as e:
        raise GamesError(f"not a replayable hand: {type(e).__name__}: {e}") from None
    if state.result is None:
        raise GamesError(f"the hand is not over after its {len(out)} actions")
    return out, state.result


@dataclass(frozen=True)
class Games:
    """An exported games file: its deal set and, in the same order, the stored hands."""

    deal_set: DealSet
    games: tuple[dict[str, Any], ...]

    def __len__(self) -> int:
        return len(self.games)


def load_games(path: str | os.PathLike[str]) -> Games:
    """Read an exported games file (``python -m table export``) and check that every game is its
    deal's and replays to its end (``decisions``).

    Raises:
        GamesError: not a regular file, too big, not JSON, not a deal set, no ``games`` or one per
            deal, or a game that does not replay (which one, and why).
    """
    where = str(path)
    try:
        data = parse_json(read_text_checked(path, "games file", GAMES_FILE_LIMIT), f"games file {where!r}")
        deal_set = from_json(data, where, Path(path).name.removesuffix(".json"))
    except (InputFileError, DealSetError) as e:
        raise GamesError(str(e)) from None
    except json.JSONDecodeError as e:
        raise GamesError(f"games file {where!r} is not JSON: {e}") from None
    games = data.get("games")
    if not isinstance(games, list) or len(games) != len(deal_set) or not games:
        raise GamesError(
            f"games file {where!r} has no games beside its {len(deal_set)} deals (write one with python -m table export)"
        )
    for i, (game, deal) in enumerate(zip(games, deal_set.deals, strict=True)):
        if not isinstance(game, dict) or game.get("deal") != deal.to_dict():
            raise GamesError(f"games file {where!r}: game {i} is not the hand of deal {i}")
        try:
            decisions(game)
        except GamesError as e:
            raise GamesError(f"games file {where!r}: game {i}: {e}") from None
    return Games(deal_set, tuple(games))
