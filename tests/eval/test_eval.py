"""Duplicate evaluation: zero-sum symmetry, determinism, deal-set checksums, stats, the CLI."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval.__main__ import main
from eval.deals import DealSetError, generate, load, load_named, save
from eval.league import league
from eval.report import summarize
from eval.runner import run_duplicate
from eval.stats import (
    ci95,
    correlation,
    elo_ratings,
    mean_sd,
    obf_bound,
    sequential_decision,
    t_quantile_975,
    wilson_ci95,
)

ROOT = Path(__file__).resolve().parents[2]
SMALL_SHA256 = "4d167d1984c82fa771fbf10a54f51f1adf5cc6e82b7ff6cdb58312fe76c8b067"
STANDARD960_SHA256 = "afb0187be49fcf798f3711df4084cd8b80e13c80ca6fe2ef7658733c32331f68"
DEV960_SHA256 = "bef94607124aacc6bb2f82823421764e0aef4a8e52aa8ca7122fcef1b8c8444e"


@pytest.fixture(scope="module")
def small():
    return load_named("small")


# ---------------------------------------------------------------------- deal sets
def test_committed_checksums_are_stable_and_reproducible_from_the_seed():
    assert load_named("small").checksum == SMALL_SHA256
    assert load_named("standard960").checksum == STANDARD960_SHA256
    assert len(load_named("standard960")) == 960
    assert generate("small", 64, 64).checksum == SMALL_SHA256
    dev = load_named("dev960")
    assert dev.checksum == DEV960_SHA256 and len(dev) == 960
    # the development set (promotion during training) shares no deal with the test set
    test_deals = {json.dumps(d.to_dict(), sort_keys=True) for d in load_named("standard960").deals}
    assert not any(json.dumps(d.to_dict(), sort_keys=True) in test_deals for d in dev.deals)


def test_deal_set_roundtrip_and_corruption(tmp_path, small):
    path = tmp_path / "s.json"
    save(small, path)
    assert load(path).checksum == small.checksum
    data = json.loads(path.read_text())
    data["deals"][0]["hands"][0][0], data["deals"][0]["hands"][1][0] = (
        data["deals"][0]["hands"][1][0],
        data["deals"][0]["hands"][0][0],
    )
    path.write_text(json.dumps(data))
    with pytest.raises(DealSetError, match="checksum"):
        load(path)
    data["deals"][0]["turned"] = data["deals"][0]["stock"][0]
    path.write_text(json.dumps(data))
    with pytest.raises(DealSetError, match="bad deal"):
        load(path)
    with pytest.raises(DealSetError, match="does not exist"):
        load(tmp_path / "nope.json")
    with pytest.raises(DealSetError, match="unknown deal set"):
        load_named("huge")


# ---------------------------------------------------------------------- duplicate symmetry
def test_deterministic_agent_against_itself_scores_exactly_zero(small):
    run = run_duplicate("heuristic", "heuristic", small, matches=False)
    assert len(run.records) == 64 and all(r.d == 0 for r in run.records)
    assert any(r.x1 != 0 for r in run.records)  # the tables themselves are not trivial


def test_random_against_itself_is_zero_too_because_seeds_belong_to_seats(small):
    run = run_duplicate("random", "random", small.head(24), seed=3, matches=False)
    assert all(r.d == 0 for r in run.records)


def test_swapping_a_and_b_flips_the_sign(small):
    ds = small.head(32)
    ab = run_duplicate("heuristic", "random", ds, seed=1, matches=False)
    ba = run_duplicate("random", "heuristic", ds, seed=1, matches=False)
    assert [r.d for r in ab.records] == [-r.d for r in ba.records]


def test_same_seed_same_report_whatever_the_workers(small):
    ds = small.head(40)

    def report(workers):
        run = run_duplicate("heuristic", "random", ds, seed=7, workers=workers, matches=True)
        rep = summarize(run, "heuristic", "random", ds, small, 7, {})
        rep.pop("seconds")
        return rep

    one = report(1)
    assert one == report(1)
    assert one == report(2)
    other = run_duplicate("heuristic", "random", ds, seed=8, matches=False)
    assert [r.d for r in other.records] != one["d"]


def test_heuristic_beats_random_in_duplicate(small):
    run = run_duplicate("heuristic", "random", small, seed=0, matches=True)
    rep = summarize(run, "heuristic", "random", small, small, 0, {})
    assert rep["ci95"][0] > 0
    assert rep["matches"]["played"] >= 10 and rep["matches"]["a_win_rate"] >= 0.9


# ---------------------------------------------------------------------- statistics
def test_statistics_known_answers():
    m, sd = mean_sd([1, 2, 3, 4])
    assert m == 2.5 and sd == pytest.approx(math.sqrt(5 / 3))
    assert t_quantile_975(10) == pytest.approx(2.228139, abs=2e-4)
    assert t_quantile_975(30) == pytest.approx(2.042272, abs=1e-4)
    lo, hi = ci95([1, 2, 3, 4])
    assert (lo + hi) / 2 == pytest.approx(2.5) and hi - lo == pytest.approx(2 * 3.182446 * sd / 2, rel=1e-6)
    assert correlation([1, 2, 3], [3, 2, 1]) == pytest.approx(-1)
    lo, hi = wilson_ci95(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)


def test_sequential_test_bounds():
    assert obf_bound(4, 4) == pytest.approx(2.024) and obf_bound(1, 4) == pytest.approx(4.048)
    assert sequential_decision([1.0, 1.2, 0.9, 1.1], 1, 4).decision == "promote"  # z ~ 16
    assert sequential_decision([1.0, -1.0, 0.5, -0.4], 1, 4).decision == "continue"
    assert sequential_decision([1.0, -1.0, 0.5, -0.4], 4, 4).decision == "reject"
    assert sequential_decision([0.0] * 8, 4, 4).decision == "reject"


def test_elo_is_symmetric_and_ordered():
    even = elo_ratings([[0, 50], [50, 0]], [[0, 100], [100, 0]])
    assert even[0] == pytest.approx(even[1]) == pytest.approx(1500)
    r = elo_ratings([[0, 75, 90], [25, 0, 75], [10, 25, 0]], [[0, 100, 100], [100, 0, 100], [100, 100, 0]])
    assert r[0] > r[1] > r[2] and sum(r) / 3 == pytest.approx(1500)
    # 75% expected share is about 191 Elo points.
    assert 150 < r[0] - r[1] < 230


def test_league_ranks_heuristic_above_random(small, tmp_path):
    spec = tmp_path / "bolder.json"
    spec.write_text('{"agent": "heuristic", "params": {"hokum_bar": 6.5}}')
    rep = league(["random", "heuristic", str(spec)], small.head(16), small.checksum)
    elo = dict(zip(rep["agents"], rep["elo"], strict=True))
    assert elo["heuristic"] > elo["random"] and elo[str(spec)] > elo["random"]
    assert rep["mean"][0][1] == -rep["mean"][1][0]


# ---------------------------------------------------------------------- command line
def test_cli_writes_json_and_png(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(
        ["--a", "heuristic", "--b", "random", "--deal-set", "small", "--deals", "12", "--json", str(out), "--quiet"]
    )
    assert code == 0
    rep = json.loads(out.read_text())
    for key in ("deals", "mean", "sd", "ci95", "checksum", "single_table_sd", "table_correlation", "matches", "sides"):
        assert key in rep
    assert rep["deals"] == 12 and rep["checksum"] == SMALL_SHA256 and len(rep["ci95"]) == 2
    assert "mean d" in capsys.readouterr().out
    pytest.importorskip("matplotlib")
    assert (tmp_path / "r.png").stat().st_size > 1000


def test_cli_reports_unknown_agent_and_deal_set(capsys):
    assert main(["--a", "alphabaloot", "--b", "random", "--deal-set", "small", "--deals", "2", "--quiet"]) == 2
    assert "known agents" in capsys.readouterr().err
    assert main(["--a", "random", "--b", "random", "--deal-set", "nope", "--quiet"]) == 2
    assert "unknown deal set" in capsys.readouterr().err


# ---------------------------------------------------------------------- workers stop with their parent
def _children(pid: int) -> set[int]:
    """The child processes of ``pid`` (Linux /proc)."""
    kids: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids.update(int(x) for x in (task / "children").read_text().split())
        except OSError:
            pass
    return kids


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def _is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killing_the_parent_stops_its_workers(sig):
    """Workers of a killed ``python -m eval`` stop too instead of playing on at full CPU."""
    # the two match chains come first, one per worker: each is minutes of play in a single task
    cmd = [sys.executable, "-m", "eval", "--a", "search", "--b", "heuristic", "--deal-set", "dev960", "--workers", "2"]
    parent = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
            workers = {p for p in _children(parent.pid) if _is_worker(p)}
            time.sleep(0.1)
        assert len(workers) == 2, "the evaluation did not start its two workers"
        time.sleep(1.5)  # let them get to work (agents built, deals being played)
        assert all(_alive(p) for p in workers)
        parent.send_signal(sig)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in workers), "workers kept running after their parent was killed"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for p in workers:  # only the workers this test started, by pid
            if _alive(p):
                os.kill(p, signal.SIGKILL)


# ---------------------------------------------------------------------- torch threads
CHAMPION = str(ROOT / "policies" / "champion")


def test_an_evaluation_in_this_process_runs_torch_on_the_asked_threads_then_restores_them(small, monkeypatch):
    """One thread by default while the deals are played; the caller's own count (a trainer's) comes back."""
    import torch

    import eval.runner as runner

    seen: list[int] = []
    play = runner.play_deal

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return play(*args, **kwargs)

    monkeypatch.setattr(runner, "play_deal", spy)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(3)
        one = run_duplicate(CHAMPION, "heuristic", small.head(3), matches=False)
        assert seen and set(seen) == {1}
        assert torch.get_num_threads() == 3
        seen.clear()
        two = run_duplicate(CHAMPION, "heuristic", small.head(3), matches=False, torch_threads=2)
        assert set(seen) == {2} and torch.get_num_threads() == 3
        assert one.records == two.records  # threads change the speed, not the result
    finally:
        torch.set_num_threads(before)


def test_each_pool_worker_runs_torch_on_the_asked_threads():
    """The worker initializer sets the count after the agents are built (a bundle's loader sets its own)."""
    code = (
        "import os, torch\n"
        "torch.set_num_threads(4)\n"
        "from eval.runner import _worker_init\n"
        f"_worker_init(os.getppid(), 1, {CHAMPION!r}, 'heuristic', [], 0, {{}})\n"
        "first = torch.get_num_threads()\n"
        f"_worker_init(os.getppid(), 3, {CHAMPION!r}, 'heuristic', [], 0, {{}})\n"
        "print(first, torch.get_num_threads())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "3"]


@pytest.mark.parametrize("matches", [True, False], ids=["matches", "no-matches"])
def test_the_progress_bar_counts_the_hands_played(small, matches, monkeypatch):
    import eval.runner as runner

    bars = []

    class Recording(runner._Progress):
        def __init__(self, total, enabled, label):
            super().__init__(total, False, label)
            bars.append(self)

    monkeypatch.setattr(runner, "_Progress", Recording)
    out = run_duplicate("heuristic", "random", small, hi=40, matches=matches)
    played = 2 * len(out.records) + sum(m.deals for m in out.matches) + sum(out.left_over)
    (bar,) = bars
    assert bar.total == bar.done == played == (4 if matches else 2) * 40  # hands, not deals counted twice
