"""Duplicate evaluation with the deals as Ray tasks across a cluster (``python -m eval --ray``).

The work is cut exactly as ``eval.runner.run_duplicate`` cuts it (the two match chains, then
chunks of ``CHUNK`` deals) and every task plays its deals with ``eval.duplicate``'s functions,
each hand seeded from (seed, deal index, team); the results are put together in the same order
into the same ``RunResult``. So the report (``eval.report.summarize``) is the local run's, figure
for figure, however many machines play (``tests/test_ray_eval.py``); only its ``seconds`` differ.

A cluster's machines do not share this one's files, so the agents travel with the tasks: a
policy bundle as its two files (verified again by ``load_policy`` where it is loaded), an agent
spec file as its content (a ``split`` agent's parts too); rule agents by name. Each Ray worker
process builds the agents of an evaluation once and keeps them for its next tasks; torch runs
on ``torch_threads`` threads in it (1 by default, as in the local runner).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agents.registry import AGENTS, load_spec_file, make_agent, resolve_spec
from baloot_env.deal import parse_deal
from baloot_env.rules import RuleConfig
from eval.deals import DealSet
from eval.duplicate import play_deal, play_match_chain
from eval.runner import CHUNK, DEFAULT_TORCH_THREADS, RunResult, _Progress, _run_result, _units

SPEC_DIR = "baloot-ray-agents"  # under the worker's temp folder: agents materialised from their bytes
_AGENTS: dict[tuple[str, int], Any] = {}  # per worker process: (packed spec digest, seed) -> agent


class RayUnavailableError(ValueError):
    """``--ray`` without Ray installed."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailableError('--ray needs Ray: pip install -e ".[scale]"') from None
    return ray


def pack_spec(spec: str) -> dict[str, Any]:
    """An agent spec as data a machine without this one's files can rebuild (module docstring).

    Raises:
        AgentSpecError: an unknown name, or a missing or corrupt file or bundle.
    """
    resolved = resolve_spec(spec)
    if spec in AGENTS:
        return {"kind": "name", "spec": spec}
    if resolved["agent"] == "policy":
        from agents.bundle import MANIFEST, WEIGHTS

        folder = Path(resolved["path"])
        files = {name: (folder / name).read_bytes() for name in (MANIFEST, WEIGHTS)}
        return {"kind": "bundle", "name": folder.name or "bundle", "files": files}
    data = load_spec_file(spec)
    params = dict(data["params"])
    if data["agent"] == "split":
        params = {k: pack_spec(v) for k, v in params.items()}
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
        return packed["spec"]
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
    params = packed["params"]
    if packed["agent"] == "split":
        params = {k: unpack_spec(v, root.parent.parent) for k, v in params.items()}
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


def play_task(a: dict, b: dict, deals: list[dict], seed: int, rules: dict, torch_threads: int, task: tuple) -> tuple:
    """One task of ``run_duplicate``'s cut, played where Ray puts it: ``(task, result)``."""
    agent_a, agent_b = _agent(a, seed), _agent(b, seed)
    torch = sys.modules.get("torch")  # loaded only by a policy's agent
    if torch is not None:
        torch.set_num_threads(torch_threads)
    rule_config = RuleConfig.from_dict(rules)
    if task[0] == "deals":
        _, lo, hi = task
        return task, [play_deal(i, parse_deal(deals[i]), agent_a, agent_b, seed, rule_config) for i in range(lo, hi)]
    _, table, lo, hi = task
    chain = tuple(parse_deal(d) for d in deals[lo:hi])
    return task, play_match_chain(chain, agent_a, agent_b, table, seed, rule_config)


def run_duplicate_ray(
    spec_a: str,
    spec_b: str,
    deal_set: DealSet,
    *,
    address: str = "local",
    seed: int = 0,
    lo: int = 0,
    hi: int | None = None,
    matches: bool = True,
    progress: bool = False,
    rules: RuleConfig | None = None,
    torch_threads: int | None = None,
    num_cpus: int | None = None,
) -> RunResult:
    """``eval.runner.run_duplicate`` with the tasks on a Ray cluster (same arguments, same result).

    Args:
        address: "local" starts a private Ray on this machine with ``num_cpus`` CPUs (shut down
            at the end); "auto" or HOST:PORT joins a running cluster. A Ray already initialised
            in this process is used as it is.
        num_cpus: CPUs of a private local Ray (default: this machine's).

    Raises:
        RayUnavailableError: Ray is not installed.
        AgentSpecError: an agent spec is unknown or its file missing or corrupt.
        AgentError: an agent played an illegal action.
    """
    ray = _ray()
    packed_a, packed_b = pack_spec(spec_a), pack_spec(spec_b)  # checks both before Ray starts
    rules = rules or RuleConfig()
    hi = len(deal_set) if hi is None else hi
    if not 0 <= lo < hi <= len(deal_set):
        raise ValueError(f"deal range {lo}:{hi} is not inside the {len(deal_set)} deals of {deal_set.name!r}")
    threads = DEFAULT_TORCH_THREADS if torch_threads is None else torch_threads
    if threads < 1:
        raise ValueError(f"torch_threads must be >= 1, got {threads}")
    tasks: list[tuple] = [("chain", 0, lo, hi), ("chain", 1, lo, hi)] if matches else []
    tasks += [("deals", i, min(i + CHUNK, hi)) for i in range(lo, hi, CHUNK)]
    started = False
    if not ray.is_initialized():
        if address == "local":
            ray.init(
                address="local",
                num_cpus=num_cpus,
                include_dashboard=False,
                log_to_driver=False,
                logging_level="warning",
            )
        else:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="warning")
        started = True
    bar = _Progress(sum(_units(t) for t in tasks), progress, f"{spec_a} vs {spec_b} (ray)")
    t0 = time.perf_counter()
    try:
        remote = ray.remote(num_cpus=1)(play_task)
        shared = [ray.put(x) for x in (packed_a, packed_b, [d.to_dict() for d in deal_set.deals])]
        pending = [remote.remote(*shared, seed, rules.to_dict(), threads, t) for t in tasks]
        results: dict[tuple, Any] = {}
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            key, value = ray.get(done[0])
            results[tuple(key)] = value
            bar.update(_units(tuple(key)))
    finally:
        bar.close()
        if started:
            ray.shutdown()
    return _run_result(tasks, results, matches, lo, hi, t0)
