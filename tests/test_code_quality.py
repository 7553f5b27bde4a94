"""The code checks run with the test suite: ``ruff check`` and ``ruff format --check`` on every
package, ``mypy --strict`` on the rules engine, the file utilities and evaluation, so that ``bash run.sh test`` and CI run them.

Settings live in ``pyproject.toml`` (``[tool.ruff]``, ``[tool.mypy]``: strict on ``baloot_env``,
``baloot_io`` and ``eval``; the batched numba core and the modules listed there are imported but not yet
held to it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# ruff (lint and format) holds every package, the examples, the benchmarks and the tests.
CHECKED = ("baloot_env", "baloot_io", "agents", "eval", "train", "table", "examples", "benchmarks", "tests")


def _run(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _tool(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        pytest.fail(f"{module} is not installed: pip install -e '.[dev]' (it is in the dev extra)")


def test_ruff_check():
    _tool("ruff")
    r = _run("ruff", "check", "--no-cache", *CHECKED)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format():
    _tool("ruff")
    r = _run("ruff", "format", "--check", "--no-cache", *CHECKED)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow  # about 30 s without a cache, 2 s with one
def test_mypy_strict_on_the_engine_and_evaluation():
    _tool("mypy")
    r = _run("mypy", "--strict")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout
