"""Expert iteration (``train.expert``): the learner's positions, the teacher's labels, the targets,
and the rounds inside a training run (promotion stamps, checkpoints, resume)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.neural.network import BalootNet, NetSpec
from baloot_env.actions import NUM_CARD_ACTIONS
from baloot_env.observation import OBS_SIZE
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from train.config import ConfigError, config_from_dict
from train.labels import LabelJob, Labels, label, set_agreement

REWARD = Reward("diff", 44.0)
SEARCH4 = "tests/train/search4.json"  # the search teacher with 4 worlds: fast


def _player(seed: int = 0, privileged: bool = False):
    torch.manual_seed(seed)
    net = BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,), privileged_critic=privileged))
    return net.spec.to_dict(), net.state_dict()


def test_the_positions_are_the_learners_and_only_the_labels_are_the_teachers():
    """With learner_share 1 the games (and so the observations) do not depend on the teacher;
    the labels do. With learner_share 0 the teacher plays: its own games."""
    player = _player()
    a = label(LabelJob(120, 5, RuleConfig(), REWARD, "heuristic", player, False, learner_share=1.0))
    b = label(LabelJob(120, 5, RuleConfig(), REWARD, "random", player, False, learner_share=1.0))
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.values, b.values)
    assert not np.array_equal(a.actions, b.actions)
    teacher_games = label(LabelJob(120, 5, RuleConfig(), REWARD, "heuristic", player, False, learner_share=0.0))
    alone = label(LabelJob(120, 5, RuleConfig(), REWARD, "heuristic", None, False))
    assert np.array_equal(teacher_games.obs, alone.obs)
    assert not np.array_equal(teacher_games.obs, a.obs)
    legal = a.masks[np.arange(len(a)), a.actions] == 1
    assert legal.all()  # every label is a legal action of its position
    assert np.allclose(a.policy.sum(1), 1) and (a.policy[a.masks == 0] == 0).all()  # the learner's policy
    assert not alone.policy.any()  # no learner, no policy


def test_search_values_every_legal_card_of_a_searched_choice_and_the_value_is_the_hands_outcome():
    labels = label(LabelJob(96, 2, RuleConfig(), REWARD, SEARCH4, _player(privileged=True), True))
    valued = ~np.isnan(labels.action_values)
    rows = valued.any(axis=1)
    assert rows.sum() > 10
    assert np.array_equal(valued[rows], labels.masks[rows] == 1)  # exactly the legal cards are valued
    best = np.nanmax(labels.action_values[rows], axis=1)  # and the teacher plays a best one
    assert np.allclose(labels.action_values[rows][np.arange(rows.sum()), labels.actions[rows]], best)
    assert labels.obs.shape[1] > OBS_SIZE  # the privileged part for the critic


def test_a_teacher_that_searches_its_calls_values_every_legal_call_and_makes_a_best_one(tmp_path):
    """With ``calls: searched`` the bids and doubles are labelled like the cards: every legal call
    valued, the teacher's call among the best; the plain search leaves every call unvalued."""
    spec = tmp_path / "calls.json"
    spec.write_text(json.dumps({"agent": "search", "params": {"worlds": 4, "calls": "searched", "condition": True}}))
    player = _player()
    searched = label(LabelJob(240, 3, RuleConfig(), REWARD, str(spec), player, False))
    plain = label(LabelJob(240, 3, RuleConfig(), REWARD, SEARCH4, player, False))
    assert np.array_equal(searched.obs, plain.obs)  # the learner plays: the same positions
    calls = searched.masks[:, NUM_CARD_ACTIONS:].any(axis=1) & (searched.masks.sum(axis=1) >= 2)
    assert calls.sum() > 10
    valued = ~np.isnan(searched.action_values)
    assert np.array_equal(valued[calls], searched.masks[calls] == 1)
    best = np.nanmax(searched.action_values[calls], axis=1)
    assert np.allclose(searched.action_values[calls][np.arange(calls.sum()), searched.actions[calls]], best)
    assert np.isnan(plain.action_values[calls]).all()
    cards = ~calls & (plain.masks.sum(axis=1) >= 2)  # the card choices are searched by both
    assert np.array_equal(~np.isnan(plain.action_values[cards]), ~np.isnan(searched.action_values[cards]))
    dropped = searched.without_call_values()  # fit --call-values drop: the calls as the plain search leaves them
    assert np.isnan(dropped.action_values[calls]).all()
    assert np.array_equal(dropped.action_values[~calls], searched.action_values[~calls], equal_nan=True)
    assert not np.isnan(searched.action_values[calls]).all()  # the original is untouched


