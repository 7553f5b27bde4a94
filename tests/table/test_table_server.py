"""The table server over real HTTP and WebSockets on 127.0.0.1, with a fake clock (R10).

Each test starts its own server (uvicorn in a thread, ``table.testing``) on a fresh database,
with ``heuristic`` bots that move at once (``bot_delay`` 0), so every rule is exercised through
the same path a browser takes: timeouts, the autopilot and take over (R10.2), the disconnect
hold and leaving (R10.3), a restart in the middle of a doubled hand (R10.4), refused messages,
and no message of whole games carrying a card its seat may not see.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the table server needs the 'table' extra (pip install -e '.[table]')")
pytest.importorskip("websockets", reason="the table server needs the 'table' extra")

from baloot_env.actions import DOUBLE, HOKUM_BASE, PASS  # noqa: E402
from baloot_env.cards import card_name, cards_of  # noqa: E402
from baloot_env.deal import parse_deal  # noqa: E402
from baloot_env.hand import HandState  # noqa: E402
from baloot_env.rules import RuleConfig  # noqa: E402
from table.clocks import FakeClock  # noqa: E402
from table.server import STATIC, create_app  # noqa: E402
from table.testing import Client, get, post, serve  # noqa: E402

BOTS = ["heuristic"] * 3


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def server(tmp_path, clock):
    with serve(create_app(tmp_path / "table.sqlite", clock=clock, default_agent="heuristic")) as s:
        yield s


def new_room(s, seats, **kw) -> dict:
    status, r = post(s.url + "/api/rooms", {"seats": seats, "bot_delay": 0, "gather": 0, "seed": 5, **kw})
    assert status == 200, r
    return r


def invite_of(room: dict, seat: int | None = None) -> str:
    """The invitation token of ``seat`` (default: the first invitation, the partner's if invited)."""
    url = room["invite_url"] if seat is None else {i["seat"]: i["url"] for i in room["invites"]}[seat]
    return url.split("#")[1]


def join(s, room: dict, name: str = "Guest", seat: int | None = None) -> dict:
    status, r = post(f"{s.url}/api/rooms/{room['room']}/join", {"invite": invite_of(room, seat), "name": name})
    assert status == 200, r
    return r


def my_turn(seat: int):
    return lambda m: m["type"] == "state" and m.get("to_act") == seat and bool(m.get("legal"))


def state(pred=lambda m: True):
    return lambda m: m["type"] == "state" and pred(m)


# ---------------------------------------------------------------------------------------- pages
def test_the_app_serves_its_page_without_a_cdn(server):
    for path in ("/", "/t/x", "/watch/x", "/join/x", "/sheet", "/replay", "/static/table.js", "/static/style.css"):
        status, _ = get_text(server.url + path)
        assert status == 200, path
    for f in Path(STATIC).iterdir():  # everything the page loads comes from the app itself
        text = f.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, f.name
    status, agents = get(server.url + "/api/agents")
    assert status == 200 and "champion" in agents["agents"] and agents["default"] == "heuristic"


def get_text(url: str) -> tuple[int, str]:
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read().decode()


def test_only_offered_agents_can_sit(server):
    for bad in ("/etc/passwd", "agents/registry.py", "nobody"):
        status, r = post(server.url + "/api/rooms", {"seats": ["me", bad, "heuristic", "heuristic"]})
        assert status == 400 and "unknown agent" in r["error"]
    status, r = post(server.url + "/api/rooms", {"seats": ["me", "me", "heuristic", "heuristic"]})
    assert status == 400
    status, r = post(server.url + "/api/rooms", {"seats": ["me"] + BOTS, "tempo": "blitz"})
    assert status == 400 and "tempo" in r["error"]
    status, r = post(server.url + "/api/rooms", {"seats": ["me"] + BOTS, "rules": {"match": "forever"}})
    assert status == 400 and "rules" in r["error"]


# ---------------------------------------------------------------------------------------- hidden cards
def truth_by_ply(hands: list[dict]) -> tuple[dict[int, HandState], dict[int, HandState]]:
    """The full state the table was in at each version (``ply``), from the stored hands, and
    the finished hand at each version that ended one (shown while its last trick lies there)."""
    truth: dict[int, HandState] = {}
    finished: dict[int, HandState] = {}
    ply = 0
    for hand in hands:
        state = HandState(parse_deal(hand["deal"]), RuleConfig.from_dict(hand["rules"]), tuple(hand["match_score"]))
        truth[ply] = state.clone()
        for _seat, action, _t, _by in hand["actions"]:
            state.apply(action)
            ply += 1
            truth[ply] = state.clone()  # replaced by the next hand's deal when there is one
        finished[ply] = state.clone()
    return truth, finished


def hidden_from(state: HandState, seat: int) -> set[str]:
    """Cards ``seat`` may not see: the others' cards not shown by a public project (R6.2) nor
    turned face up (R2.2: the caller holds it), and the stock before it is dealt (R2.3)."""
    hidden = 0
    for other in range(4):
        if other == seat:
            continue
        cards = state.hands[other]
        if state.projects_public(other):
            for p in state.projects[other]:
                for c in p.cards:
                    cards &= ~(1 << c)
        hidden |= cards
    if state.contract is None:
        hidden |= sum(1 << c for c in state.deal.stock)
    hidden &= ~(1 << state.deal.turned)
    return {card_name(c) for c in cards_of(hidden)}


def strings_in(obj) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings_in(k) | strings_in(v) for k, v in obj.items())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(strings_in(v) for v in obj)) if obj else set()
    return set()


