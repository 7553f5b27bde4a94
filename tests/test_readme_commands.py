"""The documentation's shell blocks run as written: every command of every ```bash block of the
README and then of the site's pages in the order of its nav (``mkdocs.yml``), each distinct command
once, in one scratch folder that holds the repository's files (so ``runs/`` is the test's own), with
``python`` the suite's interpreter (the README's ``source .venv/bin/activate``).

Each command is classified in ``HOW`` by a pattern: run it (``RUN``), start it as a server and
wait until it answers (``SERVE``), or leave it out with the reason (``BY_HAND``: the long jobs,
timed by hand on a fresh clone of the commit that states their time, and the cluster). A command
that no pattern names fails ``test_every_readme_command_is_classified``, so a new README command
is run or given its reason. Commands run in one long test (``slow``: about 5 minutes), since they
build on each other (the evaluation block's bundle is the table's ``--agent``).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import documentation_pages

ROOT = Path(__file__).resolve().parent.parent
RUN, SERVE, BY_HAND = "run", "serve", "by hand"
NO_REGISTRY = r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET"
_BLOCK = re.compile(r"^```bash[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)

# (pattern on the command without its comment, how, and for RUN "prints REGEX" or "leaves PATH" (what
# it must print, or the file it must make), for SERVE the address that must answer, for BY_HAND the reason)
HOW: list[tuple[str, str, str]] = [
    (
        r"^bash run\.sh (main|test)$",
        BY_HAND,
        "the two commands: timed on fresh clones (README); the suite is run.sh test",
    ),
    (r"^source \.venv/bin/activate$", RUN, ""),
    (
        r"^python -m eval --a policies/champion --b heuristic --deals 960 --workers 2$",
        RUN,
        r"prints mean d \(A - B, game points per deal\) +\+1\.925",  # the README shows this output
    ),
    (
        r"^python -m eval --a heuristic --b random --deals 960 .*--json runs/demo/report\.json$",
        RUN,
        "leaves runs/demo/report.png",
    ),
    (r"^cp -r policies/champion runs/demo/mine$", RUN, "leaves runs/demo/mine/manifest.json"),
    (
        r"^python -m eval --a runs/demo/mine --b heuristic --deal-set test960 .*",
        RUN,
        "leaves runs/demo/mine_test960.json",
    ),
    (r"^python -m eval\.record --bundle runs/demo/mine ", RUN, r"prints evaluations recorded"),
    (r"^python -m eval promote --candidate runs/demo/mine ", RUN, r"prints PROMOTED: runs/demo/mine vs heuristic"),
    (r"^python -m eval league --agents random heuristic runs/demo/mine ", RUN, "leaves runs/demo/league.png"),
    (r"^python -m eval --a heuristic --b random --deals 64 --rules ", RUN, r"prints mean d \(A - B"),
    (r"^python examples/train_maskable_ppo\.py --save runs/sb3_example\.zip$", RUN, "leaves runs/sb3_example.zip"),
    (
        r"^python -m eval --a sb3:runs/sb3_example\.zip --b random ",
        RUN,
        r"prints mean d \(A - B, game points per deal\) +\+6\.174",
    ),
    (r"^python -m train --config configs/default\.yaml$", BY_HAND, "the main job, bash run.sh main without the setup"),
    (r"^python -m train --config configs/strong\.yaml$", BY_HAND, "about 45 minutes"),
    (
        r"^python -m train --config configs/default\.yaml --set .*--run-dir runs/try$",
        RUN,
        "leaves runs/try/bundles/final/manifest.json",
    ),
    (r"^python -m train --resume runs/try$", RUN, r"prints is finished .*nothing to do"),
    (r"^tensorboard --logdir runs/try/tb$", SERVE, "http://localhost:6006/"),
    (r"^python -m train --backend rllib --config configs/rllib\.yaml$", BY_HAND, "8 min 32 s (README)"),
    (r"^python -m train\.rllib bundle runs/rllib ", BY_HAND, "converts the RLlib run above"),
    (r"^python -m eval --a policies/champion --b heuristic --deals 64 --ray$", RUN, r"prints mean d \(A - B"),
    (r"^(ray |RAY_AUTH_MODE=token )", BY_HAND, "a cluster of several machines"),
    (
        r"^python -m eval export --policy policies/champion --out runs/champion\.onnx ",
        RUN,
        "leaves runs/positions.json",
    ),
    (r"^cd examples/node && npm ci && node pick\.js ", RUN, r'prints "actions":\['),
    (r"^python -m table$", SERVE, "http://127.0.0.1:8000/"),
    (r"^python -m table --port 8080 ", SERVE, "http://127.0.0.1:8080/"),
    (r"^python -m table --port 8081 --league runs/demo/league\.json$", SERVE, "http://127.0.0.1:8081/leaderboard"),
    (r"^python -m train expert label --policy policies/champion --positions 240000 ", BY_HAND, "about 20 minutes"),
    (r"^python -m train expert fit --labels runs/x/labels\.npz ", BY_HAND, "fits the labels of the command above"),
    (r"^python -m train curve runs/expert ", BY_HAND, "reads an expert run (hours: docs/expert-iteration.md)"),
    (r"^python -m tests\.probe_inputs$", BY_HAND, "about 4 minutes; its table is beside it (docs/INPUTS.md)"),
    (
        r"^python -m eval --a policies/student --b policies/champion --deal-set dev960 --no-matches --workers 2 --seed 1$",
        RUN,
        r"prints mean d \(A - B, game points per deal\) +-0\.163",  # the README's figure
    ),
    (
        r"^python -m train distill --config configs/student\.yaml ",
        BY_HAND,
        "6 to 9 minutes on one core (docs/RESULTS.md, A small student); tests/train/test_distill.py runs it small",
    ),
    (r"^python -m eval league --agents random heuristic policies/champion search netsearch ", BY_HAND, "24 minutes"),
    (
        r"^python -m eval league --agents random heuristic policies/champion search netsearch sb3:",
        BY_HAND,
        "the ladder with one more agent: its five pairs with search and netsearch on test960",
    ),
]


def readme_commands() -> list[str]:
    """Every command of the documentation's ```bash blocks (``documentation_pages``), in order, each
    distinct command once: continuation lines joined, comments and blank lines dropped, each
    without its trailing comment."""
    out: list[str] = []
    for page in documentation_pages():
        for block in _BLOCK.findall(page.read_text(encoding="utf-8")):
            for line in block.replace("\\\n", " ").splitlines():
                command = " ".join(re.sub(r"\s+#.*$", "", line).strip().split())
                if command and not command.startswith("#") and command not in out:
                    out.append(command)
    return out


def how(command: str) -> tuple[str, str] | None:
    """(how, what) for a README command, or None when no pattern of ``HOW`` names it."""
    for pattern, kind, what in HOW:
        if re.search(pattern, command):
            return kind, what
    return None


def test_every_readme_command_is_classified():
    commands = readme_commands()
    assert len(commands) >= 20, commands  # the blocks were found
    unnamed = [c for c in commands if how(c) is None]
    assert not unnamed, f"README commands no pattern of HOW names (run them or give the reason): {unnamed}"
    unused = [p for p, _, _ in HOW if not any(re.search(p, c) for c in commands)]
    assert not unused, f"patterns of HOW that name no README command (the README changed): {unused}"


def _scratch(tmp: Path) -> Path:
    """A folder with the repository's top-level entries linked in, except ``runs`` (the test's own)
    and ``examples/node``, copied without its ``node_modules`` (``npm ci`` there must not pull the
    packages from under the Node example's own test)."""
    for entry in ROOT.iterdir():
        if entry.name not in {"runs", ".git", "examples"} and not entry.name.startswith(".pytest"):
            (tmp / entry.name).symlink_to(entry)
    (tmp / "examples").mkdir()
    for entry in (ROOT / "examples").iterdir():
        if entry.name != "node":
            (tmp / "examples" / entry.name).symlink_to(entry)
    shutil.copytree(
        ROOT / "examples" / "node", tmp / "examples" / "node", ignore=shutil.ignore_patterns("node_modules")
    )
    return tmp


def _env() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "OMP_NUM_THREADS": "1"}


