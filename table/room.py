"""One live table: the authoritative game state over ``baloot_env.driver.Table``.

A ``Room`` owns the match (a ``Table`` in "match" episodes, deals drawn from the room's seed),
its seats (a person or an agent on each), the club's clocks (``clocks.ClubClock``, R10) and the
log of the current hand (every action with its time and who made it). Every message from a
client goes through ``Room.handle``, which checks it against the rules before anything changes:
a message for another seat, out of turn, illegal, malformed, from a seat that has left, or
stale is refused with a ``Refused`` naming the reason, and the room is unchanged.

A finished trick stays on the table for ``config.gather`` seconds, its fourth card and winner
shown (``gathering`` in the messages), before the next turn starts: nobody acts meanwhile and no
clock runs. The last trick of a hand is shown so before the next deal (``shown_hand`` is then
the finished hand), and the match's last trick stays.

The room never waits and never runs an agent: it says which seat must be played by itself
and when (``auto_due``, ``next_wakeup``), and the caller (``table.hub``) asks the agent, off the
event loop when it is slow, and hands the answer to ``apply_auto``. Time comes in as ``now``
from the caller's clock. Standard library only (agents are the hub's business).
"""

from __future__ import annotations

import dataclasses
import hmac
import time
from typing import Any, cast

from baloot_env.cards import NUM_SEATS
from baloot_env.driver import Table
from baloot_env.errors import IllegalActionError
from baloot_env.hand import HandState
from baloot_env.scoring import qaid
from table.clocks import BOT, CARD, HUMAN, LEFT, TEMPOS, ClubClock
from table.seating import MAX_NAME, RoomConfig, SeatSpec, SeededDeals, new_token, token_hash
from table.views import turn_kind

ROOM_FORMAT = "baloot-room-1"
MESSAGE_TYPES = ("act", "take_over", "leave", "bye", "ping")
ACT_KEYS = {"type", "action", "seat", "ply"}