@pytest.mark.parametrize("gather", [0, 1.0])
def test_no_message_of_whole_games_shows_a_seat_a_card_it_may_not_see(server, clock, gather):
    """With ``gather`` > 0 the messages include each finished trick lying on the table and the
    finished hand shown before the next deal."""
    room = new_room(
        server, ["me", "heuristic", "invite", "heuristic"], rules={"match": "hands", "hands": 5}, gather=gather
    )
    guest = join(server, room)
    clients = {0: Client(server.url, room["room"], room["token"]), 2: Client(server.url, guest["room"], guest["token"])}
    rng = random.Random(0)
    acted: set[tuple[int, int]] = set()
    over = set()
    for _ in range(20_000):
        quiet = True
        for seat, c in clients.items():
            try:
                m = c.recv(timeout=0.02)
            except TimeoutError:
                continue
            quiet = False
            assert m["type"] != "error", m
            if m.get("match_result"):
                over.add(seat)
            elif m.get("to_act") == seat and m.get("legal") and (seat, m["ply"]) not in acted:
                acted.add((seat, m["ply"]))
                c.send({"type": "act", "action": rng.choice(m["legal"])["id"], "ply": m["ply"]})
        if over == {0, 2}:
            break
        if quiet and gather:
            clock.advance(0.5)  # a finished trick is gathered on the fake clock
    assert over == {0, 2}, "the match did not finish"
    hands = server.app.state.store.hands(room=room["room"])
    assert len(hands) >= 5 and all(h["actions"] for h in hands)
    truth, finished = truth_by_ply(hands)
    checked = hidden_total = closing = 0
    for seat, c in clients.items():
        for m in c.seen:
            if m["type"] != "state" or m["phase"] == "waiting":
                continue
            true = truth[m["ply"]]
            if m["gathering"] and m["phase"] == "done":  # the hand's last trick, before the next deal
                true = finished[m["ply"]]
                closing += not m["match_result"]  # the match's last trick stays whatever gather is
            assert sorted(m["hand"]) == sorted(card_name(x) for x in cards_of(true.hands[seat]))
            hidden = hidden_from(true, seat)
            leaked = hidden & strings_in(m)
            assert not leaked, f"seat {seat} was sent {leaked} at ply {m['ply']}"
            checked += 1
            hidden_total += len(hidden)
    assert checked > 200 and hidden_total > 2000  # whole games, with plenty hidden to leak
    assert (closing > 0) == (gather > 0)


# ---------------------------------------------------------------------------------------- R10.2
def seat_actions(s, room_id: str, seat: int) -> list[list]:
    """[seat, action, t, by] of every action of ``seat`` so far: stored hands, then the current one."""

    def read():
        hands = s.app.state.store.hands(room=room_id)
        return [e for h in hands for e in h["actions"]] + list(s.app.state.hub.rooms[room_id].hand_log)

    return [e for e in s.call(read) if e[0] == seat]


def advance_until(clock: FakeClock, client: Client, pred, step: float = 0.5, limit: int = 400) -> dict:
    """Move the fake clock ``step`` at a time (bots move every ``bot_delay``) until a message
    for which ``pred`` holds arrives."""
    for _ in range(limit):
        try:
            return client.until(pred, timeout=0.05)
        except TimeoutError:
            clock.advance(step)
    raise TimeoutError("the table did not get there")


def test_timeouts_play_for_the_player_then_autopilot_until_take_over(server, clock):
    room = new_room(server, ["me"] + BOTS, bot_delay=0.5)  # bots wait 0.5 s of the fake clock
    me = Client(server.url, room["room"], room["token"])
    for n in (1, 2, 3):
        m = advance_until(clock, me, my_turn(0))
        assert m["clock"]["seat"] == 0 and m["clock"]["left"] == m["clock"]["limit"]
        clock.advance(m["clock"]["limit"] - 0.5)
        with pytest.raises(TimeoutError):
            me.until(state(lambda x, p=m["ply"]: x["ply"] > p), timeout=0.2)  # not yet
        clock.advance(1.0)  # R10.1: the limit passes; R10.2: a legal move is made
        after = me.until(state(lambda x, p=m["ply"]: x["ply"] > p))
        assert after["timeouts"][0] == n
        assert after["status"][0] == ("autopilot" if n == 3 else "human")
    # on autopilot the table plays seat 0 as soon as its turn comes, with no clock for it
    ply = me.state["ply"]
    advance_until(clock, me, state(lambda x: x["ply"] >= ply + 8))
    by = [e[3] for e in seat_actions(server, room["room"], 0)]
    assert by.count("timeout") == 3 and "standin" in by[by.index("timeout") :]
    me.send({"type": "take_over"})
    back = me.until(state(lambda x: x["status"][0] == "human"))
    assert back["timeouts"][0] == 0
    m = advance_until(clock, me, my_turn(0))  # the table waits for the player again
    clock.advance(m["clock"]["limit"] - 1)
    me.send({"type": "act", "action": m["legal"][0]["id"]})
    done = me.until(state(lambda x: x["ply"] > m["ply"]))
    assert done["timeouts"][0] == 0 and seat_actions(server, room["room"], 0)[-1][3] == "person"


# ---------------------------------------------------------------------------------------- R10.3
def test_a_lost_connection_holds_the_seat_then_a_bot_plays_until_the_player_returns(server, clock):
    room = new_room(server, ["me", "heuristic", "invite", "heuristic"])
    guest = join(server, room)
    watcher = Client(server.url, guest["room"], guest["token"])  # the partner sees the seat's status
    me = Client(server.url, room["room"], room["token"])
    watcher.until(state(lambda m: m["status"][0] == "human"))
    me.close()
    watcher.until(state(lambda m: m["status"][0] == "hold"))
    clock.advance(59)
    with pytest.raises(TimeoutError):
        watcher.until(state(lambda m: m["status"][0] == "away"), timeout=0.3)
    clock.advance(2)
    watcher.until(state(lambda m: m["status"][0] == "away"))
    me = Client(server.url, room["room"], room["token"])  # the player returns with the same link
    m = me.until(state(lambda m: m["status"][0] == "human"))
    assert m["seat"] == 0


