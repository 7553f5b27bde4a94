"""A built wheel works outside the repository.

The wheel is built from a copy of the packages (so the checkout gets no build/ or egg-info) and
installed into a fresh venv that has no site packages of its own. Its third-party dependencies
(numpy, torch, ...) come from this interpreter's site-packages, added to the fresh venv as a
plain path *after* the wheel's: a plain path line in a .pth file does not run that folder's own
.pth files, so the editable install of this checkout stays off and ``import eval`` finds the
installed copy. Every command runs from an empty folder outside the repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("baloot_env", "baloot_io", "baloot_cli", "agents", "eval", "train")


def _run(argv: list, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
    )
    return proc.stdout


def _source_copy(tmp: Path) -> Path:
    """The packages, pyproject.toml and README.md copied to ``tmp/src`` (what a build reads)."""
    src = tmp / "src"
    for name in PACKAGES:
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    return src


def _wheel_of(src: Path, dist: Path) -> Path:
    """The wheel pip builds from the source folder ``src`` (no isolation, no index) into ``dist``."""
    _ok(
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "-q",
                "--no-deps",
                "--no-build-isolation",
                "--no-index",
                "-w",
                dist,
                src,
            ]
        )
    )
    (wheel,) = dist.glob("baloot_rl-*.whl")
    return wheel


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    """The wheel, a fresh venv with it installed, and an empty folder outside the repository."""
    tmp = tmp_path_factory.mktemp("wheel")
    return _installed(_wheel_of(_source_copy(tmp), tmp / "dist"), tmp)


def _installed(wheel: Path, tmp: Path) -> dict:
    """A fresh venv under ``tmp`` with ``wheel`` installed (third-party packages from this
    interpreter, module docstring), and an empty folder to run from."""
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(env_dir)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    # This interpreter's pip installs into the fresh venv (--python), which sees only its own packages.
    _ok(_run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index", "--no-deps", wheel]))
    site = _ok(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])).strip()
    Path(site, "zz_third_party.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")

    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return {"wheel": wheel, "python": python, "site": Path(site), "cwd": elsewhere}


def test_the_wheel_holds_the_package_data_and_a_py_typed_in_every_package(built):
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    for package in PACKAGES:
        assert f"{package}/py.typed" in names, package
    from eval.deals import STANDARD_SETS

    for name in STANDARD_SETS:
        assert f"eval/deals/{name}.json" in names, name
    assert {"train/configs/default.yaml", "train/configs/strong.yaml"} <= names
    assert {"agents/policies/champion/manifest.json", "agents/policies/champion/weights.pt"} <= names


def test_the_installed_copy_is_imported_not_the_checkout(built):
    code = f"import importlib; print('\\n'.join(importlib.import_module(p).__file__ for p in {PACKAGES!r}))"
    out = _ok(_run([built["python"], "-c", code], cwd=built["cwd"]))
    files = [Path(line) for line in out.split()]
    assert len(files) == len(PACKAGES)
    for f in files:
        assert f.is_relative_to(built["site"]) and not f.is_relative_to(ROOT), f


def test_eval_runs_from_another_folder(built):
    out = _ok(
        _run([built["python"], "-m", "eval", "--a", "heuristic", "--b", "random", "--deals", "8"], cwd=built["cwd"])
    )
    assert "duplicate: A = heuristic  vs  B = random" in out
    assert "8 deals x 2 tables" in out and "mean d (A - B, game points per deal)" in out


def test_the_packaged_champion_configs_and_deal_sets_load_from_another_folder(built):
    script = """
import importlib.resources as r
import numpy as np
import agents
from baloot_env.observation import OBS_SIZE
from eval.deals import TEST, load_named
from train.config import TrainConfig, load_config

folder = r.files("agents") / "policies" / "champion"
policy = agents.load_policy(str(folder))
mask = np.zeros(42, dtype=np.int8)
mask[[3, 9]] = 1
assert policy.act(np.zeros(OBS_SIZE, dtype=np.float32), mask) in (3, 9)
assert load_config("configs/default.yaml") == TrainConfig()
assert load_config("configs/strong.yaml").ppo.total_steps > 0
assert load_named("test960").role == TEST and len(load_named("small")) == 64
print("ok", folder)
"""
    out = _ok(_run([built["python"], "-c", script], cwd=built["cwd"]))
    assert out.startswith("ok ") and Path(out.split()[1]).is_relative_to(built["site"])
    # the README's command line names the champion as policies/champion: it is found in the package
    out = _ok(
        _run(
            [built["python"], "-m", "eval", "--a", "policies/champion", "--b", "random", "--deals", "8", "--quiet"],
            cwd=built["cwd"],
        )
    )
    assert "A = policies/champion" in out
    assert "--set KEY=VALUE" in _ok(_run([built["python"], "-m", "train", "--help"], cwd=built["cwd"]))


def test_the_sdist_builds_a_wheel_that_installs_and_plays(tmp_path):
    """``python -m build``'s sdist (setuptools' ``build_sdist``, no isolation): unpacked alone, it
    builds a wheel that installs into a fresh venv and plays the shipped champion from an empty
    folder; so the sdist holds every file the package needs, package data included."""
    import tarfile

    src = _source_copy(tmp_path)
    code = "from setuptools import build_meta; print(build_meta.build_sdist('sdist'))"
    name = _ok(_run([sys.executable, "-c", code], cwd=src)).strip().splitlines()[-1]
    with tarfile.open(src / "sdist" / name) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    assert (unpacked / "agents" / "policies" / "champion" / "weights.pt").is_file()
    env = _installed(_wheel_of(unpacked, tmp_path / "dist"), tmp_path)
    out = _ok(
        _run([env["python"], "-m", "eval", "--a", "policies/champion", "--b", "random", "--deals", "8"], cwd=env["cwd"])
    )
    assert "A = policies/champion" in out and "mean d (A - B, game points per deal)" in out
