"""The hostile-input probe of issue 46, rerun as a new user would: ``python -m tests.probe_inputs``.

Every case the issue's probe found (high and medium) is tried here the way a person meets it:
a command in a scratch folder, or a few lines of Python in a fresh interpreter. A case passes when
it is refused in **one line** (exit code 2 for a command, the documented exception for a call),
within its time, with **every input it read left byte for byte as it was**, and, for a killed
parent, **no process of it left** a few seconds later. The unit tests hold each case in the
suite (``docs/INPUTS.md`` names them); this script is the end-to-end check that they add up, and
prints the probe's table of categories, which ``docs/INPUTS.md`` records with its date.

It takes about three minutes on 2 cores (a small labelling job and a small training run make the
files the cases damage).
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


@dataclass
class Case:
    category: str
    severity: str  # "high" or "medium", as the issue ranked it
    what: str
    argv: list[str]  # a command (python -m ...) or ["-c", code]
    intact: list[str] = field(default_factory=list)  # files and folders that must not change
    limit_s: float = 120.0


@dataclass
class Outcome:
    case: Case
    ok: bool
    why: str


def digest(path: Path) -> str:
    """A folder's or a file's bytes (names and contents), or 'absent'."""
    if not path.exists():
        return "absent"
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for f in files:
        h.update(str(f.relative_to(path if path.is_dir() else path.parent)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def run(case: Case, cwd: Path) -> Outcome:
    before = {p: digest(cwd / p) for p in case.intact}
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            [PY, *case.argv], cwd=cwd, capture_output=True, text=True, timeout=case.limit_s, env=_env()
        )
    except subprocess.TimeoutExpired:
        return Outcome(case, False, f"still running after {case.limit_s:.0f} s")
    took = time.perf_counter() - t0
    changed = [p for p in case.intact if digest(cwd / p) != before[p]]
    lines = [line for line in done.stderr.splitlines() if line.strip() and "warn" not in line.lower()]
    if done.returncode != 2:
        return Outcome(case, False, f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-200:]!r}")
    if len(lines) != 1:
        return Outcome(case, False, f"{len(lines)} lines on stderr: {done.stderr.strip()[-200:]!r}")
    if changed:
        return Outcome(case, False, f"changed: {', '.join(changed)}")
    return Outcome(case, True, f"{lines[0][:110]} ({took:.1f} s)")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    return env


def refused(code: str, exceptions: str) -> list[str]:
    """A call that must raise one of ``exceptions`` (names importable from the snippet) in one line:
    the snippet prints the message and exits 2; any other outcome is a defect."""
    body = textwrap.indent(textwrap.dedent(code).strip(), "    ")
    return [
        "-c",
        f"import sys\ntry:\n{body}\nexcept ({exceptions}) as e:\n"
        "    msg = str(e)\n"
        "    print(msg, file=sys.stderr); sys.exit(2 if msg and '\\n' not in msg else 3)\n"
        "print('accepted', file=sys.stderr); sys.exit(0)\n",
    ]


def make_files(scratch: Path) -> None:
    """The files the cases read or damage: a bundle copy, a small labels file, a small run."""
    bundle = scratch / "mine"
    subprocess.run(["cp", "-r", str(ROOT / "policies" / "champion"), str(bundle)], check=True)
    (scratch / "teacher.json").write_text('{"agent": "search", "params": {"worlds": 16}}')
    subprocess.run(
        [PY, "-m", "train", "expert", "label", "--policy", "mine", "--teacher", "teacher.json"]
        + ["--positions", "400", "--workers", "1", "--out", "labels.npz", "--quiet"],
        cwd=scratch,
        check=True,
        env=_env(),
    )
    with np.load(scratch / "labels.npz") as data:
        good = {k: data[k] for k in data.files}

    def bad(name: str, **change: np.ndarray) -> None:
        np.savez(scratch / name, **{**good, **change})

    n = len(good["obs"])
    bad("nan_values.npz", values=np.full(n, np.nan, np.float32))
    bad("inf_obs.npz", obs=np.where(good["obs"] > 0, np.inf, 0).astype(np.float32))
    bad("zero_masks.npz", masks=np.zeros_like(good["masks"]))
    bad("action_99.npz", actions=np.full(n, 99, good["actions"].dtype))
    bad("no_rows.npz", **{k: v[:0] for k, v in good.items()})
    bad("wide_obs.npz", obs=np.zeros((n, 700), np.float32))
    bad("short_values.npz", values=good["values"][:-1])
    bad("three_d.npz", obs=good["obs"][:, None, :])
    bad("complex.npz", values=good["values"].astype(np.complex64))
    # a header claiming 10^10 rows in a tiny file
    with zipfile.ZipFile(scratch / "huge.npz", "w") as z:
        header = {"descr": "<f4", "fortran_order": False, "shape": (10**10, 697)}
        with z.open("obs.npy", "w") as f:
            np.lib.format.write_array_header_2_0(f, header)
    (scratch / "notes.txt").write_text("my notes\n")
    (scratch / "self.json").write_text('{"agent": "self.json"}')
    (scratch / "a.json").write_text('{"agent": "split", "params": {"bidding": "b.json", "play": "heuristic"}}')
    (scratch / "b.json").write_text('{"agent": "split", "params": {"bidding": "a.json", "play": "heuristic"}}')
    (scratch / "huge_search.json").write_text('{"agent": "search", "params": {"worlds": 65536, "playouts": 1000}}')
    subprocess.run(
        [PY, "-m", "eval", "--a", "heuristic", "--b", "random", "--deals", "1", "--no-matches", "--quiet"]
        + ["--save-hands", "hands.sqlite"],
        cwd=scratch,
        check=True,
        env=_env(),
        stdout=subprocess.DEVNULL,
    )
    deals = "import json; from eval.deals import load_named; json.dump(load_named('dev960').head(4).to_json(), open('deals4.json', 'w'))"
    subprocess.run([PY, "-c", deals], cwd=scratch, check=True, env=_env())
    run_args = ["--config", "configs/default.yaml", "--set", "pretrain.positions=2000", "--set", "expert.rounds=0"]
    run_args += ["--set", "ppo.total_steps=4096", "--set", "ppo.n_envs=32", "--set", "ppo.n_steps=32"]
    run_args += ["--set", "checkpoint_every=2048", "--set", "eval.every=0", "--set", "eval.final_deal_set=dev960"]
    run_args += ["--set", "eval.final_deals=8", "--set", "eval.promote=false", "--set", "pretrain.workers=1"]
    run_args += ["--set", "ppo.processes=1"]
    subprocess.run([PY, "-m", "train", *run_args, "--run-dir", "run", "--quiet"], cwd=scratch, check=True, env=_env())
    checkpoints = sorted((scratch / "run" / "checkpoints").glob("*.pt"))
    for name, src in (("run_flipped", checkpoints[-1]),):
        subprocess.run(["cp", "-r", str(scratch / "run"), str(scratch / name)], check=True)
        target = scratch / name / "checkpoints" / src.name
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0x01
        target.write_bytes(bytes(data))


def cases() -> list[Case]:
    fit = ["-m", "train", "expert", "fit", "--policy", "mine", "--out", "fitted", "--labels"]
    label = ["-m", "train", "expert", "label", "--positions", "50", "--workers", "1"]
    out: list[Case] = [
        Case(
            "inputs destroyed",
            "high",
            "label --out onto its --teacher",
            [*label, "--policy", "mine", "--teacher", "teacher.json", "--out", "teacher.json"],
            ["teacher.json"],
        ),
        Case(
            "inputs destroyed",
            "high",
            "label --out into its --policy bundle",
            [*label, "--policy", "mine", "--out", "mine/weights.pt"],
            ["mine"],
        ),
        Case(
            "inputs destroyed",
            "high",
            "fit --out onto the bundle it starts from",
            ["-m", "train", "expert", "fit", "--labels", "labels.npz", "--policy", "mine", "--out", "mine"],
            ["mine"],
        ),
        Case(
            "inputs destroyed",
            "high",
            "fit --out policies/champion",
            ["-m", "train", "expert", "fit", "--labels", "labels.npz", "--out", "policies/champion"],
            ["policies"],
        ),
        Case(
            "inputs destroyed",
            "high",
            "fit --out policies",
            ["-m", "train", "expert", "fit", "--labels", "labels.npz", "--out", "policies"],
            ["policies"],
        ),
        Case(
            "corrupt checkpoint",
            "high",
            "--resume on a checkpoint with one flipped byte",
            ["-m", "train", "--resume", "run_flipped"],
            ["run_flipped"],
        ),
        Case("labels unchecked", "medium", "NaN values", [*fit, "nan_values.npz"], ["nan_values.npz", "mine"]),
        Case("labels unchecked", "medium", "infinite observations", [*fit, "inf_obs.npz"], ["inf_obs.npz"]),
        Case("labels unchecked", "medium", "all-zero masks", [*fit, "zero_masks.npz"], ["zero_masks.npz"]),
        Case("labels unchecked", "medium", "action 99", [*fit, "action_99.npz"], ["action_99.npz"]),
        Case("labels unchecked", "medium", "a 0-row file", [*fit, "no_rows.npz"], ["no_rows.npz"]),
        Case("labels unchecked", "medium", "wrong widths", [*fit, "wide_obs.npz"], ["wide_obs.npz"]),
        Case("labels unchecked", "medium", "mismatched row counts", [*fit, "short_values.npz"], ["short_values.npz"]),
        Case("labels unchecked", "medium", "3-D arrays", [*fit, "three_d.npz"], ["three_d.npz"]),
        Case("labels unchecked", "medium", "complex arrays", [*fit, "complex.npz"], ["complex.npz"]),
        Case("labels unchecked", "medium", "a header claiming 10^10 rows", [*fit, "huge.npz"], ["huge.npz"], 30),
        Case(
            "search too big",
            "medium",
            "worlds 65536 x playouts 1000",
            ["-m", "eval", "--a", "huge_search.json", "--b", "random", "--deals", "1"],
            [],
            30,
        ),
        Case(
            "recursive agent files",
            "medium",
            "a file that names itself",
            ["-m", "eval", "--a", "self.json", "--b", "random", "--deals", "1"],
            [],
            30,
        ),
        Case(
            "recursive agent files",
            "medium",
            "two files that name each other",
            ["-m", "eval", "--a", "a.json", "--b", "random", "--deals", "1"],
            [],
            30,
        ),
        Case(
            "outputs over files",
            "medium",
            "promote --pointer onto an unrelated file",
            [
                "-m",
                "eval",
                "promote",
                "--candidate",
                "mine",
                "--champion",
                "heuristic",
                "--deals",
                "8",
                "--pointer",
                "notes.txt",
            ],
            ["notes.txt"],
        ),
        Case(
            "outputs over files",
            "medium",
            "eval --json onto a bundle's weights",
            ["-m", "eval", "--a", "mine", "--b", "random", "--deals", "1", "--json", "mine/weights.pt"],
            ["mine"],
        ),
        Case(
            "outputs over files",
            "medium",
            "table export --out onto a deal set",
            ["-m", "table", "export", "--db", "hands.sqlite", "--source", "all", "--out", "deals4.json"],
            ["deals4.json"],
        ),
        Case(
            "tracebacks",
            "medium",
            "--set seed= with 5,000 digits",
            ["-m", "train", "--config", "configs/default.yaml", "--set", "seed=" + "9" * 5000, "--run-dir", "r2"],
            [],
            30,
        ),
        Case(
            "tracebacks",
            "medium",
            "HandState.from_json with history nested 2,000 deep",
            refused(
                "from baloot_env import HandState, StateError\nimport random\nfrom baloot_env import random_deal\nd = HandState(random_deal(random.Random(1))).to_json()\nh = []\nfor _ in range(2000): h = [h]\nd['history'] = h\nHandState.from_json(d)",
                "StateError",
            ),
        ),
        Case(
            "env abuse",
            "medium",
            "reset(seed=-1)",
            refused("from baloot_env import env, BalootError\ne = env(); e.reset(seed=-1)", "BalootError"),
        ),
        Case(
            "env abuse",
            "medium",
            'reset(seed="abc")',
            refused("from baloot_env import env, BalootError\ne = env(); e.reset(seed='abc')", "BalootError"),
        ),
        Case(
            "env abuse",
            "medium",
            "reset(options=[1])",
            refused("from baloot_env import env, BalootError\ne = env(); e.reset(options=[1])", "BalootError"),
        ),
        Case(
            "env abuse",
            "medium",
            'reset(options={"deals": []})',
            refused(
                "from baloot_env import env, BalootError\ne = env(); e.reset(options={'deals': []})", "BalootError"
            ),
        ),
        Case(
            "env abuse",
            "medium",
            "both deal and deals",
            refused(
                "from baloot_env import env, BalootError, random_deal\nimport random\nd = random_deal(random.Random(1))\ne = env(); e.reset(options={'deal': d, 'deals': [d]})",
                "BalootError",
            ),
        ),
    ]
    return out


def ray_case(scratch: Path) -> Outcome:
    """``eval --ray 127.0.0.1:PORT`` where a plain TCP server (not Ray) listens."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    port = server.getsockname()[1]
    try:
        case = Case(
            "ray hang",
            "high",
            "--ray to a port that is not Ray",
            ["-m", "eval", "--a", "heuristic", "--b", "random", "--deals", "1", "--ray", f"127.0.0.1:{port}"],
            [],
            60,
        )
        return run(case, scratch)
    finally:
        server.close()