def test_closing_the_page_holds_the_seat_10_s(server, clock):
    room = new_room(server, ["me", "heuristic", "invite", "heuristic"])
    guest = join(server, room)
    watcher = Client(server.url, guest["room"], guest["token"])
    me = Client(server.url, room["room"], room["token"])
    watcher.until(state(lambda m: m["status"][0] == "human"))
    me.send({"type": "bye"})  # the page says it is closing
    me.close(1001)
    watcher.until(state(lambda m: m["status"][0] == "hold"))
    clock.advance(10.5)
    watcher.until(state(lambda m: m["status"][0] == "away"))


def test_leaving_hands_the_seat_to_a_bot_for_good(server):
    room = new_room(server, ["me"] + BOTS)
    me = Client(server.url, room["room"], room["token"])
    m = me.until(my_turn(0))
    me.send({"type": "leave"})
    left = me.until(state(lambda x: x["status"][0] == "left"))
    me.send({"type": "act", "action": m["legal"][0]["id"]})
    err = me.until(lambda x: x["type"] == "error")
    assert err["code"] == "left"
    me.until(state(lambda x: x["ply"] > left["ply"] + 4))  # the game goes on without the player
    me.close()
    me = Client(server.url, room["room"], room["token"])
    assert me.until(state())["status"][0] == "left"  # coming back does not undo it


# ---------------------------------------------------------------------------------------- refusals
def test_refused_messages_are_answered_clearly_and_change_nothing(server):
    room = new_room(server, ["me", "heuristic", "invite", "heuristic"])
    guest = join(server, room)
    partner = Client(server.url, guest["room"], guest["token"])
    me = Client(server.url, room["room"], room["token"])
    live = server.app.state.hub.rooms[room["room"]]
    m = me.until(my_turn(0))
    before = json.dumps(live.to_data(0.0), sort_keys=True)
    card_in_bidding = next(c for c in range(32))
    cases = [
        ("{not json", "malformed"),
        ("[1, 2]", "malformed"),
        (json.dumps({"type": "shout"}), "malformed"),
        (json.dumps({"type": "act", "action": "pass"}), "malformed"),
        (json.dumps({"type": "act", "action": 32, "token": "x"}), "malformed"),
        (json.dumps({"type": "act", "action": 32, "seat": 1}), "not_your_seat"),
        (json.dumps({"type": "act", "action": 32, "ply": m["ply"] - 1}), "stale"),
        (json.dumps({"type": "act", "action": card_in_bidding}), "illegal"),
        ("x" * 3000, "too_large"),
        ("[" * 2040, "malformed"),  # nested past Python's recursion: a refusal, the socket kept
    ]
    for text, code in cases:
        me.send(text)
        err = me.until(lambda x: x["type"] == "error")
        assert err["code"] == code and err["message"], (text[:40], err)
    partner.send({"type": "act", "action": PASS})  # out of turn
    err = partner.until(lambda x: x["type"] == "error")
    assert err["code"] == "not_your_turn" and "seat 0's turn" in err["message"]
    assert json.dumps(live.to_data(0.0), sort_keys=True) == before
    me.send({"type": "ping"})
    assert me.until(lambda x: x["type"] == "pong")
    # a frame beyond the protocol's limit closes that connection only; the server goes on
    huge = Client(server.url, room["room"], room["token"])
    huge.send("x" * 100_000)
    with pytest.raises(Exception):  # noqa: B017 (closed by the server: websockets raises ConnectionClosed)
        for _ in range(5):
            huge.recv(timeout=5)
    me.send({"type": "act", "action": m["legal"][0]["id"]})
    assert me.until(state(lambda x: x["ply"] > m["ply"]))


def test_a_wrong_token_gets_no_seat(server):
    room = new_room(server, ["me"] + BOTS)
    for token in ("", "guess", room["token"][:-2]):
        c = Client(server.url, room["room"], token)
        err = c.recv()
        assert err == {"type": "error", "code": "bad_token", "message": err["message"]}
    c = Client(server.url, "no-such-room", room["token"])
    assert c.recv()["code"] == "no_table"