def _free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _serve(command: str, url: str, cwd: Path) -> None:
    port = int(re.search(r":(\d+)/", url).group(1))  # type: ignore[union-attr]
    if not _free(port):
        pytest.skip(f"port {port} is taken on this machine; {command!r} not started")
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {command}"], cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert proc.poll() is None, f"{command!r} exited: {proc.stdout.read().decode()[-2000:]}"  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(url, timeout=5) as page:
                    assert page.status == 200
                    return
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"{command!r} did not answer at {url} within 120 s")
    finally:
        # TensorBoard answers SIGTERM by running its atexit handlers, which can block on its
        # loader threads (seen on CI: still alive 30 s later); the page answered, so kill it.
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


@pytest.mark.slow  # about 5 minutes: a short training run, evaluations, Ray, the export
def test_the_readme_commands_run_as_written(tmp_path):
    cwd = _scratch(tmp_path)
    for command in readme_commands():
        kind, what = how(command) or ("", "")
        if kind == BY_HAND:
            continue
        if command.startswith("source .venv/") and not (ROOT / ".venv" / "bin" / "activate").is_file():
            continue  # the suite runs in another environment; its interpreter is on PATH anyway
        if "npm ci" in command and (shutil.which("node") is None or os.environ.get("BALOOT_NO_NPM")):
            continue  # as tests/agents/test_node_example.py: Node.js is optional
        if kind == SERVE:
            _serve(command, what, cwd)
            continue
        done = subprocess.run(
            ["bash", "-c", command], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=900, check=False
        )
        said = done.stdout + done.stderr
        if done.returncode and "npm ci" in command and re.search(NO_REGISTRY, said):
            continue  # the npm registry is out of reach: as the Node example's own test, not a failure
        assert done.returncode == 0, f"{command!r} exited {done.returncode}:\n{said[-3000:]}"
        verb, _, arg = what.partition(" ")
        if verb == "leaves":
            assert (cwd / arg).exists(), f"{command!r} did not leave {arg}"
        elif verb == "prints":
            assert re.search(arg, said), f"{command!r} did not print {arg!r}:\n{said[-2000:]}"
