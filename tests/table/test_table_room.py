"""The live table's rules without a server: the club's clocks (R10) on a fake clock, the room's
refusals, and its saved form (R10.4). ``table.room`` and ``table.clocks`` need only the engine."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from agents.registry import make_agent
from baloot_env.actions import DOUBLE, HOKUM_BASE, PASS
from baloot_env.hand import DOUBLING, PLAY
from baloot_env.view import PlayerView
from table.clocks import (
    AUTOPILOT,
    AWAY,
    HOLD,
    HUMAN,
    LEFT,
    TEMPOS,
    ClubClock,
    FakeClock,
)
from table.room import Refused, Room, RoomConfig, SeatSpec

HEURISTIC = make_agent("heuristic", 0)


def room_with(
    persons=(0,), tempo="normal", seed=7, bot_delay=0.0, gather=0.0
) -> tuple[Room, FakeClock, dict[int, str]]:
    clock = FakeClock()
    seats = tuple(
        SeatSpec("person", "heuristic", f"p{i}") if i in persons else SeatSpec("bot", "heuristic", f"b{i}")
        for i in range(4)
    )
    room = Room("r1", RoomConfig(seats, tempo=tempo, seed=seed, bot_delay=bot_delay, gather=gather), clock.now())
    tokens = {s: room.issue_token(s) for s in persons}
    room.start(clock.now())
    return room, clock, tokens


def drive(room: Room, clock: FakeClock, limit: int = 1000, stop_at: int | None = None) -> int:
    """Make every automatic move that is due now (bots, stand-ins, timeouts), stopping before
    seat ``stop_at``'s turn when given; returns how many."""
    n = 0
    while (due := room.auto_due(clock.now())) is not None and n < limit:
        seat, reason = due
        if seat == stop_at:
            break
        action = HEURISTIC.act(PlayerView.from_table(room.table, seat))
        assert room.apply_auto(seat, action, reason, room.ply, clock.now())
        n += 1
    return n


def until_turn(room: Room, clock: FakeClock, seat: int) -> None:
    drive(room, clock, stop_at=seat)
    assert room.table.to_act == seat, "the bots should have played up to the person's turn"


def state_of(room: Room, clock: FakeClock) -> str:
    return json.dumps(room.to_data(clock.now()), sort_keys=True)


# ---------------------------------------------------------------------------------------- a finished trick
def test_a_finished_trick_lies_on_the_table_for_gather_seconds_then_the_next_turn_starts():
    """After a trick's fourth card nobody acts and no clock runs for ``gather`` seconds: the
    messages say ``gathering`` and hold the trick (``last_trick``); then the winner leads."""
    room, clock, _ = room_with(persons=(), gather=2.0)
    drive(room, clock)  # the bots call and play until the first trick is finished
    hand = room.table.current_hand
    assert hand.phase == PLAY and len(hand.tricks) == 1 and not hand.trick_cards
    assert room.gathering and room.room_info(clock.now())["gathering"]
    assert room.club.turn_seat == -1 and room.next_wakeup() == clock.now() + 2.0
    assert room.shown_hand is hand
    clock.advance(1.9)
    assert not room.tick(clock.now()) and room.auto_due(clock.now()) is None
    clock.advance(0.2)
    assert room.tick(clock.now()) and not room.gathering
    assert room.auto_due(clock.now()) == (hand.tricks[0][2], "bot")  # the trick's winner leads (R5.1)


def test_a_hands_last_trick_is_shown_before_the_next_deal_and_the_person_waits():
    room, clock, tokens = room_with(persons=(0,), gather=1.0)
    while len(room.finished_hands) == 0:
        if room.gather_until is not None:
            clock.advance(1.0)
            room.tick(clock.now())
        elif room.table.to_act == 0:
            view = PlayerView.from_table(room.table, 0)
            room.handle(0, {"type": "act", "action": HEURISTIC.act(view)}, clock.now())
        else:
            drive(room, clock, stop_at=0)
    finished = room.shown_hand
    assert finished is not None and finished.done and len(finished.tricks) == 8  # the last trick lies there
    assert room.table.current_hand is not finished and not room.table.current_hand.tricks  # dealt already
    assert room.auto_due(clock.now()) is None and room.club.turn_seat == -1  # no bot moves, no clock runs
    before = state_of(room, clock)
    with pytest.raises(Refused) as e:
        room.handle(0, {"type": "act", "action": PASS}, clock.now())
    assert e.value.code == "gathering" and state_of(room, clock) == before
    restored = Room.from_data(json.loads(before), clock.now())  # a restart keeps the trick on the table
    assert restored.gathering and restored.shown_hand is not None and restored.shown_hand.tricks == finished.tricks
    clock.advance(1.0)
    assert room.tick(clock.now()) and room.shown_hand is room.table.current_hand
    assert room.club.turn_seat == room.table.to_act