def test_invitations_fill_the_open_seats_then_the_game_starts(server):
    room = new_room(server, ["me", "invite", "heuristic", "invite"])
    me = Client(server.url, room["room"], room["token"])
    assert me.until(state())["phase"] == "waiting" and me.state["open_seats"] == [1, 3]
    status, r = post(f"{server.url}/api/rooms/{room['room']}/join", {"invite": "guessed", "name": "X"})
    assert status == 403
    assert [i["seat"] for i in room["invites"]] == [1, 3]  # a link of its own for each open seat
    b, a = join(server, room, "Omar", seat=3), join(server, room, "Sara", seat=1)  # each link seats its own person
    assert (a["seat"], b["seat"]) == (1, 3) and a["token"] != b["token"]
    status, r = post(f"{server.url}/api/rooms/{room['room']}/join", {"invite": invite_of(room, 1)})
    assert status == 409  # a used invitation: its seat is taken
    m = me.until(state(lambda x: x["phase"] == "bidding"))
    assert m["names"][1] == "Sara" and m["names"][3] == "Omar"


def test_watch_mode_shows_four_bots_and_cannot_act(server):
    status, room = post(server.url + "/api/rooms", {"seats": ["heuristic"] * 4, "bot_delay": 0, "gather": 0, "seed": 2})
    assert status == 200 and room["url"].startswith("/watch/")
    w = Client(server.url, room["room"], room["token"])
    m = w.until(state(lambda x: x.get("hands") is not None and x["ply"] > 10))
    assert len(m["hands"]) == 4 and m["seat"] is None and m["legal"] == []
    w.send({"type": "act", "action": 32})
    assert w.until(lambda x: x["type"] == "error")["code"] == "not_your_seat"


# ------------------------------------------------------------------------------ open tables
def test_a_listed_table_is_among_the_open_tables_and_its_open_seat_is_taken_there(server):
    listed = new_room(server, ["me", "invite", "heuristic", "invite"], listed=True, name="Huda")
    hidden = new_room(server, ["me", "invite", "heuristic", "heuristic"])
    status, r = get(server.url + "/api/tables")
    assert status == 200 and [t["room"] for t in r["tables"]] == [listed["room"]]
    t = r["tables"][0]
    assert t["open_seats"] == [1, 3] and t["kinds"] == ["person", "person", "bot", "person"]
    assert t["names"][0] == "Huda" and not t["started"] and t["spectators"] == 0
    sit = f"{server.url}/api/rooms/{listed['room']}/sit"
    assert post(sit, {"seat": 2, "name": "X"})[0] == 409  # a bot's seat
    assert post(sit, {"seat": 0, "name": "X"})[0] == 409  # the host's
    assert post(sit, {"seat": 7, "name": "X"})[0] == 422
    assert post(f"{server.url}/api/rooms/{hidden['room']}/sit", {"seat": 1, "name": "X"})[0] == 403
    status, taken = post(sit, {"seat": 1, "name": "Lina"})
    assert status == 200 and taken["seat"] == 1 and taken["url"] == f"/t/{listed['room']}#{taken['token']}"
    assert post(sit, {"seat": 1, "name": "Again"})[0] == 409
    status, _ = post(f"{server.url}/api/rooms/{listed['room']}/join", {"invite": invite_of(listed, 1), "name": "Z"})
    assert status == 409  # its invitation seats nobody now
    join(server, listed, "Omar", seat=3)
    lina = Client(server.url, listed["room"], taken["token"])
    m = lina.until(state(lambda x: x["phase"] == "bidding"))
    assert m["seat"] == 1 and m["names"][1] == "Lina" and len(m["hand"]) == 5
    status, r = get(server.url + "/api/tables")
    assert r["tables"][0]["open_seats"] == [] and r["tables"][0]["started"]


CARD_NAME = re.compile(r'"([789TJQKA][SHDC])"')


