"""The Ray executor of duplicate evaluation: the deals as Ray tasks across a cluster
(``run_duplicate(..., ray=ADDRESS)``, ``python -m eval --ray``).

``eval.runner.run_duplicate`` cuts the work (``plan_tasks``) and puts the results together;
this module only plays the tasks, each with ``runner.play_task`` (every hand seeded from
(seed, deal index, team)). So the report (``eval.report.summarize``) is the local run's, figure
for figure, however many machines play (``tests/eval/test_ray_eval.py``); only its ``seconds`` differ.

A cluster's machines do not share this one's files, so the agents travel with the tasks: a
policy bundle as its two files (verified again by ``load_policy`` where it is loaded), an agent
spec file as its content (a ``split`` agent's parts too); rule agents by name. Each Ray worker
process builds the agents of an evaluation once and keeps them for its next tasks; torch runs
on ``torch_threads`` threads in it (1 by default, as in the local runner).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

from agents.registry import AGENTS, SB3_PREFIX, SPEC_PARAMS, load_spec_file, make_agent, resolve_spec
from baloot_cli import InputError, one_line
from baloot_env.deal import parse_deal
from baloot_env.rules import RuleConfig
from eval.runner import Task, _units, play_task

SPEC_DIR = "baloot-ray-agents"  # under the worker's temp folder: agents materialised from their bytes
_AGENTS: dict[tuple[str, int], Any] = {}  # per worker process: (packed spec digest, seed) -> agent


class RayUnavailableError(ValueError):
    """``--ray`` without Ray installed."""


def require_ray() -> Any:
    """The ``ray`` module; ``RayUnavailableError`` when the scale extra is not installed."""
    try:
        # optional dependency: ray (the scale extra)
        import ray
    except ImportError:
        raise RayUnavailableError('--ray needs Ray: pip install -e ".[scale]"') from None
    return ray


def check_ray_address(address: str, flag: str, timeout: float = 3.0) -> None:
    """``address`` names a Ray cluster that can be reached, checked before any work: ``local``
    (a private Ray) and ``auto`` (Ray finds a running one, or says at once that none runs) are
    Ray's own; ``HOST:PORT`` or ``ray://HOST:PORT`` must accept a connection within ``timeout``
    seconds, since Ray itself retries an address where nothing listens for minutes.

    Raises:
        InputError: naming ``flag``, the address and why.
    """
    if address in ("local", "auto"):
        return
    hostport = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"{flag} {address!r}: an address is auto, HOST:PORT or ray://HOST:PORT")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as conn:
            speaks = _speaks_grpc(conn)
    except OSError as e:
        raise InputError(
            f"{flag} {address!r}: nothing answers at {host}:{port} ({e.strerror or str(e) or type(e).__name__}); "
            "start the cluster there (ray start --head) or leave the address out for a private local Ray"
        ) from None
    if not speaks:  # Ray would retry such a server for ever
        raise InputError(
            f"{flag} {address!r}: what listens at {host}:{port} is not Ray (it does not answer in Ray's gRPC "
            "protocol); give the address of the cluster's head (ray start --head prints it)"
        )


HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HTTP2_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # an empty SETTINGS frame
SETTINGS_TYPE = 0x04


def _speaks_grpc(conn: socket.socket) -> bool:
    """Whether the server on ``conn`` answers an HTTP/2 connection preface (what every gRPC
    server, Ray's head among them, does first) with a SETTINGS frame: a web server, the
    table's own port for one, answers otherwise or not at all (within the socket's timeout)."""
    try:
        conn.sendall(HTTP2_PREFACE + HTTP2_SETTINGS)
        head = b""
        while len(head) < 9:
            chunk = conn.recv(9 - len(head))
            if not chunk:
                return False
            head += chunk
    except OSError:  # a timeout or a reset: no gRPC server
        return False
    return head[3] == SETTINGS_TYPE


# Ray's start-up notices that say nothing to a user of a private local Ray or of this code: token
# authentication being on (it stays on), RLlib's "new API stack" default (the one we use), its
# RLModule(config=...) shim (called by RLlib itself) and "install gputil" (no GPU is used).
QUIET_RAY_LOGGERS = (
    "ray._private.authentication.authentication_token_setup",
    "ray.rllib.algorithms.algorithm_config",
    "ray._common.deprecation",
    "ray.tune.utils.util",
)


def quiet_ray_notices() -> None:
    """Raise ``QUIET_RAY_LOGGERS`` to errors only (warnings of other Ray loggers still show)."""
    for name in QUIET_RAY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


def start_local_ray(num_cpus: int, object_store_mb: int) -> None:
    """A Ray of this machine only, quiet (no dashboard, no worker logs to the driver, no start-up
    notices: ``quiet_ray_notices``), with ``num_cpus`` CPUs and an object store of
    ``object_store_mb`` MiB; used by training (``train.rllib.algorithm.connect_ray``), the tests
    and the benchmarks."""
    quiet_ray_notices()
    require_ray().init(
        address="local",
        num_cpus=num_cpus,
        object_store_memory=object_store_mb * 2**20,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.WARNING,
    )


def pack_spec(spec: str) -> dict[str, Any]:
    """An agent spec as data a machine without this one's files can rebuild (module docstring).

    Raises:
        AgentSpecError: an unknown name, or a missing or corrupt file or bundle.
    """
    resolved = resolve_spec(spec)
    if spec in AGENTS:
        return {"kind": "name", "spec": spec}
    if resolved["agent"] == "sb3":
        path = Path(resolved["path"])
        return {"kind": "sb3", "name": path.name or "model.zip", "data": path.read_bytes()}
    if resolved["agent"] == "policy":
        # needs torch (the train extra): imported only when a network is used
        from agents.neural.bundle import MANIFEST, WEIGHTS

        folder = Path(resolved["path"])
        files = {name: (folder / name).read_bytes() for name in (MANIFEST, WEIGHTS)}
        return {"kind": "bundle", "name": folder.name or "bundle", "files": files}
    data = load_spec_file(spec)
    names = SPEC_PARAMS.get(data["agent"], ())  # params that name agents travel packed too
    params = {k: pack_spec(v) if k in names and v else v for k, v in data["params"].items()}
    return {"kind": "file", "name": Path(spec).name, "agent": data["agent"], "params": params}


def _digest(packed: dict[str, Any]) -> str:
    h = hashlib.sha256()

    def feed(x: Any) -> None:
        if isinstance(x, dict):
            for k in sorted(x):
                h.update(k.encode())
                feed(x[k])
        elif isinstance(x, bytes):
            h.update(x)
        else:
            h.update(json.dumps(x, sort_keys=True).encode())

    feed(packed)
    return h.hexdigest()[:16]


def unpack_spec(packed: dict[str, Any], root: Path | None = None) -> str:
    """The spec ``make_agent`` takes on this machine for ``pack_spec``'s data (files written under
    ``root``, by default the temp folder, in a folder named by the data's digest)."""
    if packed["kind"] == "name":
        return str(packed["spec"])
    root = Path(root or tempfile.gettempdir()) / SPEC_DIR / _digest(packed)
    path = root / packed["name"]
    if packed["kind"] == "bundle":
        if not path.is_dir():
            tmp = root / f".{packed['name']}.{os.getpid()}"
            tmp.mkdir(parents=True, exist_ok=True)
            for name, data in packed["files"].items():
                (tmp / name).write_bytes(data)
            try:
                tmp.rename(path)  # another worker of this machine may have been first: either copy will do
            except OSError:
                pass
        return str(path)
    if packed["kind"] == "sb3":
        if not path.is_file():
            root.mkdir(parents=True, exist_ok=True)
            tmp = root / f".{packed['name']}.{os.getpid()}"
            tmp.write_bytes(packed["data"])
            tmp.replace(path)
        return SB3_PREFIX + str(path)
    names = SPEC_PARAMS.get(packed["agent"], ())
    params = {k: unpack_spec(v, root.parent.parent) if k in names and v else v for k, v in packed["params"].items()}
    if not path.is_file():
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f".{packed['name']}.{os.getpid()}"
        tmp.write_text(json.dumps({"agent": packed["agent"], "params": params}), encoding="utf-8")
        tmp.replace(path)
    return str(path)


