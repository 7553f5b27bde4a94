"""The examples run as written: ``examples/*.py`` with tiny budgets, and every
```python block of the README and of every page of the documentation site (``mkdocs.yml``), each
in a fresh interpreter from the repository root.

A block that needs a long run says so with the comment ``# not run in tests``; every other
block must run as it stands.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import documentation_pages

ROOT = Path(__file__).resolve().parent.parent
SKIP_MARK = "# not run in tests"
_BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks(path: Path) -> list[str]:
    """The ```python blocks of a markdown file, in order."""
    return _BLOCK.findall(path.read_text(encoding="utf-8"))


def run_python(args: list[str], timeout: int = 300) -> subprocess.CompletedProcess:
    """``python ARGS`` from the repository root, one torch thread (the machine is shared)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    assert done.returncode == 0, f"python {' '.join(args)[:200]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _block_id(block: str) -> str:
    first = next((line for line in block.splitlines() if line.strip()), "")
    return re.sub(r"\W+", "_", first)[:40]


DOC_BLOCKS = [(page.name, block) for page in documentation_pages() for block in python_blocks(page)]


def test_the_readme_and_the_pages_have_python_blocks():
    assert any(page == "README.md" for page, _ in DOC_BLOCKS), "no ```python block found in README.md"
    assert len({page for page, _ in DOC_BLOCKS}) >= 3


@pytest.mark.parametrize(("page", "block"), DOC_BLOCKS, ids=[f"{page}:{_block_id(b)}" for page, b in DOC_BLOCKS])
def test_documentation_python_blocks_run(page, block):
    if SKIP_MARK in block:
        pytest.skip(f"marked {SKIP_MARK!r}")
    run_python(["-c", block])


def test_maskable_ppo_example_trains_and_evaluates():
    out = run_python(["examples/train_maskable_ppo.py", "--steps", "512", "--envs", "4", "--eval-episodes", "8"]).stdout
    assert re.search(r"trained [\d,]+ decisions; greedy policy vs heuristic: [+-]\d\.\d+ mean reward per hand", out), (
        out
    )


def test_torch_loop_example_runs_its_iterations():
    out = run_python(["examples/torch_loop.py", "--iterations", "2", "--envs", "4", "--steps", "32"]).stdout
    assert re.findall(r"^iteration \d+: \d+ episodes, mean reward", out, re.MULTILINE) and "iteration 2:" in out, out