def test_a_spectator_sees_what_the_whole_table_sees_and_no_card_in_a_hand(server):
    room = new_room(server, ["me"] + BOTS, listed=True)
    me = Client(server.url, room["room"], room["token"])
    watcher = Client(server.url, room["room"], "", spectate=True)
    hub = server.app.state.hub
    checked, ply = 0, -1
    while checked < 12:
        mine = me.until(lambda x, p=ply: my_turn(0)(x) and x["ply"] > p)
        ply = mine["ply"]
        m = watcher.until(state(lambda x, p=ply: x["ply"] == p))  # the table waits for seat 0 now
        hand = server.call(lambda: hub.rooms[room["room"]].table.hand)
        held = {card_name(c) for s in range(4) for c in cards_of(hand.hands[s])}
        shown = {c for s in range(4) if hand.projects_public(s) for p in hand.projects[s] for c in p.to_dict()["cards"]}
        shown.add(m["turned"])  # face up on the stock, then in its taker's hand (R2.3)
        assert m["seat"] is None and m["hand"] == [] and m["legal"] == [] and "hands" not in m
        assert set(CARD_NAME.findall(json.dumps(m))) & held <= shown  # a held card only in a shown project
        assert m["trick"] == mine["trick"] and m["bids"] == mine["bids"] and m["hand_sizes"] == mine["hand_sizes"]
        me.send({"type": "act", "action": mine["legal"][0]["id"], "ply": ply})
        checked += 1
    watcher.send({"type": "act", "action": 32})
    assert watcher.until(lambda x: x["type"] == "error")["code"] == "not_your_seat"
    assert get(server.url + "/api/tables")[1]["tables"][0]["spectators"] == 1
    hidden = new_room(server, ["me"] + BOTS)
    assert Client(server.url, hidden["room"], "", spectate=True).recv()["code"] == "not_listed"


# ---------------------------------------------------------------------------------------- R10.4
def test_a_restarted_server_resumes_a_doubled_hand_its_clocks_and_the_turn(tmp_path):
    db = tmp_path / "table.sqlite"
    clock = FakeClock()
    with serve(create_app(db, clock=clock, default_agent="heuristic")) as s:
        room = new_room(s, ["me", "invite", "invite", "invite"])
        tokens = {0: room["token"]}
        for seat in (1, 2, 3):
            r = join(s, room, seat=seat)
            tokens[r["seat"]] = r["token"]
        clients = {seat: Client(s.url, room["room"], t) for seat, t in tokens.items()}

        def step(action_of):
            m = clients[0].until(state(lambda x: x["to_act"] >= 0))
            seat = m["to_act"]
            mine = clients[seat].until(my_turn(seat))
            clients[seat].send({"type": "act", "action": action_of(mine)})
            clients[0].until(state(lambda x, p=mine["ply"]: x["ply"] > p))

        turned = clients[0].until(state(lambda x: x["phase"] == "bidding"))["turned"]
        step(lambda m: HOKUM_BASE + "SHDC".index(turned[1]))  # R3.1: hokum in the turned suit
        for _ in range(3):
            step(lambda m: PASS)
        step(lambda m: DOUBLE)  # R4: a defender doubles
        for _ in range(2):
            step(lambda m: PASS)
        step(lambda m: m["legal"][0]["id"])  # the first card of the play
        m = clients[0].until(state(lambda x: x["phase"] == "play" and x["level"] == 2))
        clock.advance(7.25)
        hub_room = s.app.state.hub.rooms[room["room"]]
        expect = {"ply": hub_room.ply, "to_act": hub_room.table.to_act, "left": 30 - 7.25, "trick": m["trick"]}
        for c in clients.values():
            c.close()
    restarted = FakeClock(start=123_456.0)  # a new process: its clock has nothing to do with the old one
    with serve(create_app(db, clock=restarted, default_agent="heuristic")) as s:
        me = Client(s.url, room["room"], tokens[0])
        m = me.until(state())
        assert m["level"] == 2 and m["contract"] == "hokum" and m["phase"] == "play"
        assert m["ply"] == expect["ply"] and m["to_act"] == expect["to_act"] and m["trick"] == expect["trick"]
        assert m["clock"]["seat"] == expect["to_act"] and m["clock"]["left"] == pytest.approx(expect["left"])
        seat = expect["to_act"]
        player = Client(s.url, room["room"], tokens[seat])
        mine = player.until(my_turn(seat))
        player.send({"type": "act", "action": mine["legal"][0]["id"]})
        assert player.until(state(lambda x: x["ply"] == expect["ply"] + 1))


