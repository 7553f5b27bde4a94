"""``python -m eval --ray`` (``run_duplicate(..., ray=...)``): the deals as Ray tasks give exactly the local report.

The Ray tests need the ``scale`` extra (``ray[rllib]``) and are skipped without it; one Ray with
2 CPUs serves the module and is shut down at its end. The message for a missing Ray is tested
with Ray hidden, so it runs in the default install too.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from eval.deals import load_named
from eval.ray_runner import start_local_ray
from eval.report import summarize
from eval.runner import run_duplicate

DEALS = 24  # enough for a match to 152 in each seating, whichever side wins (the champion's need 20-odd)
NEEDS_RAY = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason='the --ray evaluation needs the scale extra: pip install -e ".[scale]"',
)


@pytest.fixture(scope="module")
def ray_2cpus():
    ray = pytest.importorskip("ray", reason='the --ray evaluation needs the scale extra: pip install -e ".[scale]"')
    start_local_ray(2, 200)
    yield ray
    ray.shutdown()


def _report(run, a: str, b: str, ds, full) -> dict:
    rep = summarize(run, a, b, ds, full, 0, {})
    rep.pop("seconds")  # wall time: the one figure that may differ
    return rep


@NEEDS_RAY
@pytest.mark.parametrize("a, b", [("heuristic", "random"), ("policies/champion", "heuristic")])
def test_ray_report_equals_local_report(ray_2cpus, a, b):
    """Same deals, same seed: every record, every match and so every figure of the report are
    the local run's (the matches to 152 included)."""
    full = load_named("dev960")
    ds = full.head(DEALS)
    local = run_duplicate(a, b, ds, seed=5, workers=1)
    remote = run_duplicate(a, b, ds, seed=5, ray="local")  # the Ray of the fixture
    assert remote.records == local.records and remote.matches == local.matches
    assert remote.left_over == local.left_over
    assert _report(remote, a, b, ds, full) == _report(local, a, b, ds, full)
    assert local.matches  # the chains were played, so their equality means something


@NEEDS_RAY
def test_cli_ray_writes_the_local_report(ray_2cpus, tmp_path):
    from eval.__main__ import main

    common = ["--a", "policies/champion", "--b", "heuristic", "--deals", str(DEALS), "--quiet", "--seed", "3"]
    assert main([*common, "--ray", "--json", str(tmp_path / "ray.json"), "--png", str(tmp_path / "a.png")]) == 0
    assert main([*common, "--json", str(tmp_path / "local.json"), "--png", str(tmp_path / "b.png")]) == 0
    ray_rep, local_rep = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("ray", "local"))
    ray_rep.pop("seconds")
    local_rep.pop("seconds")
    assert ray_rep == local_rep
    assert ray_2cpus.is_initialized()  # a Ray it did not start is left running


@NEEDS_RAY
def test_agents_travel_as_bytes(tmp_path):
    """A bundle and a split spec file are rebuilt from their bytes elsewhere (another folder) and
    play exactly as the originals; the bundle is verified again where it lands."""
    from agents.registry import make_agent
    from eval.ray_runner import pack_spec, unpack_spec

    spec = tmp_path / "split.json"
    spec.write_text(json.dumps({"agent": "split", "params": {"bidding": "heuristic", "play": "policies/champion"}}))
    packed = pack_spec(str(spec))
    assert packed["params"]["play"]["kind"] == "bundle"
    where = unpack_spec(packed, tmp_path / "elsewhere")
    assert where.startswith(str(tmp_path / "elsewhere")) and unpack_spec(packed, tmp_path / "elsewhere") == where
    ds = load_named("dev960").head(4)
    a = run_duplicate(str(spec), "heuristic", ds, matches=False)
    b = run_duplicate(where, "heuristic", ds, matches=False)
    assert a.records == b.records
    assert make_agent(unpack_spec(pack_spec("policies/champion"), tmp_path / "x")).name


def test_ray_missing_is_one_line_exit_2(monkeypatch, capsys):
    from eval.__main__ import main

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as without the scale extra
    assert main(["--a", "heuristic", "--b", "random", "--deals", "2", "--ray"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == 'error: --ray needs Ray: pip install -e ".[scale]"'


@NEEDS_RAY
@pytest.mark.slow  # starts a private Ray in a fresh interpreter (about 20 s)
def test_a_private_local_ray_starts_without_notices():
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "eval", "--a", "heuristic", "--b", "random", "--deals", "8", "--ray", "--quiet"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "WARNING" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-2000:]


def test_an_address_where_something_other_than_ray_listens_is_refused_within_seconds():
    """Issue 46, goal 5: a web server (the table's port, say) or a silent one at HOST:PORT is
    refused in one line before any work, where Ray would retry it for ever; a gRPC server, as
    Ray's head is, passes the check."""
    import http.server
    import socket
    import socketserver
    import threading
    import time
    from concurrent import futures

    grpc = pytest.importorskip("grpc", reason="a gRPC server stands in for Ray's head (grpcio comes with ray)")
    from baloot_cli import InputError
    from eval.ray_runner import check_ray_address

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        check_ray_address(f"127.0.0.1:{port}", "--ray")
    finally:
        server.stop(0)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    web = socketserver.TCPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:
        for listening in (web.server_address[1], silent.getsockname()[1]):
            t0 = time.monotonic()
            with pytest.raises(InputError, match="is not Ray"):
                check_ray_address(f"127.0.0.1:{listening}", "--ray", timeout=2.0)
            assert time.monotonic() - t0 < 10
    finally:
        web.shutdown()
        silent.close()