def orphan_case(scratch: Path, sig: int) -> Outcome:
    """A two-worker fit killed by ``sig`` once its helpers run: none may be left 10 s later."""
    case = Case("orphans", "high", f"a 2-worker expert fit killed by {signal.Signals(sig).name}", [], [])
    proc = subprocess.Popen(
        [PY, "-m", "train", "expert", "fit", "--labels", "labels.npz", "--policy", "mine", "--workers", "2"]
        + ["--epochs", "50", "--out", f"fit_{sig}"],
        cwd=scratch,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    family: set[int] = set()
    deadline = time.time() + 90
    while time.time() < deadline and len(family) < 1:
        time.sleep(0.5)
        family = _descendants(proc.pid)
    if not family:
        proc.kill()
        return Outcome(case, False, "no helper process started to kill under")
    time.sleep(2)
    family |= _descendants(proc.pid)
    proc.send_signal(sig)
    proc.wait(30)
    time.sleep(10)
    left = [p for p in family if Path(f"/proc/{p}").exists() and _state(p) != "Z"]
    if left:
        for p in left:
            os.kill(p, signal.SIGKILL)
        return Outcome(case, False, f"{len(left)} of {len(family)} helpers still alive 10 s later")
    return Outcome(case, True, f"{len(family)} helpers gone within 10 s")


def _descendants(pid: int) -> set[int]:
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d.name))
    out, todo = set(), [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.add(k)
            todo.append(k)
    return out


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="probe-") as tmp:
        scratch = Path(tmp)
        for entry in ("configs", "policies"):
            (scratch / entry).symlink_to(ROOT / entry)
        print("making the files the cases read (a labels file, a small run) ...", flush=True)
        make_files(scratch)
        outcomes = [run(c, scratch) for c in cases()]
        outcomes.append(ray_case(scratch))
        outcomes += [orphan_case(scratch, s) for s in (signal.SIGKILL, signal.SIGTERM)]
    for o in outcomes:
        print(f"{'ok ' if o.ok else 'BAD'} [{o.case.severity}] {o.case.category}: {o.case.what}: {o.why}")
    print("\n| category | severity | cases | refused or survived as the goals say | defects |")
    print("|---|---|---|---|---|")
    seen: dict[tuple[str, str], list[Outcome]] = {}
    for o in outcomes:
        seen.setdefault((o.case.category, o.case.severity), []).append(o)
    for (cat, sev), group in seen.items():
        good = sum(o.ok for o in group)
        print(f"| {cat} | {sev} | {len(group)} | {good} | {len(group) - good} |")
    bad = sum(not o.ok for o in outcomes)
    print(f"\n{len(outcomes)} cases, {bad} defects")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
