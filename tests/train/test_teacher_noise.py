"""The teacher's noise (``train.teacher_noise``): each search is the teacher's own, the two
searches are independent, the errors and verdicts follow their definitions, and bad input is
refused before any work."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest
import torch

from agents.neural.network import BalootNet, NetSpec
from agents.registry import make_agent
from agents.search_player.player import SearchAgent, SearchConfig
from baloot_env.cards import cards_of
from baloot_env.errors import ConfigError
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView
from tests.helpers import card_decisions
from train.labels import LabelJob
from train.teacher_noise import Searched, compare, measure, report, search_once, searcher

REWARD = Reward("diff", 44.0)
SEARCH4 = "tests/train/search4.json"  # the search teacher with 4 worlds: fast


def _player(seed: int = 0):
    torch.manual_seed(seed)
    net = BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,)))
    return net.spec.to_dict(), net.state_dict()


def _views(n: int):
    rules = RuleConfig()
    out = []
    for state, seat in card_decisions(rules, 6, seed=3):
        out.append(PlayerView.from_state(state, seat))
        if len(out) == n:
            return out
    return out


def test_each_search_is_the_teachers_own_and_its_errors_are_the_spread_over_the_worlds():
    """From the same seed: the values and the card of the teacher's judgement, and errors that are
    the standard deviation over the worlds (paired for the gaps) over the root of the worlds."""
    for view in _views(12):
        judged = SearchAgent(9, SearchConfig(worlds=16)).judge(view)
        s = search_once(SearchAgent(9, SearchConfig(worlds=16)), view)
        found = SearchAgent(9, SearchConfig(worlds=16)).card_values(view, random.Random(9))
        legal = cards_of(view.legal_mask)
        assert judged.values is not None and judged.errors is not None
        assert np.array_equal(s.values, [judged.values[c] for c in legal])
        assert legal[s.pick] == judged.action
        assert np.array_equal(s.se_gap, [judged.errors[c] for c in legal]) and s.se_gap[s.pick] == 0
        assert found.worlds == 16 and np.allclose(found.per_world.mean(axis=0), s.values)
        assert np.allclose(s.se, found.per_world.std(axis=0, ddof=1) / 4)
        gap = found.per_world[:, s.pick : s.pick + 1] - found.per_world
        assert np.allclose(s.se_gap, gap.std(axis=0, ddof=1) / 4)


def test_identical_searches_agree_and_the_standard_error_shrinks_with_more_worlds():
    views = _views(20)
    same = [compare(*(search_once(SearchAgent(4, SearchConfig(worlds=32)), v) for _ in range(2))) for v in views]
    assert all(best and agree == 1.0 for best, agree, _, _ in same)  # one seed twice: no noise at all
    few = np.mean([search_once(SearchAgent(1, SearchConfig(worlds=16)), v).se.mean() for v in views])
    many = np.mean([search_once(SearchAgent(1, SearchConfig(worlds=256)), v).se.mean() for v in views])
    assert many < few / 2  # 16 times the worlds: a quarter of the error, give or take the estimate's own noise


def _searched(values, se_gap, pick=None):
    v = np.asarray(values, dtype=float)
    return Searched(int(np.argmax(v)) if pick is None else pick, v, np.ones_like(v), np.asarray(se_gap, dtype=float))


def test_the_verdicts_follow_their_definitions():
    # A: card 0 best, card 1 within one error of it, card 2 not; B plays card 1
    a = _searched([1.0, 0.8, 0.0], [0.0, 0.5, 0.5])
    b = _searched([0.7, 0.9, 0.1], [0.1, 0.0, 0.1])
    best, agree, tied, equal = compare(a, b)
    assert not best
    assert agree == 0.5  # B's card is among A's equally good; A's card is not among B's (0.2 > 0.1)
    assert tied == 0.0 and equal == 0.0
    flat = _searched([2.0, 2.0], [0.0, 0.0], pick=1)
    assert compare(flat, flat) == (True, 1.0, 1.0, 1.0)


def test_the_positions_do_not_depend_on_the_teacher_and_the_report_counts_them(tmp_path):
    player = _player()
    search32 = tmp_path / "search32.json"
    search32.write_text(json.dumps({"agent": "search", "params": {"worlds": 32}}))
    a = measure(LabelJob(30, 5, RuleConfig(), REWARD, SEARCH4, player))
    b = measure(LabelJob(30, 5, RuleConfig(), REWARD, str(search32), player))
    assert len(a) == len(b) == 30
    assert np.array_equal(a.trick, b.trick)  # the same decisions, whichever teacher searched them
    again = measure(LabelJob(30, 5, RuleConfig(), REWARD, SEARCH4, player))
    assert np.array_equal(a.set_agree, again.set_agree) and np.array_equal(a.card_se, again.card_se)
    figures = report(a)
    assert figures["all"]["decisions"] == 30
    assert sum(f["decisions"] for f in figures["by_trick"].values()) == 30
    assert (a.set_agree[a.same_best] == 1).all()  # the same card is always among the equally good
    assert 0 <= figures["all"]["same_best"] <= 1 and figures["all"]["median_se"] > 0


def test_only_a_fixed_size_search_on_the_core_is_measured():
    with pytest.raises(ConfigError):
        searcher(make_agent("heuristic"))
    with pytest.raises(ConfigError):
        searcher(SearchAgent(0, SearchConfig(time_budget=0.1)))
    assert isinstance(searcher(make_agent("search")), SearchAgent)


@pytest.mark.parametrize(
    "args",
    [
        ["--teacher", "tests/train/search1.json"],
        ["--teacher", "heuristic"],
        ["--positions", "0"],
        ["--policy", "no/such/bundle"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args):
    out = tmp_path / "n.json"
    r = subprocess.run(
        [sys.executable, "-m", "train", "noise", "--out", str(out), *args], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error:") and len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_out_must_be_a_json_file_and_the_command_writes_its_report(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "train", "noise", "--out", str(tmp_path / "weights.pt")], capture_output=True, text=True
    )
    assert r.returncode == 2 and ".json" in r.stderr
    out = tmp_path / "n.json"
    r = subprocess.run(
        [sys.executable, "-m", "train", "noise", "--positions", "12", "--teacher", SEARCH4]
        + ["--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    report = json.loads(out.read_text())
    assert report["all"]["decisions"] == 12 and report["teacher"] == SEARCH4


def test_random_module_unused():  # the draws flow from the seed argument, not the global random
    state = random.getstate()
    measure(LabelJob(6, 1, RuleConfig(), REWARD, SEARCH4, _player()))
    assert random.getstate() == state


def test_a_pruned_teacher_is_measured_on_the_cards_it_searches(tmp_path):
    """Under ``prune`` each search is the pruned teacher's judgement (its candidates' values and
    its card), and a decision it plays unsearched (one card left) is not measured."""
    spec = {"agent": "netsearch", "params": {"worlds": 8, "calls": "heuristic", "prune": 0.2}}
    (tmp_path / "pruned.json").write_text(json.dumps(spec))
    narrowed = skipped = 0
    for view in _views(40):
        teacher = make_agent(str(tmp_path / "pruned.json"), 9)
        candidates = teacher.candidates(view)
        s = search_once(teacher, view)
        if len(candidates) == 1:
            assert s is None
            skipped += 1
            continue
        judged = make_agent(str(tmp_path / "pruned.json"), 9).judge(view)
        assert s is not None and judged.values is not None
        assert list(judged.values) == candidates
        assert np.array_equal(s.values, [judged.values[c] for c in candidates])
        assert candidates[s.pick] == judged.action
        narrowed += len(candidates) < len(cards_of(view.legal_mask))
    assert narrowed > 3 and skipped > 0