def test_targets_are_one_hot_or_the_softmax_of_the_action_values():
    nan = np.nan
    values = np.full((3, 42), nan, dtype=np.float32)
    values[0, [3, 7]] = [1.0, 0.0]  # a searched choice between two cards
    values[2, [1, 2, 4]] = [0.5, 0.5, -0.5]  # two tied cards
    labels = Labels(
        obs=np.zeros((3, 4), np.float32),
        masks=np.ones((3, 42), np.int8),
        actions=np.array([3, 35, 1]),
        action_values=values,
        values=np.zeros(3, np.float32),
        policy=np.zeros((3, 42), np.float32),
    )
    hard = labels.targets(0.0)
    assert np.array_equal(hard.argmax(1), [3, 35, 1]) and np.allclose(hard.sum(1), 1)
    soft = labels.targets(0.5)
    e = np.exp(2.0)
    assert soft[0, 3] == pytest.approx(e / (e + 1)) and soft[0, 7] == pytest.approx(1 / (e + 1))
    assert soft[1, 35] == 1.0  # a bid: the teacher's call
    assert soft[2, 1] == pytest.approx(soft[2, 2]) and soft[2, 4] == pytest.approx(soft[2, 1] / e)
    with pytest.raises(ValueError, match="learner's policy"):
        labels.targets(0.5, "improve")  # the teacher played: no policy to improve
    labels.policy[:, [1, 2, 3, 4, 7, 35]] = [0.1, 0.3, 0.2, 0.2, 0.1, 0.1]
    improved = labels.targets(0.5, "improve")
    # row 0: pi(3) e^0 and pi(7) e^-2, normalised; row 1 (a bid): the learner's policy as it was
    assert improved[0, 3] == pytest.approx(0.2 / (0.2 + 0.1 / e)) and improved[0, 7] == pytest.approx(
        (0.1 / e) / (0.2 + 0.1 / e)
    )
    assert np.allclose(improved[1], labels.policy[1])
    # row 2: the tied cards keep the learner's 1:3 preference, the worse card is scaled down by e
    w = np.array([0.1, 0.3, 0.2 / e])
    assert np.allclose(improved[2, [1, 2, 4]], w / w.sum()) and improved[2].sum() == pytest.approx(1)
    figures = labels.figures()
    assert figures["searched_share"] == pytest.approx(2 / 3) and figures["tied_share"] == 0.5


def test_labels_files_hold_plain_arrays_only(tmp_path):
    labels = label(LabelJob(40, 1, RuleConfig(), REWARD, "heuristic", None, False))
    labels.save(tmp_path / "l.npz")
    again = Labels.load(tmp_path / "l.npz")
    assert all(np.array_equal(getattr(labels, f), getattr(again, f), equal_nan=True) for f in Labels.FIELDS)
    fields = {f: getattr(labels, f) for f in Labels.FIELDS}
    np.savez(tmp_path / "bad.npz", **(fields | {"obs": np.array([object()], dtype=object)}))
    with pytest.raises(ValueError, match="not a labels file"):
        Labels.load(tmp_path / "bad.npz")  # an object array would need a pickle: refused
    np.savez(tmp_path / "short.npz", obs=labels.obs)
    with pytest.raises(ValueError, match="lacks"):
        Labels.load(tmp_path / "short.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a labels file"):
        Labels.load(tmp_path / "junk.npz")


def test_the_expert_command_labels_and_fits_and_refuses_bad_input_in_one_line(tmp_path, capsys):
    from agents.neural.bundle import load_net, save_bundle
    from train.__main__ import main

    torch.manual_seed(0)
    net = BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,), privileged_critic=True))
    save_bundle(tmp_path / "b", net, name="b")
    labels, out = str(tmp_path / "l.npz"), str(tmp_path / "fitted")
    args = ["--policy", str(tmp_path / "b"), "--workers", "1", "--quiet"]
    assert main(["expert", "label", *args, "--positions", "64", "--teacher", SEARCH4, "--out", labels]) == 0
    assert main(["expert", "fit", *args, "--labels", labels, "--epochs", "1", "--out", out]) == 0
    fitted, _ = load_net(out)
    assert not all(torch.equal(a, b) for a, b in zip(net.parameters(), fitted.parameters(), strict=True))
    capsys.readouterr()
    for bad in (
        ["expert", "label", *args, "--positions", "0", "--out", labels],
        ["expert", "label", *args, "--teacher", "nobody", "--out", labels],
        ["expert", "fit", *args, "--labels", str(tmp_path / "none.npz"), "--out", out],
        ["expert", "fit", *args, "--labels", labels, "--targets", "improve", "--temperature", "0", "--out", out],
    ):
        assert main(bad) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error:") and "\n" not in err


