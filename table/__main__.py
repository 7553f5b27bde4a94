"""``python -m table``: serve the Baloot table in a browser (lobby, live tables, replays, score sheet).

Examples::

    python -m table                         # http://127.0.0.1:8000, the champion as opponents
    python -m table --port 8080 --db runs/club.sqlite --agent runs/demo/mine
    python -m table --db runs/eval_hands.sqlite   # and open /replay: hands saved by python -m eval
    python -m table export --db runs/table.sqlite --out runs/people.json   # people's games as data

Bad input (a port out of range, an unusable database path, an agent that cannot be loaded, a
``--league`` file that is not a league report) is reported in one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import webbrowser
from typing import Any

from agents.registry import AgentSpecError, make_agent
from baloot_cli import InputError, OneLineParser, check_database
from table.export import main as export_main
from table.leaderboard import DEFAULT_LEAGUE, LeaderboardError, read_league

WS_MAX_SIZE = 64 * 1024  # bytes: the protocol's limit on one WebSocket frame (the app's is 2 KiB)


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = OneLineParser(prog="python -m table", description="Play Baloot against the bots in a browser.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (1-65535, default 8000)")
    p.add_argument("--db", default="runs/table.sqlite", help="SQLite database of tables, hands and score sheets")
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="PATH",
        help="offer this policy bundle or agent file as an opponent too (repeatable)",
    )
    p.add_argument("--default", default="champion", help="the opponents' default agent (default: the shipped champion)")
    p.add_argument(
        "--league",
        default=None,
        metavar="FILE",
        help=f"the agents' ladder the leaderboard shows: a python -m eval league --json report (default {DEFAULT_LEAGUE})",
    )
    p.add_argument("--open", action="store_true", help="open the lobby in the default browser")
    return p.parse_args(argv)


def check(args: argparse.Namespace) -> None:
    """Refuse bad input before anything starts (raises InputError with one line)."""
    if not 1 <= args.port <= 65535:
        raise InputError(f"--port must be 1 to 65535, got {args.port}")
    check_database(args.db, "--db")
    check_listen(args.host, args.port)


def check_listen(host: str, port: int) -> None:
    """The server can listen at ``host``:``port``: the name resolves and the port is free, found
    before the database file is made (uvicorn would say so only after)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as e:
        raise InputError(f"--host {host!r} is not an address of this machine ({e})") from None
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            s.bind(address)
        except OSError as e:
            raise InputError(f"cannot listen at {host}:{port}: {e.strerror or e}") from None


def _default_league() -> dict[str, Any] | None:
    """The shipped ladder when this checkout has it (none is shown otherwise)."""
    return read_league(DEFAULT_LEAGUE) if DEFAULT_LEAGUE.is_file() else None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["export"]:
        return export_main(argv[1:])
    args = parse(argv)
    try:
        check(args)
        try:
            import uvicorn  # the table extra (uvicorn, fastapi): refused with one line when missing

            from table.server import agent_choices, create_app  # (fastapi)
        except ImportError as e:
            raise InputError(f"the table server needs its extra: pip install -e '.[table]' ({e})") from None
        try:
            choices = agent_choices(args.agent)
            if args.default not in choices:
                raise InputError(f"--default: default agent {args.default!r} is not one of {list(choices)}")
            for spec in {choices[args.default], *args.agent}:  # load (and verify) them before the database is made
                make_agent(spec, 0)
            league = read_league(args.league) if args.league is not None else _default_league()
            app = create_app(args.db, agents=args.agent, default_agent=args.default, league=league)
        except (AgentSpecError, LeaderboardError, ValueError, ImportError) as e:
            raise InputError(str(e).splitlines()[0]) from None
    except InputError as e:
        print(f"python -m table: error: {e}", file=sys.stderr)
        return 2
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}/"
    print(f"Baloot table: {url}  (database {args.db}; Ctrl-C stops, every table resumes on restart)", flush=True)
    if args.open:
        threading.Timer(1.0, webbrowser.open, (url,)).start()
    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=WS_MAX_SIZE, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