def test_without_gather_the_next_turn_starts_at_once():
    room, clock, _ = room_with(persons=(), gather=0.0)
    drive(room, clock, limit=40)
    assert not room.gathering and len(room.table.current_hand.tricks) >= 1


# ---------------------------------------------------------------------------------------- R10.1
@pytest.mark.parametrize(("tempo", "card", "call"), [("relaxed", 60, 75), ("normal", 30, 40), ("fast", 15, 25)])
def test_tempos_give_the_time_of_r10_1(tempo, card, call):
    room, clock, _ = room_with(tempo=tempo)
    until_turn(room, clock, 0)
    assert room.table.hand.phase == "bidding"
    assert room.club.remaining(clock.now()) == call  # a bid is a call
    assert TEMPOS[tempo].card == card and TEMPOS[tempo].call == call


def test_a_card_turn_runs_on_the_card_clock():
    room, clock, tokens = room_with(persons=(0, 1, 2, 3))
    # every seat passes round 1, then the first seat calls sun in round 2 (R3.4): play begins
    for _ in range(4):
        room.handle(room.table.to_act, {"type": "act", "action": PASS}, clock.now())
    room.handle(room.table.to_act, {"type": "act", "action": 37}, clock.now())
    assert room.table.hand.phase == PLAY
    assert room.club.turn_kind == "card" and room.club.remaining(clock.now()) == 30


# ---------------------------------------------------------------------------------------- R10.2
def test_timeout_plays_a_legal_move_and_three_in_a_row_start_the_autopilot():
    room, clock, _ = room_with()
    for n in (1, 2, 3):
        until_turn(room, clock, 0)
        ply = room.ply
        limit = TEMPOS["normal"].limit(room.club.turn_kind)
        assert room.club.remaining(clock.now()) == limit
        clock.advance(limit - 0.1)
        assert room.auto_due(clock.now()) is None  # not yet
        clock.advance(0.2)
        assert room.auto_due(clock.now()) == (0, "timeout")
        action = HEURISTIC.act(PlayerView.from_table(room.table, 0))
        assert room.apply_auto(0, action, "timeout", ply, clock.now())
        assert room.hand_log[-1][:2] == [0, action] and room.hand_log[-1][3] == "timeout"
        assert room.club.timeouts[0] == n
        assert room.club.status[0] == (AUTOPILOT if n == 3 else HUMAN)
    # on autopilot the table plays the seat at once, without waiting for the clock
    until_turn(room, clock, 0)
    assert room.auto_due(clock.now()) == (0, "bot")
    drive(room, clock, limit=1)
    assert room.hand_log[-1][0] == 0 and room.hand_log[-1][3] == "standin"


def test_take_over_ends_the_autopilot_and_gives_a_full_turn():
    room, clock, tokens = room_with()
    until_turn(room, clock, 0)
    clock.advance(25)
    room.club.status[0] = AUTOPILOT
    room.club.timeouts[0] = 3
    assert room.auto_due(clock.now()) == (0, "bot")  # the table plays seat 0: it does not wait
    room.handle(0, {"type": "take_over"}, clock.now())
    assert room.club.status[0] == HUMAN and room.club.timeouts[0] == 0
    assert room.auto_due(clock.now()) is None
    assert room.club.remaining(clock.now()) == 40  # a full turn, not the 15 s left


def slow_bots(room: Room) -> None:
    room.config = dataclasses.replace(room.config, bot_delay=1.0)


def test_playing_a_card_on_autopilot_takes_the_seat_back():
    room, clock, _ = room_with()
    until_turn(room, clock, 0)
    slow_bots(room)
    room.club.status[0] = AUTOPILOT  # the stand-in would play after the bot delay ...
    legal = PlayerView.from_table(room.table, 0).legal_actions
    room.handle(0, {"type": "act", "action": legal[0]}, clock.now())  # ... but the person acts first
    assert room.club.status[0] == HUMAN and room.club.timeouts[0] == 0
    assert room.hand_log[-1][3] == "person"