def _agent(packed: dict[str, Any], seed: int) -> Any:
    key = (_digest(packed), seed)
    if key not in _AGENTS:
        _AGENTS[key] = make_agent(unpack_spec(packed), seed)
    return _AGENTS[key]


def _play_remote(
    a: dict[str, Any],
    b: dict[str, Any],
    deals: list[dict[str, Any]],
    seed: int,
    rules: RuleConfig,
    torch_threads: int,
    task: Task,
) -> tuple[Task, Any]:
    """One task of ``runner.plan_tasks``, played where Ray puts it: ``(task, result)``."""
    agent_a, agent_b = _agent(a, seed), _agent(b, seed)
    torch = sys.modules.get("torch")  # loaded only by a policy's agent
    if torch is not None:
        torch.set_num_threads(torch_threads)
    return task, play_task(task, agent_a, agent_b, tuple(parse_deal(d) for d in deals), seed, rules)


def run_tasks(
    tasks: list[Task],
    spec_a: str,
    spec_b: str,
    deals: list[dict[str, Any]],
    seed: int,
    rules: RuleConfig,
    torch_threads: int,
    bar: Any,
    *,
    address: str = "local",
    num_cpus: int | None = None,
) -> dict[Task, Any]:
    """The Ray executor of ``eval.runner.run_duplicate``: every task's result, by task.

    Args:
        address: "local" starts a private Ray on this machine with ``num_cpus`` CPUs (shut down
            at the end); "auto" or HOST:PORT joins a running cluster. A Ray already initialised
            in this process is used as it is.
        bar: the runner's progress bar, told of every finished task.

    Raises:
        RayUnavailableError: Ray is not installed.
    """
    ray = require_ray()
    packed_a, packed_b = pack_spec(spec_a), pack_spec(spec_b)
    started = False
    if not ray.is_initialized():
        local = {"num_cpus": num_cpus} if address == "local" else {}
        quiet_ray_notices()
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="warning", **local)
        except ConnectionError as e:  # no cluster at that address (auto: none running)
            raise InputError(f"--ray {address!r}: {one_line(e)}") from None
        started = True
    try:
        remote = ray.remote(num_cpus=1)(_play_remote)
        shared = [ray.put(x) for x in (packed_a, packed_b, deals)]
        pending = [remote.remote(*shared, seed, rules, torch_threads, t) for t in tasks]
        results: dict[Task, Any] = {}
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            key, value = ray.get(done[0])
            results[tuple(key)] = value
            bar.update(_units(tuple(key)))
    finally:
        if started:
            ray.shutdown()
    return results
