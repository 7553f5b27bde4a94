"""The server's live side: rooms, their connections, and the moves nobody has to wait for.

A ``Hub`` keeps every live ``Room`` (``table.room``) of one server, the WebSocket connections
of each seat and watcher, and one task per room that makes the moves a person does not make:
a bot's move, a move on timeout (R10.2), the seat of a player on autopilot, away or gone
(R10.3). Agents come from ``agents.registry.make_agent``, one instance per spec shared by all
rooms; a slow agent (``search``) thinks in a worker thread, so the event loop keeps serving
the other tables. After every change the room is saved (``table.store``: R10.4, every finished
hand) and each connection is sent what its seat may see (``table.views``).

All room changes happen on the event loop's thread, so rooms need no locks; an agent thinking in
a thread gets a ``PlayerView`` (a snapshot) and its answer is applied only if the room has not
moved on meanwhile (``Room.apply_auto``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import threading
from typing import Any

from agents.base import Agent
from agents.registry import make_agent
from agents.rule_based.heuristic import HeuristicAgent
from baloot_env.cards import NUM_SEATS
from baloot_env.deal import random_deal
from baloot_env.errors import IllegalActionError
from baloot_env.hand import BIDDING, PLAY, HandState
from baloot_env.view import PlayerView
from baloot_io.reading import parse_json
from table.clocks import Clock
from table.room import Refused, Room, RoomConfig
from table.store import Store
from table.views import all_message, public_message, view_message

log = logging.getLogger("baloot.table")
MAX_MESSAGE = 2048  # bytes: every client message is far smaller (an action id)
QUEUE_LIMIT = 512  # messages waiting for a slow client before it is dropped
FAST_AGENTS = ("random", "heuristic")
FALLBACK_AGENT = "heuristic"  # moves for a bot that thinks past its cap (Hub, think_cap)
MIN_THINK = 1.0  # seconds a bot may think even when its turn's clock has run down (a restart)
HEARTBEAT_SECONDS = 0.5  # real seconds between the server's heartbeats (R10.4: a crash gives a clock back at most this)


WARM_SEED = 7  # the seeded hand whose decisions warm a slow agent


def warm_views() -> list[PlayerView]:
    """A bid, then a card decision with a choice, of one seeded hand of ``heuristic`` players:
    the calls and the card play a slow agent compiles on its first moves."""
    agents = [HeuristicAgent(s) for s in range(NUM_SEATS)]
    state = HandState(random_deal(random.Random(WARM_SEED)))
    out: list[PlayerView] = []
    while state.result is None and len(out) < 2:
        view = PlayerView.from_state(state, state.to_act)
        if (not out and state.phase == BIDDING) or (out and state.phase == PLAY and len(view.legal_actions) > 1):
            out.append(view)
        state.apply(agents[state.to_act].act(view))
    return out


SAVED_WALL = "saved_wall"  # a room's saved state: the wall time of the save (``ran_after_save``)


def ran_after_save(data: dict[str, Any], beat: float | None) -> float:
    """Seconds a saved room's clocks ran after its save: up to the server's last heartbeat
    (0 when either time is missing, or the save came after the beat)."""
    saved = data.get(SAVED_WALL)
    if beat is None or not isinstance(saved, (int, float)):
        return 0.0
    return max(0.0, beat - float(saved))


class Conn:
    """One WebSocket: a seat's (``seat`` 0-3) or a watcher's (``seat`` None)."""

    def __init__(self, ws: Any, room: Room, seat: int | None):
        self.ws, self.room, self.seat = ws, room, seat
        self.queue: asyncio.Queue[str] = asyncio.Queue(QUEUE_LIMIT)
        self.closed_page = False  # the client said it is closing (R10.3: the 10 s hold)
        self.task: asyncio.Task[Any] | None = None
        self.dead = False

    def push(self, message: dict[str, Any]) -> None:
        if self.dead:
            return
        try:
            self.queue.put_nowait(json.dumps(message, separators=(",", ":")))
        except asyncio.QueueFull:  # a client this far behind is gone; it reconnects and gets the state
            log.warning("room %s seat %s: client too slow, dropping it", self.room.id, self.seat)
            self.dead = True
            asyncio.get_running_loop().create_task(self._close())

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(4008)

    async def writer(self) -> None:
        while True:
            text = await self.queue.get()
            try:
                await self.ws.send_text(text)
            except Exception:  # the socket is gone: its reader ends the connection
                return


class Hub:
    """Live rooms of one server (module docstring).

    Args:
        store: the database.
        clock: where time comes from (``SystemClock``, or ``FakeClock`` in tests).
        think_cap: seconds a bot may think over one move; None (the default): what is left of
            the turn's clock, the time a person would have. A bot still thinking then is answered
            for by ``FALLBACK_AGENT`` (its move stands), so no bot holds a table past its clock.
    """

    def __init__(self, store: Store, clock: Clock, think_cap: float | None = None):
        self.store, self.clock = store, clock
        self.think_cap = think_cap
        self.rooms: dict[str, Room] = {}
        self.conns: dict[str, list[Conn]] = {}
        self.pokes: dict[str, asyncio.Event] = {}
        self.tasks: dict[str, asyncio.Task[Any]] = {}
        self.heartbeat: asyncio.Task[Any] | None = None
        self.agents: dict[str, Agent] = {}
        self.agent_locks: dict[str, threading.Lock] = {}
        self.warming: dict[str, threading.Thread] = {}  # by spec: the thread that warms a slow agent
        self.moves = 0  # moves applied by this hub (the load test reads it)
        self.running = False
        self.loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        """Resume every unfinished room of the database (R10.4), then serve.

        A room's clocks resume as they stood when the server was last known running (its last
        heartbeat), not at its last save: a turn clock that ran for 8 s after its turn began
        (and the save that came with it) and then the server died has 8 s less, and the time
        the server was down costs nobody anything."""
        self.running = True
        self.loop = asyncio.get_running_loop()
        now = self.clock.now()
        beat = self.store.last_beat()
        for data in self.store.live_rooms():
            try:
                room = Room.from_data(data, now - ran_after_save(data, beat))
            except (KeyError, TypeError, ValueError) as e:
                log.error("room %s cannot be resumed: %s", data.get("id"), e)
                continue
            room.persons_connected_lost(now)
            self._add(room)
            self._save(room, now)  # saved again at this process's time: the next heartbeats count from here
        self.store.beat(self.clock.wall())
        self.heartbeat = asyncio.get_running_loop().create_task(self._heartbeat())

    async def _heartbeat(self) -> None:
        while self.running:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            self.store.beat(self.clock.wall())

    async def stop(self) -> None:
        """Stop every room's task and save each room as it stands (its clocks included)."""
        self.running = False
        tasks = [*self.tasks.values(), *([self.heartbeat] if self.heartbeat else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        now = self.clock.now()
        for room in self.rooms.values():
            self._save(room, now)
        self.store.beat(self.clock.wall())  # stopped now: the saves above lose no time
        for conns in self.conns.values():
            for c in conns:
                if c.task is not None:
                    c.task.cancel()

    def agent(self, spec: str) -> Agent:
        """The shared agent for ``spec`` (loaded once; a bundle is verified when loaded)."""
        if spec not in self.agents:
            self.agents[spec] = make_agent(spec, 0)
            self.agent_locks[spec] = threading.Lock()
        return self.agents[spec]

    def warm(self, spec: str) -> None:
        """Start the agent's first decisions in a thread, once per spec, when a table opens: a
        search's first call compiles its kernels (tens of seconds on a busy machine), which
        would otherwise fall on the first person who waits for the bot."""
        if spec in FAST_AGENTS or spec in self.warming:
            return
        agent, lock = self.agents[spec], self.agent_locks[spec]

        def run() -> None:
            with lock:  # a real move waits for the warm-up, then finds the kernels ready
                for view in warm_views():
                    try:
                        agent.act(view)
                    except Exception as e:  # a broken agent is reported when it plays, not here
                        log.warning("agent %s failed while warming up: %s", spec, e)
                        return

        self.warming[spec] = threading.Thread(target=run, name=f"warm {spec}", daemon=True)
        self.warming[spec].start()

    # ------------------------------------------------------------------ rooms
    def create(self, config: RoomConfig, creator: int | None) -> tuple[Room, dict[str, str]]:
        """A new room; returns it and its tokens: ``seat`` (the creator's), ``invite-S`` for each
        seat S left for someone else (an invitation of its own), ``watch`` (a table without
        persons)."""
        for seat in config.seats:
            self.agent(seat.agent)  # load (and verify) every agent before the room exists
            self.warm(seat.agent)
        room_id = secrets.token_urlsafe(9)
        now = self.clock.now()
        room = Room(room_id, config, now)
        tokens: dict[str, str] = {}
        if creator is not None:
            tokens["seat"] = room.issue_token(creator)
        for invited, token in room.issue_invites().items():
            tokens[f"invite-{invited}"] = token
        if not config.persons:
            tokens["watch"] = room.issue_watch()
        if not room.open_seats():
            room.start(now)
        self._save(room, now, seats=True)
        self._add(room)
        return room, tokens

    def _add(self, room: Room) -> None:
        self.rooms[room.id] = room
        self.conns.setdefault(room.id, [])
        self.pokes[room.id] = asyncio.Event()
        self.tasks[room.id] = asyncio.get_running_loop().create_task(self._run(room))

    def _save(self, room: Room, now: float, seats: bool = False) -> None:
        for hand in room.pop_finished_hands():
            self.store.add_hand(hand, "live")
        seat_rows = None
        if seats:
            seat_rows = [{**s.to_dict(), "name": room.names[i]} for i, s in enumerate(room.config.seats)]
        state = {**room.to_data(now), SAVED_WALL: self.clock.wall()}
        self.store.save_room(room.id, state, room.over, seat_rows)

    def changed(self, room: Room, seats: bool = False) -> None:
        """Save the room, send every connection its view, and wake the room's task."""
        now = self.clock.now()
        self._save(room, now, seats)
        self.broadcast(room, now)
        poke = self.pokes.get(room.id)
        if poke is not None:
            poke.set()

    # ------------------------------------------------------------------ what clients see
    def message(self, room: Room, seat: int | None, now: float) -> dict[str, Any]:
        """The state message for a seat (its ``PlayerView`` only) or for a watcher: every hand at a
        table of bots, what the whole table sees at a listed table where people play."""
        msg: dict[str, Any] = {"type": "state", **room.room_info(now)}
        hand = room.shown_hand  # the finished hand while its last trick lies on the table
        if hand is None:
            msg["seat"] = seat
            msg["phase"] = "waiting"
        elif seat is None and not room.config.persons:
            msg.update(all_message(hand, room.table.context))
        elif seat is None:  # a spectator of a listed table where people play
            msg.update(public_message(hand, room.table.context))
        else:
            msg.update(view_message(PlayerView.from_state(hand, seat, room.table.context)))
        if seat is not None:  # the seat open in several tabs: each of them says so
            msg["tabs"] = sum(c.seat == seat for c in self.conns.get(room.id, ()))
        if room.gathering:
            msg["legal"] = []  # nobody acts while a finished trick lies on the table
        return msg

    def broadcast(self, room: Room, now: float) -> None:
        cache: dict[int | None, dict[str, Any]] = {}
        for conn in self.conns.get(room.id, ()):
            if conn.seat not in cache:
                cache[conn.seat] = self.message(room, conn.seat, now)
            conn.push(cache[conn.seat])

    # ------------------------------------------------------------------ connections
    def attach(self, room: Room, seat: int | None, ws: Any) -> Conn:
        conn = Conn(ws, room, seat)
        first = seat is not None and not any(c.seat == seat for c in self.conns[room.id])
        self.conns[room.id].append(conn)
        conn.task = asyncio.get_running_loop().create_task(conn.writer())
        if first and seat is not None:
            room.connected(seat, self.clock.now())
            self.changed(room)
        elif seat is not None:
            self.broadcast(room, self.clock.now())  # the seat's other tabs learn of this one
        else:
            conn.push(self.message(room, seat, self.clock.now()))
        return conn

    def detach(self, conn: Conn, closed: bool = False) -> None:
        conns = self.conns.get(conn.room.id, [])
        if conn in conns:
            conns.remove(conn)
        if conn.task is not None:
            conn.task.cancel()
        room = conn.room
        if conn.seat is not None and self.running and not any(c.seat == conn.seat for c in conns):
            room.disconnected(conn.seat, self.clock.now(), closed or conn.closed_page)  # R10.3
            self.changed(room)
        elif conn.seat is not None and self.running:
            self.broadcast(room, self.clock.now())  # one tab fewer on the seat

    def receive(self, conn: Conn, text: str | bytes | None) -> None:
        """One message from a seat's client: applied, or refused with a clear message."""
        try:
            if text is None or len(text) > MAX_MESSAGE:
                raise Refused("too_large", f"a message is at most {MAX_MESSAGE} bytes")
            if conn.seat is None:
                raise Refused("not_your_seat", "a watcher cannot act")
            try:  # deep nesting and huge numbers too: a refusal, never an exception that drops the socket
                message = parse_json(text.decode() if isinstance(text, bytes) else text, "a message")
            except (ValueError, UnicodeDecodeError):  # InputFileError is a ValueError
                raise Refused("malformed", "a message is a JSON object") from None
            done = conn.room.handle(conn.seat, message, self.clock.now())
        except Refused as e:
            conn.push({"type": "error", "code": e.code, "message": str(e)})
            return
        if done == "pong":
            conn.push({"type": "pong"})
        elif done == "bye":
            conn.closed_page = True
        else:
            if done == "acted":
                self.moves += 1
            self.changed(conn.room)

    # ------------------------------------------------------------------ moves by themselves
    async def _run(self, room: Room) -> None:
        poke = self.pokes[room.id]
        while self.running:
            poke.clear()
            now = self.clock.now()
            if room.tick(now):
                self.changed(room)
            due = room.auto_due(now)
            if due is not None:
                await self._auto(room, *due)
                await asyncio.sleep(0)  # a fast bot answers without awaiting: let the clients be served
                continue
            if room.over:
                return
            wake = room.next_wakeup()
            timeout = self.clock.poll
            if wake is not None:
                timeout = min(timeout, max(0.0, wake - now))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(poke.wait(), timeout)

    async def _auto(self, room: Room, seat: int, reason: str) -> None:
        """Ask the seat's agent (the bot, or the person's stand-in) and apply its move."""
        ply = room.ply
        view = PlayerView.from_table(room.table, seat)
        spec = room.agent_spec(seat)
        try:
            agent = self.agent(spec)
            if spec in FAST_AGENTS:
                action = agent.act(view)
            else:
                left = room.club.remaining(self.clock.now())
                cap = self.think_cap if self.think_cap is not None else max(MIN_THINK, left or 0.0)
                try:
                    action = await asyncio.wait_for(asyncio.to_thread(self._think, spec, agent, view), cap)
                except TimeoutError:  # the thread finishes on its own; its answer is dropped
                    log.warning(
                        "room %s seat %d: %s thought past %.1f s; %s moves",
                        room.id,
                        seat,
                        spec,
                        cap or 0,
                        FALLBACK_AGENT,
                    )
                    action = self.agent(FALLBACK_AGENT).act(view)
        except Exception as e:  # a broken agent must not stop the table
            log.error("room %s seat %d: agent %s failed (%s); playing the first legal move", room.id, seat, spec, e)
            action = view.legal_actions[0]
        try:
            applied = room.apply_auto(seat, action, reason, ply, self.clock.now())
        except IllegalActionError as e:
            log.error("room %s seat %d: agent %s chose an illegal action: %s", room.id, seat, spec, e)
            applied = room.apply_auto(seat, view.legal_actions[0], reason, ply, self.clock.now())
        if applied:
            self.moves += 1
            self.changed(room)

    def _think(self, spec: str, agent: Agent, view: PlayerView) -> int:
        with self.agent_locks[spec]:  # one agent instance serves every room: one call at a time
            return agent.act(view)