# ---------------------------------------------------------------------------------------- replays
def test_finished_hands_are_stored_and_replayed_for_the_tables_players(server):
    room = new_room(server, ["me"] + BOTS)
    me = Client(server.url, room["room"], room["token"])
    me.send({"type": "leave"})  # the bots finish the match quickly
    me.until(state(lambda x: x["match_result"] is not None), timeout=60)
    status, listing = get(f"{server.url}/api/rooms/{room['room']}/hands?token={room['token']}")
    assert status == 200 and len(listing["hands"]) >= 2
    first = listing["hands"][0]
    status, r = get(f"{server.url}/api/hands/{first['id']}?view=all&token={room['token']}")
    assert status == 200 and len(r["frames"]) == first["actions"] + 1
    assert r["frames"][-1]["result"] == first["result"]
    assert get(f"{server.url}/api/hands/{first['id']}?view=all")[0] == 403  # not without the table's token
    assert get(f"{server.url}/api/rooms/{room['room']}/hands")[0] == 403
    assert get(f"{server.url}/api/hands/{first['id']}?view=5&token={room['token']}")[0] == 400


def test_requests_out_of_range_are_422_in_words_and_the_server_stays_up(server):
    """Numbers SQLite or JSON cannot hold (a 30-digit id, NaN, 1e400) are refused as 422 with
    ``{"error": ...}`` naming the field, never an HTTP 500; a 9 KB WebSocket address is answered
    at once; the server serves the next request."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    status, r = get(f"{server.url}/api/hands/{10**29}?view=all")
    assert status == 422 and "hand_id" in r["error"], r
    for delay in (float("nan"), float("inf")):
        status, r = post(server.url + "/api/rooms", {"seats": ["me"] + BOTS, "bot_delay": delay})
        assert status == 422 and "bot_delay" in r["error"] and "finite" in r["error"], r
    for gather in (-1, 11, float("nan")):
        status, r = post(server.url + "/api/rooms", {"seats": ["me"] + BOTS, "gather": gather})
        assert status == 422 and "gather" in r["error"], r
    status, sheet = post(server.url + "/api/sheets", {})
    assert status == 200, sheet
    status, r = post(f"{server.url}/api/sheets/{sheet['id']}/rows/{10**29}", None, "DELETE")
    assert status == 422 and "row_id" in r["error"], r
    t0 = time.monotonic()
    with pytest.raises(InvalidStatus, match="414"):
        connect(f"ws://{server.url.split('://', 1)[1]}/ws/x?token={'a' * 9000}", open_timeout=10)
    assert time.monotonic() - t0 < 5
    new_room(server, ["me"] + BOTS)


def test_a_rematch_needs_a_players_token_and_a_finished_match(server):
    room = new_room(server, ["me"] + BOTS)
    url = f"{server.url}/api/rooms/{room['room']}/rematch"
    status, r = post(url, {"token": "not-a-seat"})
    assert status == 403 and "seat" in r["error"]
    status, r = post(url, {"token": room["token"]})
    assert status == 409 and "not over" in r["error"]
    status, r = post(f"{server.url}/api/rooms/nosuch/rematch", {"token": room["token"]})
    assert status == 404
    assert len(server.app.state.hub.rooms) == 1  # no table was made


def test_a_table_with_a_search_bot_warms_it_once_and_fast_bots_need_no_warming(server):
    """Issue 49, goal 4: opening a table starts its slow bots' first decisions (a bid and a card
    with a choice, ``hub.warm_views``) in a thread, once per agent, so the first person to wait
    on the bot does not wait for its compilation."""
    from baloot_env.hand import BIDDING, PLAY
    from table.hub import warm_views

    hub = server.app.state.hub
    new_room(server, ["me", "heuristic", "heuristic", "heuristic"])
    assert hub.warming == {}  # the heuristic answers in microseconds
    new_room(server, ["me", "search", "heuristic", "search"])
    thread = hub.warming["search"]
    new_room(server, ["me", "search", "random", "random"])
    assert hub.warming["search"] is thread  # once per agent
    thread.join(timeout=300)
    assert not thread.is_alive()
    views = warm_views()
    assert [v.phase for v in views] == [BIDDING, PLAY] and len(views[1].legal_actions) > 1


def test_a_bot_thinking_past_its_cap_is_answered_for_and_the_table_goes_on(tmp_path):
    """Issue 49, goal 4: a per-move cap keeps a bot inside the table's clock. A bot that sleeps
    longer than the cap is answered for by the fallback agent, whose legal move stands; a bot
    within the cap plays its own move."""
    import asyncio
    import threading
    import time as systime

    from agents.base import Agent
    from table.clocks import FakeClock
    from table.hub import Hub
    from table.room import Room, RoomConfig
    from table.seating import SeatSpec
    from table.store import Store

    class Sleepy(Agent):
        name = "sleepy"

        def __init__(self, pause: float):
            super().__init__(0)
            self.pause, self.calls = pause, 0

        def act(self, view):
            self.calls += 1
            systime.sleep(self.pause)
            return max(view.legal_actions)  # in the first bid "sun", which the heuristic does not call on this deal

    async def play(pause: float) -> tuple[list, Sleepy]:
        clock = FakeClock()
        hub = Hub(Store(tmp_path / f"t{pause}.sqlite"), clock, think_cap=0.3)
        sleepy = Sleepy(pause)
        hub.agents["sleepy"], hub.agent_locks["sleepy"] = sleepy, threading.Lock()
        config = RoomConfig(seats=tuple(SeatSpec("bot", "sleepy", f"b{i}") for i in range(4)), bot_delay=0)
        room = Room("r", config, clock.now())
        room.start(clock.now())
        hub.rooms[room.id] = room
        seat = room.table.to_act
        await hub._auto(room, seat, "bot")
        return room.table.hand.history[:1], sleepy

    (slow_move,), slow = asyncio.run(play(1.0))
    (fast_move,), fast = asyncio.run(play(0.0))
    assert slow.calls == fast.calls == 1
    assert fast_move == 37  # its own move: sun
    assert slow_move != 37  # the fallback's move, made within the cap


def test_each_invitation_is_for_one_seat_and_says_what_it_offers(server):
    """Issue 49: one link per invited seat, so the partner can be invited apart from the
    opponents; the invitation's page learns the seat, the host, the rules and the clock."""
    room = new_room(server, ["me", "invite", "invite", "invite"], rules={"sun_double": True}, tempo="fast")
    assert [i["seat"] for i in room["invites"]] == [2, 1, 3]  # the partner's first
    assert len({i["url"] for i in room["invites"]}) == 3 and room["invite_url"] == room["invites"][0]["url"]
    status, info = post(f"{server.url}/api/rooms/{room['room']}/invitation", {"invite": invite_of(room, 2)})
    assert status == 200 and info["seat"] == 2 and info["host"] == "You"
    assert info["rules"]["sun_double"] is True and info["tempo"] == {"name": "fast", "card": 15.0, "call": 25.0}
    status, _ = post(f"{server.url}/api/rooms/{room['room']}/invitation", {"invite": "guessed"})
    assert status == 403
    assert join(server, room, "Partner", seat=2)["seat"] == 2
    status, _ = post(f"{server.url}/api/rooms/{room['room']}/invitation", {"invite": invite_of(room, 2)})
    assert status == 409  # used: its seat is taken; the other two still seat their own people
    assert [join(server, room, n, seat=k)["seat"] for n, k in (("Left", 3), ("Right", 1))] == [3, 1]
