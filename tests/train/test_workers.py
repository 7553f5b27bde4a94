"""Worker processes end with their parent (``baloot_io.processes.die_with_parent``): a parent
killed by SIGKILL or SIGTERM leaves no worker behind, for the labelling pool (``train.workers``),
the fit's helpers (``train.fitting.fit_labelled``), the evaluation's workers (``eval.runner``) and
PPO's learner processes (``train.learners``, a whole ``python -m train`` killed during PPO)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

POOL = """
import time
from train.workers import in_workers

list(in_workers(time.sleep, [120, 120, 120], 2))
"""

FIT = """
import torch
from agents.neural.network import BalootNet, NetSpec
from baloot_env.observation import OBS_SIZE
from train.config import ExpertConfig
from train.fitting import fit_labelled

torch.manual_seed(0)
net = BalootNet(NetSpec(trunk=(64,), head_hidden=16, value_hidden=(16,)))
n = 20_000
obs = torch.rand(n, OBS_SIZE).share_memory_()
masks = torch.ones(n, 42, dtype=torch.int8).share_memory_()
targets = torch.full((n, 42), 1 / 42).share_memory_()
values = torch.zeros(n).share_memory_()
cfg = ExpertConfig(epochs=1000, workers=2, augment=False)
fit_labelled(net, (obs, masks, targets, values), cfg, 0, lambda epoch, means: None, 2)
"""


EVAL = """
from eval.deals import load_named
from eval.runner import run_duplicate

run_duplicate("search", "heuristic", load_named("dev960"), workers=2, matches=False)
"""

TRAIN = """
import sys
from train.__main__ import main

sys.exit(main(["--config", "configs/default.yaml", "--set", "pretrain.positions=0", "--set", "expert.rounds=0",
               "--set", "ppo.total_steps=50000000", "--set", "eval.every=0", "--set", "ppo.processes=2",
               "--run-dir", sys.argv[1]]))
"""


def _alive_children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` and that are not zombies."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _kill_and_watch(code: str, workers: int, sig: int, *args: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        children: list[int] = []
        while time.monotonic() < deadline and len(children) < workers:
            time.sleep(0.5)
            children = _alive_children(proc.pid)
            assert proc.poll() is None, "the parent ended before it was killed"
        assert len(children) >= workers, children
        time.sleep(1.0)  # the workers are past their start
        os.kill(proc.pid, sig)
        proc.wait(30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(c) for c in children):
            time.sleep(0.25)
        left = [c for c in children if _alive(c)]
        assert not left, f"workers left running after the parent's {signal.Signals(sig).name}: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()


# each kind of parent: its code, how many workers it starts, whether it takes a run folder
KINDS = {
    "the labelling pool": (POOL, 2, False),
    "the fit's helpers": (FIT, 1, False),
    "the evaluation's workers": (EVAL, 2, False),
    "the learner processes of a training run": (TRAIN, 2, True),
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_the_workers_end_with_their_parent(kind, sig, tmp_path):
    code, workers, run_dir = KINDS[kind]
    _kill_and_watch(code, workers, sig, *([str(tmp_path / "run")] if run_dir else []))