def test_a_stale_agent_answer_is_dropped():
    room, clock, _ = room_with()
    until_turn(room, clock, 0)
    slow_bots(room)
    room.club.status[0] = AUTOPILOT
    ply = room.ply
    legal = PlayerView.from_table(room.table, 0).legal_actions
    room.handle(0, {"type": "act", "action": legal[0]}, clock.now())
    clock.advance(2)
    assert not room.apply_auto(0, legal[-1], "bot", ply, clock.now())  # the table moved on


# ---------------------------------------------------------------------------------------- R10.3
def test_a_dropped_connection_holds_the_seat_60_s_then_a_bot_plays_until_the_player_returns():
    room, clock, _ = room_with()
    until_turn(room, clock, 0)
    room.connected(0, clock.now())
    room.disconnected(0, clock.now())
    assert room.club.status[0] == HOLD
    clock.advance(35)  # the turn clock (40 s) still runs during the hold
    assert not room.tick(clock.now()) and room.auto_due(clock.now()) is None
    clock.advance(6)  # the turn runs out first: a timeout move
    assert room.auto_due(clock.now()) == (0, "timeout")
    drive(room, clock)
    clock.advance(20)  # 61 s after the drop
    assert room.tick(clock.now()) and room.club.status[0] == AWAY
    assert room.auto_due(clock.now()) is None or room.auto_due(clock.now())[1] == "bot"
    until_turn(room, clock, 0)
    assert room.auto_due(clock.now()) == (0, "bot")  # the bot plays seat 0 now
    drive(room, clock, limit=1)
    assert room.hand_log[-1][:1] == [0] and room.hand_log[-1][3] == "standin"
    room.connected(0, clock.now())
    assert room.club.status[0] == HUMAN
    until_turn(room, clock, 0)


def test_closing_the_game_holds_the_seat_10_s():
    room, clock, _ = room_with()
    room.disconnected(0, clock.now(), closed=True)
    clock.advance(9.9)
    assert not room.tick(clock.now())
    clock.advance(0.2)
    assert room.tick(clock.now()) and room.club.status[0] == AWAY


def test_leaving_hands_the_seat_to_a_bot_for_good():
    room, clock, _ = room_with()
    until_turn(room, clock, 0)
    room.handle(0, {"type": "leave"}, clock.now())
    assert room.club.status[0] == LEFT
    assert room.auto_due(clock.now()) == (0, "bot")
    with pytest.raises(Refused) as e:
        room.handle(0, {"type": "act", "action": PASS}, clock.now())
    assert e.value.code == "left"
    room.connected(0, clock.now())  # coming back does not undo leaving
    assert room.club.status[0] == LEFT
    drive(room, clock, limit=1)
    assert room.hand_log[-1][0] == 0 and room.hand_log[-1][3] == "standin"


# ---------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("not a dict", "malformed"),
        ({"action": 32}, "malformed"),
        ({"type": "dance"}, "malformed"),
        ({"type": "act"}, "malformed"),
        ({"type": "act", "action": True}, "malformed"),
        ({"type": "act", "action": 42}, "malformed"),
        ({"type": "act", "action": "32"}, "malformed"),
        ({"type": "act", "action": 32, "extra": 1}, "malformed"),
        ({"type": "act", "action": 32, "seat": 2}, "not_your_seat"),
        ({"type": "act", "action": 32, "ply": -1}, "stale"),
        ({"type": "act", "action": 0}, "illegal"),  # a card in the bidding
    ],
)
def test_refused_messages_change_nothing(message, code):
    room, clock, _ = room_with()
    until_turn(room, clock, 0)
    before = state_of(room, clock)
    with pytest.raises(Refused) as e:
        room.handle(0, copy.deepcopy(message), clock.now())
    assert e.value.code == code and str(e.value)
    assert state_of(room, clock) == before


def test_out_of_turn_is_refused():
    room, clock, _ = room_with(persons=(0, 1))
    drive(room, clock)
    seat = room.table.to_act
    other = 1 if seat == 0 else 0
    before = state_of(room, clock)
    with pytest.raises(Refused) as e:
        room.handle(other, {"type": "act", "action": PASS}, clock.now())
    assert e.value.code == "not_your_turn" and f"seat {seat}'s turn" in str(e.value)
    assert state_of(room, clock) == before