def _tiny(tmp_path, rounds: int, **extra):
    from tests.train.test_train import tiny

    return config_from_dict(
        tiny(
            tmp_path,
            expert={"rounds": rounds, "positions": 160, "teacher": SEARCH4, "epochs": 1, "workers": 1},
            eval={"every": 0, "deals": 8, "final_deals": 2, "workers": 1, "promote": True},
            pretrain={"positions": 200, "epochs": 1, "workers": 1},
            ppo={"total_steps": 0},
            **extra,
        )
    )


def test_a_run_plays_its_rounds_before_ppo_and_a_killed_run_resumes_at_its_round(tmp_path):
    from train.trainer import Trainer

    straight = Trainer(_tiny(tmp_path / "a", 2), quiet=True).open()
    warm = [p.detach().clone() for p in straight.net.parameters()]
    straight.run()
    assert straight.expert_done == 2 and [s["round"] for s in straight.expert_stats] == [1, 2]
    assert not all(torch.equal(a, b) for a, b in zip(warm, straight.net.parameters(), strict=True))
    rounds = [e.get("expert_round") for e in straight.evals]
    assert rounds.count(1) >= 1 and rounds.count(2) >= 1  # each round is evaluated, stamped with its round
    history = (tmp_path / "a" / "run" / "promotions.jsonl").read_text().splitlines()
    assert len(history) == 2  # one promotion test a round, the champion folder named by the round
    assert all("expert_00" in json.loads(line)["candidate"] for line in history)
    straight.close()

    # the same run stopped after round 1, then resumed with 2 rounds: the same weights at the end
    first = Trainer(_tiny(tmp_path / "b", 1), quiet=True)
    first.run()
    first.close()
    resumed = Trainer(_tiny(tmp_path / "b", 2), resume=True, quiet=True).open()
    assert resumed.expert_done == 1
    resumed.run()
    resumed.close()
    assert resumed.expert_done == 2
    assert all(torch.equal(a, b) for a, b in zip(straight.net.parameters(), resumed.net.parameters(), strict=True))


def test_aggregated_rounds_fit_the_earlier_labels_again_and_a_resumed_run_finds_them(tmp_path):
    """expert.aggregate 1: round 2 fits round 1's labels beside its own; the kept files are the
    ones the next round needs; a run stopped after round 1 and resumed ends with the same weights."""
    from train.trainer import Trainer

    def tiny(folder, rounds):
        cfg = _tiny(folder, rounds)
        return replace(cfg, expert=replace(cfg.expert, aggregate=1))

    straight = Trainer(tiny(tmp_path / "a", 2), quiet=True)
    straight.run()
    straight.close()
    first, second = straight.expert_stats
    assert first["fitted"] == first["positions"] and second["fitted"] == first["positions"] + second["positions"]
    kept = sorted(p.name for p in (tmp_path / "a" / "run" / "expert_labels").iterdir())
    assert kept == ["round_002.npz"]  # round 1's labels are no longer needed

    stopped = Trainer(tiny(tmp_path / "b", 1), quiet=True)
    stopped.run()
    stopped.close()
    assert (tmp_path / "b" / "run" / "expert_labels" / "round_001.npz").is_file()
    resumed = Trainer(tiny(tmp_path / "b", 2), resume=True, quiet=True)
    resumed.run()
    resumed.close()
    assert resumed.expert_stats[1]["fitted"] == second["fitted"]
    assert all(torch.equal(a, b) for a, b in zip(straight.net.parameters(), resumed.net.parameters(), strict=True))


def test_expert_settings_are_checked(tmp_path):
    with pytest.raises(ConfigError, match="expert.learner_share must be"):
        config_from_dict({}, ["expert.learner_share=1.5"])
    with pytest.raises(ConfigError, match="expert.teacher"):
        config_from_dict({}, ["expert.teacher=nobody"])
    with pytest.raises(ConfigError, match="expert.aggregate must be"):
        config_from_dict({}, ["expert.aggregate=-1"])
    with pytest.raises(ConfigError, match="expert.rounds must be"):
        config_from_dict({}, ["expert.rounds=-1"])