class Refused(ValueError):
    """A client message the room does not accept; nothing changed.

    Attributes:
        code: a short reason: ``malformed``, ``not_your_seat``, ``not_your_turn``, ``illegal``,
            ``stale``, ``left``, ``not_started``, ``over``, ``gathering``, ``too_large``,
            ``bad_token``, ``full``, ``not_listed``, ``no_table``.
    """

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class Room:
    """One live table (module docstring).

    Args:
        room_id: the room's id (unguessable: it is part of the invitation link).
        config: seats, rules, tempo, seed, bot speed.
        now: the clock's time at creation.
    """

    def __init__(self, room_id: str, config: RoomConfig, now: float):
        self.id = room_id
        self.config = config
        self.table = Table(config.rules, "match", SeededDeals(config.seed))
        self.club = ClubClock(TEMPOS[config.tempo], [s.kind == "person" for s in config.seats])
        self.tokens: list[str | None] = [None] * NUM_SEATS  # token hashes of the persons' seats
        # per seat, the hash of its invitation's token (None: nobody is invited to it, or it is taken)
        self.invites: list[str | None] = [None] * NUM_SEATS
        self.watch: str | None = None  # hash of the watch token (tables without a person)
        self.names = [s.name for s in config.seats]
        self.ply = 0  # actions applied since the room began: the state's version
        self.hand_log: list[list[Any]] = []  # [seat, action, seconds since the hand began, by]
        self.hand_began = now
        self.hand_began_wall = time.time()
        self.turn_since = now
        self.started = False
        self.finished_hands: list[dict[str, Any]] = []  # hands ended and not yet stored
        self.last_result: dict[str, Any] | None = None
        self.gather_until: float | None = None  # a finished trick lies on the table until then
        self.closing_hand: HandState | None = None  # the finished hand whose last trick lies there

    # ------------------------------------------------------------------ seats and tokens
    @property
    def deals(self) -> SeededDeals:
        """The room's deals: drawn from its seed, counted (``drawn``) so that a restart goes on."""
        return cast(SeededDeals, self.table.deals)

    def issue_token(self, seat: int) -> str:
        """A new token for a person's seat (the old one, if any, stops working)."""
        if self.config.seats[seat].kind != "person":
            raise ValueError(f"seat {seat} is a bot's")
        token = new_token()
        self.tokens[seat] = token_hash(token)
        return token

    def issue_invites(self) -> dict[int, str]:
        """An invitation of its own for every open seat, so that each link seats its own person
        (the partner's link, an opponent's); returns the tokens by seat."""
        tokens: dict[int, str] = {}
        for seat in self.open_seats():
            tokens[seat] = new_token()
            self.invites[seat] = token_hash(tokens[seat])
        return tokens

    def invited_seat(self, invite: object) -> int:
        """The seat an invitation is for. Raises ``Refused``: not an invitation of this table
        (``bad_token``), or its seat is taken (``full``)."""
        matched = False
        if isinstance(invite, str) and invite:
            h = token_hash(invite)
            for seat, want in enumerate(self.invites):
                if want is not None and hmac.compare_digest(want, h):
                    matched = True
                    if self.tokens[seat] is None:
                        return seat
        if matched:  # (a room saved with one invitation for several seats has several)
            raise Refused("full", "the seat of this invitation is taken")
        raise Refused("bad_token", "this invitation does not belong to this table")

    def issue_watch(self) -> str:
        token = new_token()
        self.watch = token_hash(token)
        return token

    def seat_of(self, token: object) -> int:
        """The seat a token belongs to. Raises ``Refused("bad_token")``."""
        if isinstance(token, str) and token:
            h = token_hash(token)
            for seat, t in enumerate(self.tokens):
                if t is not None and hmac.compare_digest(t, h):
                    return seat
        raise Refused("bad_token", "this link does not belong to a seat at this table")

    def is_watch_token(self, token: object) -> bool:
        return isinstance(token, str) and self.watch is not None and hmac.compare_digest(self.watch, token_hash(token))

    def open_seats(self) -> list[int]:
        """Persons' seats nobody has joined yet."""
        return [s for s in self.config.persons if self.tokens[s] is None]

    def invitation(self, invite: object) -> dict[str, Any]:
        """What an invitation's page shows before its person sits down: the seat, who is seated
        already (the host first), the rules and the clock. Raises ``Refused`` as ``invited_seat``."""
        seat = self.invited_seat(invite)
        seated = [s for s in range(NUM_SEATS) if self.tokens[s] is not None]
        return {
            "seat": seat,
            "host": self.names[seated[0]] if seated else None,
            "host_seat": seated[0] if seated else None,
            "names": self.names[:],
            "kinds": [s.kind for s in self.config.seats],
            "rules": self.config.rules.to_dict(),
            "tempo": TEMPOS[self.config.tempo].to_dict(),
        }

    def join(self, invite: object, name: str, now: float) -> tuple[int, str]:
        """Someone with an invitation takes its seat; returns (seat, token).

        Raises:
            Refused: a wrong invitation, or its seat is taken.
        """
        return self._take(self.invited_seat(invite), name, now)

    def sit(self, seat: object, name: str, now: float) -> tuple[int, str]:
        """Someone from the lobby's open tables takes an open seat of a listed table; returns
        (seat, token). Its invitation, if it had one, no longer seats anyone.

        Raises:
            Refused: the table is not listed (``not_listed``), or the seat is not open (``full``).
        """
        if not self.config.listed:
            raise Refused("not_listed", "this table is not in the lobby's open tables")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in self.open_seats():
            raise Refused("full", "that seat is not open")
        return self._take(seat, name, now)

    def _take(self, seat: int, name: str, now: float) -> tuple[int, str]:
        """A person takes open ``seat`` under ``name``; the match starts when no seat is open."""
        name = (name or "").strip()[:MAX_NAME] or self.names[seat]
        self.names[seat] = name
        token = self.issue_token(seat)
        if not self.open_seats():
            self.start(now)
        return seat, token

    # ------------------------------------------------------------------ the game
    @property
    def over(self) -> bool:
        return self.started and self.table.over

    def start(self, now: float) -> None:
        """Deal the first hand (when every person's seat is taken)."""
        if self.started:
            return
        self.started = True
        self.table.reset()
        self._begin_hand(now)
        self._next_turn(now)

    def _begin_hand(self, now: float) -> None:
        self.hand_log = []
        self.hand_began = now
        self.hand_began_wall = time.time()

    def _next_turn(self, now: float) -> None:
        self.turn_since = now
        seat = self.table.to_act
        self.club.start_turn(seat, turn_kind(self.table.hand), now)

    @property
    def shown_hand(self) -> HandState | None:
        """The hand the table shows: the finished one while its last trick lies there, else
        the hand in play."""
        return self.closing_hand if self.closing_hand is not None else self.table.hand

    @property
    def gathering(self) -> bool:
        """A finished trick lies on the table (for ``config.gather`` seconds; the match's last
        trick for good)."""
        return self.gather_until is not None or (self.over and bool(self.table.current_hand.tricks))

    def _match_result(self) -> dict[str, Any] | None:
        match = self.table.match
        return match.result.to_info() if match is not None and match.result is not None else None

    def _apply(self, seat: int, action: int, now: float, by: str) -> None:
        """Apply an action already verified for ``seat``; log it; close a finished hand; leave
        a finished trick on the table for ``config.gather`` seconds."""
        hand = self.table.current_hand
        match_score = list(hand.match_score)
        context = self.table.context  # what every seat knew of the match during the hand
        tricks = len(hand.tricks)
        outcome = self.table.apply(action)
        self.ply += 1
        self.hand_log.append([seat, action, round(now - self.hand_began, 3), by])
        if outcome.hand_result is not None:
            self.last_result = {
                **outcome.hand_result.to_info(),
                "qaid": qaid(outcome.hand_result, self.config.rules, match_score),
            }
            self.finished_hands.append(
                {
                    "room": self.id,
                    "number": self.deals.drawn - (0 if outcome.episode_over else 1),
                    "deal": hand.deal.to_dict(),
                    "rules": self.config.rules.to_dict(),
                    "match_score": match_score,
                    "actions": self.hand_log,
                    "result": self.last_result,
                    "started": self.hand_began_wall,
                    "finished": time.time(),
                    "meta": {
                        "names": self.names[:],
                        "seats": [s.to_dict() for s in self.config.seats],
                        "gather": self.config.gather,
                        "context": dataclasses.asdict(context),
                        # the match's result on its last hand (winner, score, reason: R8)
                        "match_result": self._match_result(),
                    },
                }
            )
            self._begin_hand(now)
        if len(hand.tricks) > tricks and self.config.gather > 0 and not self.table.over:
            self.gather_until = now + self.config.gather
            self.closing_hand = hand if outcome.hand_result is not None else None
            self.turn_since = now
            self.club.start_turn(-1, CARD, now)  # no clock runs while the trick lies there
        else:
            self._next_turn(now)

    def handle(self, seat: int, message: object, now: float) -> str:
        """Apply one client message from ``seat``'s connection; returns what it did.

        Returns:
            "acted", "took_over", "left", "bye" or "pong".

        Raises:
            Refused: the message is malformed, for another seat, out of turn, illegal, stale,
                from a seat that has left, or the game has not started or is over. Nothing changed.
        """
        if not isinstance(message, dict):
            raise Refused("malformed", "a message is a JSON object with a 'type'")
        kind = message.get("type")
        if kind not in MESSAGE_TYPES:
            raise Refused("malformed", f"unknown message type {kind!r}; known: {list(MESSAGE_TYPES)}")
        if "seat" in message and message["seat"] != seat:
            raise Refused(
                "not_your_seat", f"this connection plays seat {seat}; a message for seat {message['seat']!r} is refused"
            )
        if kind == "ping":
            return "pong"
        if kind == "bye":  # the page is closing: the hold is 10 s, not 60 (R10.3)
            return "bye"
        if self.club.status[seat] == LEFT:
            raise Refused("left", "you left this table: a bot plays your seat for the rest of the match (R10.3)")
        if kind == "leave":
            self.club.leave(seat)
            return "left"
        if kind == "take_over":
            self.club.take_over(seat)
            if self.table.to_act == seat and self.gather_until is None:
                self._next_turn(now)  # a full turn on the clock for the person (R10.2)
            return "took_over"
        extra = sorted(set(message) - ACT_KEYS, key=str)
        if extra:
            raise Refused("malformed", f"an 'act' message has the keys type, action (and seat, ply); not {extra}")
        action = message.get("action")
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < 42:
            raise Refused("malformed", f"'action' must be an action id 0-41 (R9), got {action!r}")
        if not self.started:
            raise Refused("not_started", "the game has not started: seats are still open")
        if self.table.over:
            raise Refused("over", "the match is over")
        if self.gather_until is not None:
            raise Refused("gathering", "the last trick is being gathered: the next turn starts in a moment")
        if "ply" in message and message["ply"] != self.ply:
            raise Refused("stale", f"the table has moved on (move {self.ply}, not {message['ply']!r}): look again")
        if self.table.to_act != seat:
            raise Refused("not_your_turn", f"it is seat {self.table.to_act}'s turn, not seat {seat}'s")
        try:
            action = self.table.verify(action)
        except IllegalActionError as e:
            raise Refused("illegal", str(e)) from None
        self.club.record_person_move(seat)  # R10.2: playing ends the autopilot
        self._apply(seat, action, now, "person")
        return "acted"

    # ------------------------------------------------------------------ connections (R10.3)
    def connected(self, seat: int, now: float) -> None:
        was_bot_played = not self.club.person_plays(seat)
        self.club.connected(seat)
        if was_bot_played and self.club.person_plays(seat) and self.table.to_act == seat and self.gather_until is None:
            self._next_turn(now)

    def disconnected(self, seat: int, now: float, closed: bool = False) -> None:
        self.club.disconnected(seat, now, closed)

    # ------------------------------------------------------------------ what happens by itself
    def tick(self, now: float) -> bool:
        """Let holds run out (R10.3) and a finished trick be gathered; True when a seat's
        status changed or the trick was gathered (the next turn begins)."""
        changed = bool(self.club.expire_holds(now))
        if self.gather_until is not None and now >= self.gather_until:
            self.gather_until = None
            self.closing_hand = None
            self._next_turn(now)
            changed = True
        return changed

    def auto_due(self, now: float) -> tuple[int, str] | None:
        """(seat, reason) when the seat to act must be played now by an agent: reason "bot"
        (a bot's seat, or a person's seat on autopilot, away or left) or "timeout" (R10.2)."""
        if not self.started or self.table.over or self.gather_until is not None:
            return None
        seat = self.table.to_act
        if not self.club.person_plays(seat):
            return (seat, "bot") if now >= self.turn_since + self.config.bot_delay else None
        return (seat, "timeout") if self.club.timed_out(now) else None

    def next_wakeup(self) -> float | None:
        """When something may happen by itself next (a bot's move, a clock or a hold running out)."""
        if self.gather_until is not None:
            return self.gather_until  # nothing else happens while the trick lies there
        times = []
        if self.started and not self.table.over:
            if not self.club.person_plays(self.table.to_act):
                times.append(self.turn_since + self.config.bot_delay)
        t = self.club.next_deadline()
        if t is not None:
            times.append(t)
        return min(times) if times else None

    def apply_auto(self, seat: int, action: int, reason: str, ply: int, now: float) -> bool:
        """Apply an agent's ``action`` for ``seat``, asked at version ``ply`` for ``reason``.

        Returns False (and changes nothing) when the table moved on meanwhile (the person
        played first) or the reason no longer holds.

        Raises:
            IllegalActionError: the agent broke the rules (R9).
        """
        if ply != self.ply or self.auto_due(now) != (seat, reason):
            return False
        action = self.table.verify(action)
        if reason == "timeout":
            self.club.record_timeout(seat)  # R10.2
        by = "timeout" if reason == "timeout" else ("bot" if self.config.seats[seat].kind == "bot" else "standin")
        self._apply(seat, action, now, by)
        return True

    def agent_spec(self, seat: int) -> str:
        return self.config.seats[seat].agent

    def pop_finished_hands(self) -> list[dict[str, Any]]:
        out, self.finished_hands = self.finished_hands, []
        return out

    # ------------------------------------------------------------------ what clients see
    def listing(self) -> dict[str, Any]:
        """The table as the lobby's open tables show it: who sits where, the open seats, the
        rules, the clock and the match score (nothing of any hand)."""
        return {
            "room": self.id,
            "names": self.names[:],
            "kinds": [s.kind for s in self.config.seats],
            "open_seats": self.open_seats(),
            "started": self.started,
            "rules": self.config.rules.to_dict(),
            "tempo": TEMPOS[self.config.tempo].to_dict(),
            "score": list(self.table.context.score) if self.started else [0, 0],
            "hand_number": self.deals.drawn,
        }

    def room_info(self, now: float) -> dict[str, Any]:
        """The public part of a message: seats, statuses, the clock, the version, results."""
        club = self.club
        # every seat's turn runs on the clock: a person's to its timeout (R10.2), a bot's to the
        # hub's cap on its thinking (the bot clock the page shows while it decides)
        left = club.remaining(now) if club.turn_seat >= 0 else None
        match = self.table.match
        return {
            "room": self.id,
            "ply": self.ply,
            "started": self.started,
            "names": self.names[:],
            "kinds": [s.kind for s in self.config.seats],
            "status": club.status[:],
            "timeouts": club.timeouts[:],
            "open_seats": self.open_seats(),
            "tempo": club.tempo.to_dict(),
            "clock": {
                "seat": club.turn_seat,
                "kind": club.turn_kind,
                "left": None if left is None else round(left, 2),
                "limit": club.tempo.limit(club.turn_kind),
            },
            "hand_number": self.deals.drawn,
            "gathering": self.gathering,
            "gather": self.config.gather,
            "last_result": self.last_result,
            "match_result": self._match_result(),
            "results": [r.to_info()["score"] for r in match.results] if match is not None else [],
        }

    # ------------------------------------------------------------------ saving (R10.4)
    def to_data(self, now: float) -> dict[str, Any]:
        """Everything needed to resume the room exactly: the match and its hand (with the
        doubling level and the turn), the club's clocks as seconds left, the hand's log."""
        return {
            "format": ROOM_FORMAT,
            "id": self.id,
            "config": self.config.to_dict(),
            "tokens": self.tokens[:],
            "invites": self.invites[:],
            "watch": self.watch,
            "names": self.names[:],
            "started": self.started,
            "table": self.table.to_data() if self.started else None,
            "drawn": self.deals.drawn,
            "club": self.club.to_data(now),
            "ply": self.ply,
            "hand_log": self.hand_log,
            "hand_elapsed": now - self.hand_began,
            "hand_began_wall": self.hand_began_wall,
            "turn_waited": now - self.turn_since,
            "last_result": self.last_result,
            "gather_left": None if self.gather_until is None else max(0.0, self.gather_until - now),
            "closing_hand": None if self.closing_hand is None else self.closing_hand.to_json(),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any], now: float) -> Room:
        """Restore ``to_data`` at the restarted clock's time ``now`` (R10.4).

        Raises:
            ValueError (StateError included): malformed data.
        """
        if not isinstance(data, dict) or data.get("format") != ROOM_FORMAT:
            raise ValueError(f"a saved room must be of format {ROOM_FORMAT!r}")
        room = cls(data["id"], RoomConfig.from_dict(data["config"]), now)
        room.tokens = list(data["tokens"])
        room.watch = data["watch"]
        if "invites" in data:
            room.invites = list(data["invites"])
        else:  # saved before invitations were per seat: the one invitation seats every open seat
            room.invites = [
                data["invite"] if room.tokens[s] is None and s in room.config.persons else None
                for s in range(NUM_SEATS)
            ]
        room.names = list(data["names"])
        room.started = bool(data["started"])
        room.table.deals = SeededDeals(room.config.seed, int(data["drawn"]))
        if room.started:
            room.table.load_data(data["table"])
        room.club = ClubClock.from_data(data["club"], now)
        room.ply = int(data["ply"])
        room.hand_log = list(data["hand_log"])
        room.hand_began = now - float(data["hand_elapsed"])
        room.hand_began_wall = float(data["hand_began_wall"])
        room.turn_since = now - float(data["turn_waited"])
        room.last_result = data["last_result"]
        if data.get("gather_left") is not None:
            room.gather_until = now + float(data["gather_left"])
            room.closing_hand = HandState.from_json(data["closing_hand"]) if data.get("closing_hand") else None
        return room

    def persons_connected_lost(self, now: float) -> None:
        """After a restart nobody is connected: hold every person's seat (R10.3) until they
        reconnect (the page reconnects by itself)."""
        for seat, status in enumerate(self.club.status):
            if status == HUMAN:
                self.club.disconnected(seat, now)


__all__ = ["BOT", "HUMAN", "Refused", "Room", "RoomConfig", "SeatSpec", "SeededDeals", "new_token", "token_hash"]