def test_tokens_are_unguessable_and_checked():
    room, clock, tokens = room_with(persons=(0, 2))
    assert room.seat_of(tokens[2]) == 2 and len(tokens[0]) >= 32
    for bad in ("", "x", tokens[0][:-1], None, 5):
        with pytest.raises(Refused) as e:
            room.seat_of(bad)
        assert e.value.code == "bad_token"
    assert tokens[0] not in json.dumps(room.to_data(clock.now()))  # only hashes are saved


# ---------------------------------------------------------------------------------------- R10.4
def doubled_room() -> tuple[Room, FakeClock]:
    """Four persons: the first bidder calls hokum, a defender doubles, two cards are played."""
    room, clock, _ = room_with(persons=(0, 1, 2, 3), seed=11)
    turned_suit = room.table.hand.deal.turned >> 3
    room.handle(room.table.to_act, {"type": "act", "action": HOKUM_BASE + turned_suit}, clock.now())
    for _ in range(3):
        room.handle(room.table.to_act, {"type": "act", "action": PASS}, clock.now())
    assert room.table.hand.phase == DOUBLING
    room.handle(room.table.to_act, {"type": "act", "action": DOUBLE}, clock.now())
    for _ in range(2):
        room.handle(room.table.to_act, {"type": "act", "action": PASS}, clock.now())
    assert room.table.hand.phase == PLAY and room.table.hand.level == 2
    for _ in range(2):
        seat = room.table.to_act
        room.handle(
            seat, {"type": "act", "action": PlayerView.from_table(room.table, seat).legal_actions[0]}, clock.now()
        )
    return room, clock


def test_restart_resumes_every_clock_the_doubling_level_and_the_turn():
    room, clock = doubled_room()
    clock.advance(12.5)  # 17.5 s left of 30
    room.club.timeouts[1] = 2
    room.disconnected(3, clock.now())
    clock.advance(1.0)  # seat 3's hold: 59 s left; the turn: 16.5 s
    saved = json.loads(json.dumps(room.to_data(clock.now())))
    later = FakeClock(start=50_000.0)  # another process, another clock
    back = Room.from_data(saved, later.now())
    assert back.table.hand == room.table.hand  # the hand, the level (2) and the turn
    assert back.table.hand.level == 2 and back.table.to_act == room.table.to_act
    assert back.club.remaining(later.now()) == pytest.approx(16.5)
    assert back.club.timeouts == [0, 2, 0, 0] and back.club.status[3] == HOLD
    assert back.club.hold_until[3] - later.now() == pytest.approx(59.0)
    assert back.ply == room.ply and back.hand_log == room.hand_log
    later.advance(16.6)
    assert back.auto_due(later.now()) == (room.table.to_act, "timeout")


def test_club_clock_refuses_a_corrupt_saved_form():
    clock = ClubClock(TEMPOS["fast"], [True] * 4)
    data = clock.to_data(0.0)
    for key, bad in (("format", "x"), ("tempo", "slow"), ("status", ["human"] * 3), ("turn_kind", "x")):
        with pytest.raises(ValueError):
            ClubClock.from_data({**data, key: bad}, 0.0)


def test_a_room_saved_with_one_invitation_for_its_open_seats_still_seats_each_guest():
    """Rooms saved before invitations were per seat held one ``invite`` for every open seat;
    restored, that link still seats a guest in each open seat, then is refused as full."""
    from table.room import token_hash

    clock = FakeClock()
    config = RoomConfig(seats=(SeatSpec("person", "heuristic", "Host"),) + (SeatSpec("person", "heuristic", "g"),) * 3)
    room = Room("old", config, clock.now())
    room.issue_token(0)
    data = room.to_data(clock.now())
    del data["invites"]
    data["invite"] = token_hash("the-old-link")
    back = Room.from_data(json.loads(json.dumps(data)), clock.now())
    assert sorted(back.join("the-old-link", f"guest {k}", clock.now())[0] for k in range(3)) == [1, 2, 3]
    with pytest.raises(Refused) as e:
        back.join("the-old-link", "late", clock.now())
    assert e.value.code == "full"
