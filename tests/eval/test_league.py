"""The league as a strength ladder: time per decision, network size, resumable pairs, the plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import eval.league
from eval.__main__ import main
from eval.deals import load_named
from eval.league import (
    LeagueError,
    agent_labels,
    agent_size,
    decision_views,
    format_league,
    league,
    pair_path,
)
from eval.league_plot import plot_league

ROOT = Path(__file__).resolve().parents[2]
CHAMPION = str(ROOT / "policies" / "champion")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def small():
    return load_named("small")


@pytest.fixture
def count_runs(monkeypatch):
    """Count the pairs played (``run_duplicate`` calls) while still playing them."""
    calls: list[tuple[str, str]] = []
    real = eval.league.run_duplicate

    def counting(spec_a, spec_b, *args, **kwargs):
        calls.append((spec_a, spec_b))
        return real(spec_a, spec_b, *args, **kwargs)

    monkeypatch.setattr(eval.league, "run_duplicate", counting)
    return calls


# ---------------------------------------------------------------------- time and size
def test_every_agent_is_timed_on_the_same_n_decisions(small):
    rep = league(["random", "heuristic"], small.head(8), small.checksum, time_positions=40)
    assert rep["time_positions"] == 40
    for spec in ("random", "heuristic"):
        t = rep["timing"][spec]
        assert t["decisions"] == 40
        assert t["median_s"] > 0 and t["mean_s"] > 0
    assert "median ms" in format_league(rep)


def test_decision_views_are_reproducible_choices_from_bidding_and_play(small):
    views = decision_views(small.head(8), 60, seed=3)
    again = decision_views(small.head(8), 60, seed=3)
    assert len(views) == 60
    assert [v.public_fields() for v in views] == [v.public_fields() for v in again]
    assert all(len(v.legal_actions) > 1 for v in views)
    assert {v.phase for v in views} >= {"bidding", "play"}


def test_no_timing_when_asked_for_none(small):
    rep = league(["random", "heuristic"], small.head(4), small.checksum, time_positions=0)
    assert rep["timing"] is None
    assert rep["size"] == {"random": None, "heuristic": None}
    with pytest.raises(LeagueError, match="time_positions must be >= 0"):
        league(["random", "heuristic"], small.head(4), small.checksum, time_positions=-1)


def test_a_bundle_size_is_its_parameter_count_and_weights_file(tmp_path):
    from agents.neural.bundle import WEIGHTS, load_policy

    net = load_policy(CHAMPION).net
    want = {
        "parameters": sum(p.numel() for p in net.parameters()),
        "bytes": (Path(CHAMPION) / WEIGHTS).stat().st_size,
    }
    assert want["parameters"] > 1000
    assert agent_size(CHAMPION) == want
    wrapper = tmp_path / "guided.json"  # netsearch holds the policy as .policy
    wrapper.write_text(json.dumps({"agent": "netsearch", "params": {"policy": CHAMPION}}))
    assert agent_size(str(wrapper)) == want
    assert agent_size("heuristic") is None and agent_size("random") is None


def test_labels_are_short_names():
    specs = ["random", "runs/a/bold.json", "policies/champion", "x/final", "y/final/"]
    assert agent_labels(specs) == ["random", "bold", "champion", "x", "y"]
    # A generic bundle folder is named by the folder above it (a run's bundles/final by the run).
    specs = ["runs/calls/c60k/bundle", "runs/default/bundles/final", "a/b/final", "c/b/final"]
    assert agent_labels(specs) == ["c60k", "default", "a/b/final", "c/b/final"]  # colliding: the paths


# ---------------------------------------------------------------------- resume
def test_a_rerun_reuses_the_saved_pairs_and_gives_the_same_report(small, tmp_path, count_runs):
    specs, ds = ["random", "heuristic", "heuristic.json"], small.head(8)
    (tmp_path / "heuristic.json").write_text('{"agent": "heuristic", "params": {"hokum_bar": 6.5}}')
    specs[2] = str(tmp_path / "heuristic.json")
    pairs = tmp_path / "pairs"
    first = league(specs, ds, small.checksum, time_positions=0, pairs_dir=pairs)
    assert len(count_runs) == 3 and len(list(pairs.glob("*.json"))) == 3
    count_runs.clear()
    again = league(specs, ds, small.checksum, time_positions=0, pairs_dir=pairs)
    assert count_runs == [] and again == first
    assert league(specs, ds, small.checksum, time_positions=0) == first  # as if never saved
    count_runs.clear()
    # the other order: every pair is saved the other way round, d only changes sign
    flipped = league(specs[::-1], ds, small.checksum, time_positions=0, pairs_dir=pairs)
    assert count_runs == []
    assert flipped["mean"] == [row[::-1] for row in first["mean"][::-1]]
    assert flipped["elo"] == pytest.approx(first["elo"][::-1])


def test_a_saved_pair_of_another_league_is_played_again(small, tmp_path, count_runs):
    ds, pairs = small.head(6), tmp_path / "pairs"
    spec = tmp_path / "bold.json"
    spec.write_text('{"agent": "heuristic", "params": {"hokum_bar": 6.5}}')
    league(["random", str(spec)], ds, small.checksum, time_positions=0, pairs_dir=pairs)
    path = pair_path(pairs, "random", str(spec))
    assert json.loads(path.read_text())["seed"] == 0
    count_runs.clear()
    league(["random", str(spec)], ds, small.checksum, seed=1, time_positions=0, pairs_dir=pairs)
    assert len(count_runs) == 1 and json.loads(path.read_text())["seed"] == 1
    count_runs.clear()
    league(["random", str(spec)], small.head(5), small.checksum, seed=1, time_positions=0, pairs_dir=pairs)
    assert len(count_runs) == 1  # other deals
    count_runs.clear()
    spec.write_text('{"agent": "heuristic", "params": {"hokum_bar": 7.5}}')  # same path, another agent
    league(["random", str(spec)], small.head(5), small.checksum, seed=1, time_positions=0, pairs_dir=pairs)
    assert len(count_runs) == 1


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"format": "baloot-league-pair-1", "mean": 1.0}'])
def test_a_corrupt_pair_file_is_refused_before_any_work(small, tmp_path, monkeypatch, capsys, text):
    def no_work(*args, **kwargs):
        raise AssertionError("a pair was played although a saved pair is corrupt")

    pairs = tmp_path / "pairs"
    pairs.mkdir()
    path = pair_path(pairs, "random", "heuristic")
    path.write_text(text)
    monkeypatch.setattr(eval.league, "run_duplicate", no_work)
    monkeypatch.setattr(eval.league, "decision_views", no_work)
    with pytest.raises(LeagueError, match=r"league pair file .* is corrupt"):
        league(["random", "heuristic"], small.head(4), small.checksum, pairs_dir=pairs)
    argv = ["league", "--agents", "heuristic", "random", "--deal-set", "small", "--deals", "4", "--quiet"]
    code = main([*argv, "--pairs-dir", str(pairs)])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(err) == 1 and err[0].startswith("error: league pair file") and "corrupt" in err[0]


# ---------------------------------------------------------------------- plot and command line
def test_the_command_writes_report_pairs_and_a_png(small, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out, png, pairs = tmp_path / "league.json", tmp_path / "plots" / "ladder.png", tmp_path / "pairs"
    argv = ["league", "--agents", "random", "heuristic", "--deal-set", "small", "--deals", "8", "--quiet"]
    argv += ["--time-positions", "25", "--pairs-dir", str(pairs), "--json", str(out), "--plot", str(png)]
    assert main(argv) == 0
    assert f"plot: {png}" in capsys.readouterr().out
    assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 1000
    rep = json.loads(out.read_text())
    assert rep["timing"]["heuristic"]["decisions"] == 25 and rep["size"]["heuristic"] is None
    assert rep["labels"] == ["random", "heuristic"] and len(list(pairs.glob("*.json"))) == 1


def test_plot_league_draws_a_png(small, tmp_path):
    pytest.importorskip("matplotlib")
    rep = league(["random", "heuristic", CHAMPION], small.head(4), small.checksum, time_positions=10)
    assert rep["size"][CHAMPION]["parameters"] > 0
    path = tmp_path / "ladder.png"
    assert plot_league(rep, path) is True
    assert path.read_bytes()[:8] == PNG_MAGIC