def test_the_curve_lists_every_rounds_evaluation_against_each_opponent(tmp_path, capsys):
    from train.__main__ import main
    from train.curve import run_points
    from train.trainer import Trainer

    cfg = _tiny(tmp_path, 2)
    cfg = replace(cfg, eval=replace(cfg.eval, opponents=("heuristic", "random")))
    with Trainer(cfg, quiet=True) as t:
        t.run()
        made = [e for e in t.evals if e["deal_set"] == cfg.eval.deal_set]
    points = run_points(cfg.run_dir)
    assert [(p.expert_round, p.mean) for p in points] == [(e["expert_round"], e["mean"]) for e in made]
    for k in (1, 2):
        fixed = sorted(p.opponent for p in points if p.expert_round == k and p.fixed)
        assert fixed == ["heuristic", "random"]  # each opponent of eval.opponents after each round
    champions = [p.opponent for p in points if not p.fixed]  # the promotion tests after heuristic's
    assert all(Path(c).parent.name == "champions" for c in champions)
    png = tmp_path / "out" / "curve.png"
    assert main(["curve", cfg.run_dir, "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert out.count("round 1") + out.count("round 2") == len(points) and "random" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for bad in ([str(tmp_path / "nowhere")], [cfg.run_dir, "--png", str(tmp_path / "x.txt")]):
        assert main(["curve", *bad]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error:") and "\n" not in err


def test_guide_lets_the_learner_play_the_teachers_playouts(tmp_path):
    """``expert.guide``: the labels of a netsearch teacher with policy playouts are those of the
    same teacher whose ``rollout`` bundle is the learner, and not those of its own rollout."""
    from agents.neural.bundle import save_bundle

    player = _player(seed=2)
    net = BalootNet(NetSpec.from_dict(player[0]))
    net.load_state_dict(player[1])
    bundle = save_bundle(tmp_path / "learner", net, name="learner", rules=RuleConfig())
    params = {"leaves": "policy", "worlds": 4, "calls": "heuristic"}
    guided, fixed = tmp_path / "guided.json", tmp_path / "fixed.json"
    guided.write_text(json.dumps({"agent": "netsearch", "params": params}))
    fixed.write_text(json.dumps({"agent": "netsearch", "params": {**params, "rollout": str(bundle)}}))
    a = label(LabelJob(80, 3, RuleConfig(), REWARD, str(guided), player, False, guide=True))
    b = label(LabelJob(80, 3, RuleConfig(), REWARD, str(fixed), player, False))
    c = label(LabelJob(80, 3, RuleConfig(), REWARD, str(guided), player, False))  # the champion plays the playouts
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.obs, c.obs)  # the learner's games every time
    assert np.array_equal(a.action_values, b.action_values, equal_nan=True)
    assert not np.array_equal(a.action_values, c.action_values, equal_nan=True)
    with pytest.raises(ConfigError, match="expert.guide needs a teacher whose playouts a network plays"):
        config_from_dict({"expert": {"guide": True, "teacher": SEARCH4}})
    config_from_dict({"expert": {"guide": True, "teacher": str(guided)}})  # accepted


def _judged_labels():
    """Five decisions, hand-made: three card choices with the teacher's errors, a call without
    values and a searched call without errors (the learner's policy everywhere)."""
    nan = np.nan
    n = 5
    values = np.full((n, 42), nan, dtype=np.float32)
    errors = np.full((n, 42), nan, dtype=np.float32)
    policy = np.zeros((n, 42), dtype=np.float32)
    masks = np.zeros((n, 42), dtype=np.int8)
    # 0: card 3 played (1.0); card 7 0.2 worse, error 0.4 (z 0.5); card 9 1.0 worse, error 0.25 (z 4)
    values[0, [3, 7, 9]], errors[0, [3, 7, 9]], policy[0, [3, 7, 9]] = [1.0, 0.8, 0.0], [0, 0.4, 0.25], [0.2, 0.5, 0.3]
    # 1: card 7 0.1 worse, error 0.2: the teacher cannot tell the two apart
    values[1, [3, 7]], errors[1, [3, 7]], policy[1, [3, 7]] = [1.0, 0.9], [0, 0.2], [0.1, 0.9]
    # 2: a call, not searched
    policy[2, [32, 35]] = [0.6, 0.4]
    # 3: an exact endgame: card 5 one point worse in every world (error 0)
    values[3, [4, 5]], errors[3, [4, 5]], policy[3, [4, 5]] = [2.0, 1.0], [0, 0], [0.3, 0.7]
    # 4: a searched call: values, no errors
    values[4, [32, 35]], policy[4, [32, 35]] = [0.0, 1.0], [0.5, 0.5]
    masks[policy > 0] = 1
    return Labels(
        obs=np.zeros((n, OBS_SIZE), np.float32),
        masks=masks,
        actions=np.array([3, 3, 32, 4, 35]),
        action_values=values,
        values=np.zeros(n, np.float32),
        policy=policy,
        action_errors=errors,
    )


def test_matched_targets_weigh_each_card_by_its_gap_in_standard_errors():
    labels = _judged_labels()
    t = labels.targets(0.05, "matched")
    w = np.array([0.2, 0.5 * np.exp(-0.5), 0.3 * np.exp(-4.0)])
    assert t[0, [3, 7, 9]] == pytest.approx(w / w.sum())
    assert t[0].sum() == pytest.approx(1.0)
    assert np.array_equal(t[1], labels.policy[1])  # indistinct: the learner's own policy
    assert np.array_equal(t[2], labels.policy[2]) and np.array_equal(t[4], labels.policy[4])
    assert t[3, 4] == 1.0 and t[3, 5] == 0.0  # a sure gap takes all the weight away
    old = replace(labels, action_errors=None)  # a labels file without the errors
    with pytest.raises(ValueError, match="errors"):
        old.targets(0.05, "matched")


def test_set_agreement_counts_the_students_card_among_the_equally_good():
    labels = _judged_labels()
    rows, good = labels.equally_good()
    assert rows.tolist() == [True, True, False, True, False]
    assert good[0, [3, 7, 9]].tolist() == [True, True, False] and good[2, [4, 5]].tolist() == [True, False]
    share, n = set_agreement(labels, np.array([7, 7, 32, 5, 32]))
    assert n == 3 and share == pytest.approx(2 / 3)
    assert set_agreement(labels, np.array([9, 3, 32, 4, 32]))[0] == pytest.approx(2 / 3)


def test_labels_files_keep_the_errors_and_older_files_load_without_them(tmp_path):
    labels = _judged_labels()
    labels.save(tmp_path / "new.npz")
    back = Labels.load(tmp_path / "new.npz")
    assert np.array_equal(back.action_errors, labels.action_errors, equal_nan=True)
    np.savez_compressed(tmp_path / "old.npz", **{f: getattr(labels, f) for f in Labels.FIELDS if f != "action_errors"})
    old = Labels.load(tmp_path / "old.npz")
    assert np.isnan(old.action_errors).all()


def test_a_search_teacher_labels_each_cards_error(tmp_path):
    labels = label(LabelJob(96, 2, RuleConfig(), REWARD, SEARCH4, _player(), False))
    valued = ~np.isnan(labels.action_values)
    cards = valued[:, :NUM_CARD_ACTIONS].sum(axis=1) >= 2
    assert cards.sum() > 10
    errors = labels.action_errors[cards]
    assert np.array_equal(~np.isnan(errors), valued[cards])  # an error for every valued card
    assert (errors[np.arange(cards.sum()), labels.actions[cards]] == 0).all() and (errors[~np.isnan(errors)] >= 0).all()


@pytest.mark.parametrize(
    "argv",
    [
        # label: the teacher's file, a file inside the policy bundle, the shipped bundles
        ["label", "--teacher", "{teacher}", "--out", "{teacher}"],
        ["label", "--policy", "{bundle}", "--out", "{bundle}/weights.pt"],
        ["label", "--out", "policies/champion/labels.npz"],
        # fit: over the bundle it starts from, over the shipped champion, over their folder, into a
        # folder of other files, onto its labels
        ["fit", "--labels", "{labels}", "--policy", "{bundle}", "--out", "{bundle}"],
        ["fit", "--labels", "{labels}", "--out", "policies/champion"],
        ["fit", "--labels", "{labels}", "--policy", "{bundle}", "--out", "policies"],
        ["fit", "--labels", "{labels}", "--policy", "{bundle}", "--out", "{others}"],
        ["fit", "--labels", "{labels}", "--policy", "{bundle}", "--out", "{labels}"],
    ],
)
def test_an_expert_output_never_destroys_an_input_or_a_shipped_bundle(tmp_path, argv, capsys):
    """Issue 46, goal 2: refused in one line with exit code 2, and nothing is changed."""
    from agents.neural.bundle import save_bundle
    from train.__main__ import main

    spec, weights = _player()
    net = BalootNet(NetSpec.from_dict(spec))
    net.load_state_dict(weights)
    bundle = save_bundle(tmp_path / "bundle", net, name="bundle", rules=RuleConfig())
    teacher = tmp_path / "teacher.json"
    teacher.write_text(Path(SEARCH4).read_text())
    labels = tmp_path / "labels.npz"
    _judged_labels().save(labels)
    others = tmp_path / "notes"
    others.mkdir()
    (others / "todo.txt").write_text("keep me")
    places = {"teacher": teacher, "bundle": bundle, "labels": labels, "others": others}
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    shipped = {p: p.stat().st_mtime_ns for p in Path("policies").resolve().rglob("*") if p.is_file()}
    assert main(["expert", *(a.format(**places) for a in argv), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --out") and "\n" not in err, err
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert {p: p.stat().st_mtime_ns for p in Path("policies").resolve().rglob("*") if p.is_file()} == shipped


def _real_labels(n: int = 4) -> dict[str, np.ndarray]:
    masks = np.zeros((n, 42), np.int8)
    masks[:, :3] = 1
    return {
        "obs": np.zeros((n, OBS_SIZE), np.float32),
        "masks": masks,
        "actions": np.zeros(n, np.int64),
        "action_values": np.full((n, 42), np.nan, np.float32),
        "values": np.zeros(n, np.float32),
        "policy": np.full((n, 42), 0.0, np.float32),
    }


def _forged_header(path):
    """A tiny .npz whose obs header claims 10^10 rows (30 TiB): refused before it is inflated."""
    import io
    import zipfile

    arrays = _real_labels()
    with zipfile.ZipFile(path, "w") as z:
        for name, a in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, a)
            data = buf.getvalue()
            if name == "obs":
                header = np.lib.format.header_data_from_array_1_0(a) | {"shape": (10**10, OBS_SIZE)}
                head = io.BytesIO()
                np.lib.format.write_array_header_1_0(head, header)
                data = head.getvalue() + data[len(head.getvalue()) :]
            z.writestr(f"{name}.npy", data)


LABEL_FORGERIES = [
    (lambda a: a.update(values=np.array([np.nan, 0, 0, 0], np.float32)), "must be finite"),
    (lambda a: a["obs"].__setitem__((0, 0), np.inf), "must be finite"),
    (lambda a: a["masks"].__setitem__(slice(None), 0), "a legal action at every position"),
    (lambda a: a.update(actions=np.array([99, 0, 0, 0])), "ids in"),
    (lambda a: a.update(actions=np.array([5, 0, 0, 0])), "must be legal"),
    (lambda a: [a.__setitem__(k, v[:0]) for k, v in list(a.items())], "no positions"),
    (lambda a: a.update(obs=np.zeros((4, 10), np.float32)), "obs must be N x"),
    (lambda a: a.update(values=np.zeros(3, np.float32)), "values must have shape"),
    (lambda a: a.update(obs=np.zeros((4, OBS_SIZE, 2), np.float32)), "obs must be N x"),
    (lambda a: a.update(values=np.zeros(4, np.complex64)), "not numbers"),
    (lambda a: a.update(action_values=np.full((4, 42), np.inf, np.float32)), "finite where given"),
]


@pytest.mark.parametrize("forge,match", LABEL_FORGERIES, ids=[m for _, m in LABEL_FORGERIES])
def test_a_labels_file_is_checked_before_it_is_fitted(tmp_path, forge, match):
    """Issue 46, goal 4: shapes, kinds, finite numbers and legal actions, in one line."""
    arrays = _real_labels()
    Labels(**arrays).check()  # the real one passes
    forge(arrays)
    np.savez_compressed(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=match):
        Labels.load(tmp_path / "bad.npz")


def test_a_labels_file_that_claims_more_than_the_memory_is_refused_before_inflating(tmp_path, capsys):
    from train.__main__ import main

    _forged_header(tmp_path / "huge.npz")
    assert (tmp_path / "huge.npz").stat().st_size < 100_000
    with pytest.raises(ValueError, match="more than this machine"):
        Labels.load(tmp_path / "huge.npz")
    assert main(["expert", "fit", "--labels", str(tmp_path / "huge.npz"), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err and not (tmp_path / "o").exists()
