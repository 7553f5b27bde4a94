"""The code checks run with the test suite (issue 15): ``ruff check``, ``ruff format --check``
and ``mypy --strict`` on the rules engine, so that ``bash run.sh test`` and CI run them.

Settings live in ``pyproject.toml`` (``[tool.ruff]``, ``[tool.mypy]``: strict on ``baloot_env``
and ``baloot_io``; the batched numba core and the modules listed there as being reworked by
other issues are imported but not yet held to it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Files other open issues are rewriting now: linted, their formatting left to their owners
# (remove a file from this list once it is formatted).
NOT_YET_FORMATTED = (
    "benchmarks/train_speed.py",
    "eval/__main__.py",
    "tests/test_driver.py",
    "tests/test_tensorboard.py",
    "train/augment.py",
    "train/opponents.py",
    "train/trainer.py",
)


def _run(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _tool(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        pytest.fail(f"{module} is not installed: pip install -e '.[dev]' (it is in the dev extra)")


def test_ruff_check():
    _tool("ruff")
    r = _run("ruff", "check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format():
    _tool("ruff")
    excludes = [a for f in NOT_YET_FORMATTED for a in ("--exclude", f)]
    r = _run("ruff", "format", "--check", "--no-cache", *excludes, ".")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow  # about 30 s without a cache, 2 s with one
def test_mypy_strict_on_the_engine():
    _tool("mypy")
    r = _run("mypy", "--strict")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout
