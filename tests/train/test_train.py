"""Training: config, policy heads and masks, self-play rewards, seeding, checkpoints, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
import yaml

from agents.neural.network import BalootNet, NetSpec
from baloot_env.observation import OBS_SIZE
from baloot_env.rewards import Reward
from train.checkpoint import CheckpointError, latest_checkpoint, load_checkpoint, save_checkpoint
from train.config import ConfigError, EnvConfig, OpponentConfig, config_from_dict, load_config
from train.opponents import OpponentPool
from train.selfplay import SelfPlayVecEnv

TINY = {
    "ppo": {"processes": 1, "n_envs": 4, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "total_steps": 256},
    "net": {"trunk": [32], "head_hidden": 16, "value_hidden": [16]},
    "log_every": 128,
    "checkpoint_every": 128,
    "eval": {"every": 0, "deals": 2, "final_deals": 2, "workers": 1, "promote": False},
    "pretrain": {"positions": 300, "epochs": 1},
    "expert": {"rounds": 0},
}


def tiny(tmp_path, **extra) -> dict:
    d = yaml.safe_load(yaml.safe_dump(TINY))
    d["run_dir"] = str(tmp_path / "run")
    for k, v in extra.items():
        d.setdefault(k, {}).update(v) if isinstance(v, dict) else d.__setitem__(k, v)
    return d


# ---------------------------------------------------------------------- config
def test_config_files_load_and_unknown_keys_are_errors(tmp_path):
    for name in ("configs/default.yaml", "configs/strong.yaml"):
        cfg = load_config(name)
        assert cfg.ppo.total_steps > 0
    with pytest.raises(ConfigError, match=r"unknown config keys \['lr'\] in ppo"):
        config_from_dict({"ppo": {"lr": 0.1}})
    with pytest.raises(ConfigError, match="unknown config key"):
        config_from_dict({"bogus": 1})
    with pytest.raises(ConfigError, match="ppo.n_envs must be an integer"):
        config_from_dict({}, ["ppo.n_envs=many"])
    cfg = config_from_dict({}, ["ppo.learning_rate=0.001", "net.trunk=[64, 64]"])
    assert cfg.ppo.learning_rate == 0.001 and cfg.net.trunk == (64, 64)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


# ---------------------------------------------------------------------- policy
def _masks(n: int, rng: np.random.Generator) -> np.ndarray:
    masks = np.zeros((n, 42), dtype=np.int8)
    for row in masks:
        if rng.random() < 0.5:  # a play decision: some cards
            row[rng.choice(32, size=rng.integers(1, 9), replace=False)] = 1
        else:  # a bidding decision
            row[32] = 1
            row[rng.choice(np.arange(33, 42), size=rng.integers(1, 4), replace=False)] = 1
    return masks


def test_masked_actions_are_never_sampled():
    from gymnasium import spaces

    from train.policy import BalootPolicy

    torch.manual_seed(0)
    policy = BalootPolicy(
        spaces.Box(0, 1, (OBS_SIZE,), np.float32),
        spaces.Discrete(42),
        lambda _: 1e-3,
        net_spec=NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,)).to_dict(),
    )
    rng = np.random.default_rng(0)
    masks = _masks(2000, rng)
    obs = torch.rand(2000, OBS_SIZE)
    with torch.no_grad():
        actions, _, _ = policy(obs, action_masks=masks.astype(bool))
    actions = actions.numpy()
    assert all(masks[i, a] == 1 for i, a in enumerate(actions))
    assert len(set(actions.tolist())) > 20  # it really samples, across both heads


def test_heads_drive_their_own_actions():
    """Card logits (0-31) come only from the card head, bid logits (32-41) only from the bid head."""
    torch.manual_seed(1)
    net = BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,)))
    obs = torch.rand(8, OBS_SIZE)
    h = net.features(obs)
    before = net.logits_from_features(h).detach().clone()
    with torch.no_grad():
        for p in net.card_head.parameters():
            p.add_(1.0)
    after = net.logits_from_features(h).detach()
    assert torch.equal(before[:, 32:], after[:, 32:])
    assert not torch.allclose(before[:, :32], after[:, :32])
    with torch.no_grad():
        for p in net.bid_head.parameters():
            p.add_(1.0)
    again = net.logits_from_features(h).detach()
    assert torch.equal(after[:, :32], again[:, :32])
    assert not torch.allclose(after[:, 32:], again[:, 32:])


def test_privileged_critic_reads_hidden_hands_only_in_value():
    torch.manual_seed(2)
    net = BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,), privileged_critic=True))
    obs = torch.rand(4, OBS_SIZE + 128)
    mask = torch.ones(4, 42, dtype=torch.int8)
    logits1, v1 = net(obs, mask)
    obs2 = obs.clone()
    obs2[:, OBS_SIZE:] = torch.rand(4, 128)
    logits2, v2 = net(obs2, mask)
    assert torch.equal(logits1, logits2)  # the actor never sees the hidden hands
    assert not torch.allclose(v1, v2)


# ---------------------------------------------------------------------- self-play rewards
def _pool(seed=0, **weights) -> OpponentPool:
    cfg = OpponentConfig(
        **{"self_weight": 0.0, "champion_weight": 0.0, "heuristic_weight": 1.0, "random_weight": 1.0, **weights}
    )
    return OpponentPool(cfg, NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,)), seed)


def _run_games(episode: str, steps: int = 1500, seed: int = 0):
    venv = SelfPlayVecEnv(4, EnvConfig(episode=episode), _pool(seed), seed)
    venv.reset()
    rng = np.random.default_rng(seed)
    log = []
    for _ in range(steps):
        masks = venv.action_masks()
        seats = [g.hand.to_act for g in venv.games]
        teams = [g.learner_team for g in venv.games]
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        venv.step_async(acts)
        _, rewards, dones, infos = venv.step_wait()
        log.append((seats, teams, rewards.copy(), dones.copy(), infos))
    return venv, log


def test_rewards_reach_both_partners_and_lost_hands_end_negative():
    venv, log = _run_games("hand")
    seats_by_team = {0: set(), 1: set()}
    done_rewards, negative_done = 0, 0
    for seats, teams, rewards, dones, infos in log:
        for i in range(4):
            assert seats[i] % 2 == teams[i]  # the learner only ever acts for its own team
            seats_by_team[teams[i]].add(seats[i])
            if dones[i]:
                s = infos[i]["episode_summary"]
                want = (s["score"][0] - s["score"][1]) / 44.0
                assert rewards[i] == pytest.approx(want, abs=1e-6)  # the hand's result lands on its last decision
                done_rewards += 1
                negative_done += rewards[i] < 0
            else:
                assert rewards[i] == 0.0  # hand episodes: nothing before the end
    assert seats_by_team[0] == {0, 2} and seats_by_team[1] == {1, 3}  # both partners' decisions are learner steps
    assert done_rewards > 50 and negative_done > 10  # losing hands end with their negative reward


def test_match_episodes_reward_each_hand_and_end_at_match_end():
    venv, log = _run_games("match", steps=2500)
    mid_rewards = sum(1 for _, _, r, d, _ in log for i in range(4) if r[i] != 0 and not d[i])
    ends = [(r[i], inf[i]["episode_summary"]) for _, _, r, d, inf in log for i in range(4) if d[i]]
    assert mid_rewards > 20  # hands inside a match pay out as they end
    assert ends, "no match finished"
    for reward, summary in ends:
        # The last step pays the last hand's difference from the learner's side (R7, scaled by 44)
        # plus the match bonus (1.0) for the winner, minus it for the loser; nothing for a draw.
        last = summary["hands"][-1]
        diff = 0 if last["thrown"] else last["diff"]
        me, them = summary["score"]
        bonus = 1.0 if summary["won"] else (-1.0 if me != them else 0.0)
        assert reward == pytest.approx(diff / 44.0 + bonus, abs=1e-6), (reward, summary)
        assert summary["won"] == (me > them)  # the match winner is the team ahead (R8.1-R8.4)
    assert all(len(s["hands"]) >= 1 for _, s in ends)


def test_same_seed_same_games():
    _, a = _run_games("hand", steps=300, seed=5)
    _, b = _run_games("hand", steps=300, seed=5)
    _, c = _run_games("hand", steps=300, seed=6)
    key = lambda log: [(s, t, r.tolist(), d.tolist()) for s, t, r, d, _ in log]  # noqa: E731
    assert key(a) == key(b)
    assert key(a) != key(c)


# ---------------------------------------------------------------------- runs
def _params(trainer) -> list[torch.Tensor]:
    return [p.detach().clone() for p in trainer.model.policy.parameters()]


def test_training_on_the_core_backend_updates_the_network_as_on_the_python_backend(tmp_path):
    """Self-play on the batched core (the default) plays the Python driver's games, opponents'
    choices included (pool snapshots sampled from blocks, heuristic kernels, random on masks), so
    the same seed gives the same weights and the same games in progress, bit for bit."""
    from train.trainer import Trainer

    runs = []
    for backend in ("core", "python"):
        d = tiny(tmp_path / backend, pretrain={"positions": 0}, opponents={"snapshot_every": 64})
        with Trainer(config_from_dict(d), quiet=True, backend=backend) as t:
            t.model.learn(384)
            assert len(t.pool.snapshots) > 2 and t.venv.backend == backend
            runs.append((_params(t), t.venv.state()))
    (core, core_games), (python, python_games) = runs
    assert all(torch.equal(a, b) for a, b in zip(core, python, strict=True))
    assert core_games == python_games


@pytest.mark.slow  # over 10 s on 2 cores
def test_same_seed_gives_same_first_updates(tmp_path):
    from train.trainer import Trainer

    runs = []
    for k in range(2):
        cfg = config_from_dict(tiny(tmp_path / str(k), ppo={"total_steps": 256}))
        t = Trainer(cfg, quiet=True)
        t.run()
        runs.append(_params(t))
    assert all(torch.equal(a, b) for a, b in zip(*runs, strict=True))
    cfg = config_from_dict(tiny(tmp_path / "other", seed=1))
    t = Trainer(cfg, quiet=True)
    t.run()
    assert not all(torch.equal(a, b) for a, b in zip(runs[0], _params(t), strict=True))


@pytest.mark.slow  # over 10 s on 2 cores
def test_killed_run_resumes_from_its_checkpoint_with_the_same_state(tmp_path):
    from train.trainer import Trainer

    straight = Trainer(config_from_dict(tiny(tmp_path / "a", ppo={"total_steps": 512})), quiet=True)
    straight.run()
    # the same run "killed" after its first checkpoint (256 decisions), then resumed to 512
    first = Trainer(config_from_dict(tiny(tmp_path / "b", ppo={"total_steps": 256})), quiet=True)
    first.run()
    first.close()  # the run dir's lock: a second Trainer there is refused while the first holds it
    run_dir = tmp_path / "b" / "run"
    assert latest_checkpoint(run_dir).name == "step_000000256.pt"
    resumed = Trainer(config_from_dict(tiny(tmp_path / "b", ppo={"total_steps": 512})), resume=True, quiet=True).open()
    assert resumed.steps == 256
    assert all(torch.equal(a, b) for a, b in zip(_params(first), _params(resumed), strict=True))
    resumed.run()
    assert resumed.steps == 512
    assert all(torch.equal(a, b) for a, b in zip(_params(straight), _params(resumed), strict=True))
    assert [len(g.hand.history) for g in straight.venv.games] == [len(g.hand.history) for g in resumed.venv.games]


def test_corrupt_or_foreign_checkpoints_are_refused(tmp_path):
    path = save_checkpoint(tmp_path, 10, {"x": 1})
    assert load_checkpoint(path)["x"] == 1
    bad = tmp_path / "checkpoints" / "bad.pt"
    bad.write_bytes(path.read_bytes()[:100])
    with pytest.raises(CheckpointError, match="corrupt or unreadable"):
        load_checkpoint(bad)
    data = torch.load(path, weights_only=False)
    data["obs_version"] = 999
    torch.save(data, bad)
    with pytest.raises(CheckpointError, match="observation version 999"):
        load_checkpoint(bad)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        latest_checkpoint(tmp_path / "nothing")


def test_cli_tiny_run_writes_checkpoint_tensorboard_config_and_bundle(tmp_path, capsys):
    from agents.neural.bundle import load_policy
    from train.__main__ import main

    cfg_path = tmp_path / "tiny.yaml"
    cfg_path.write_text(yaml.safe_dump(tiny(tmp_path)))
    assert main(["--config", str(cfg_path), "--quiet"]) == 0
    run = tmp_path / "run"
    assert (run / "config.yaml").is_file()
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["ppo"]["n_envs"] == 4 and saved["net"]["trunk"] == [32]  # the resolved config
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run / "tb"))
    events.Reload()
    sections = {t.split("/")[0] for t in events.Tags()["scalars"]}
    assert {"charts", "losses", "eval", "selfplay", "pretrain"} <= sections
    assert "train" not in sections  # SB3's train/* written once, as losses/* (tests/train/test_tensorboard.py)
    assert latest_checkpoint(run).is_file()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["final_evaluation"]
    history_file = run / "promotions.jsonl"
    history = [json.loads(line) for line in history_file.read_text().splitlines()] if history_file.exists() else []
    tests, promoted = len(history), sum(e["promoted"] for e in history)
    assert summary["promotions"] == {"tests": tests, "promoted": promoted}
    agent = load_policy(run / "bundles" / "final")
    assert agent.manifest["evaluations"][0]["opponent"] == "heuristic"
    out = capsys.readouterr().out
    assert "duplicate vs heuristic" in out
    champion_line = next(line for line in out.splitlines() if line.strip().startswith("champion "))
    assert _promotion_words(tests, promoted) in champion_line, champion_line
    assert main(["--config", str(tmp_path / "nope.yaml")]) == 2


def _promotion_words(tests: int, promoted: int) -> str:
    if not tests:
        return "no promotion test in this run"
    return (
        f"{promoted} of {tests} promotion test(s) passed"
        if promoted
        else f"none of the {tests} promotion test(s) passed"
    )


@pytest.mark.parametrize("tests, promoted", [(0, 0), (2, 0), (2, 1)])
def test_the_summary_says_how_many_promotion_tests_passed(tests, promoted):
    from train.skeleton import format_summary

    summary = {"run_dir": "runs/x", "steps": 10, "seconds": 1.0, "decisions_per_s": 10.0, "selfplay": {},
               "final_evaluation": [], "bundle": "runs/x/bundles/final", "champion": "heuristic",
               "promotions": {"tests": tests, "promoted": promoted}}  # fmt: skip
    line = next(x for x in format_summary(summary).splitlines() if x.strip().startswith("champion "))
    assert line.split(":", 1)[1].strip() == f"heuristic ({_promotion_words(tests, promoted)}" + (
        ": the trained policy was not shown better)" if tests and not promoted else ")"
    )


def test_a_run_of_zero_decisions_checkpoints_and_resumes(tmp_path):
    """Warm start only (total_steps 0): the checkpoint holds games not yet started."""
    from train.trainer import Trainer

    with Trainer(config_from_dict(tiny(tmp_path, ppo={"total_steps": 0})), quiet=True) as t:
        assert t.run()["steps"] == 0
    resumed = Trainer(config_from_dict(tiny(tmp_path, ppo={"total_steps": 128})), resume=True, quiet=True)
    resumed.run()
    assert resumed.steps >= 128


def test_resuming_a_finished_run_changes_nothing_until_its_config_asks_for_more(tmp_path, capsys):
    from train.__main__ import main

    cfg_path = tmp_path / "tiny.yaml"
    cfg_path.write_text(yaml.safe_dump(tiny(tmp_path, ppo={"total_steps": 128})))
    assert main(["--config", str(cfg_path), "--quiet"]) == 0
    run = tmp_path / "run"
    files = ["summary.json", "bundles/final/weights.pt", "bundles/final/manifest.json", "checkpoints/latest"]
    before = {f: ((run / f).read_bytes(), (run / f).stat().st_mtime_ns) for f in files}
    checkpoints = sorted(p.name for p in (run / "checkpoints").iterdir())
    capsys.readouterr()
    assert main(["--resume", str(run), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"run {run} is finished" in out and "nothing to do" in out and "decisions to go" not in out
    assert {f: ((run / f).read_bytes(), (run / f).stat().st_mtime_ns) for f in files} == before
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == checkpoints
    steps = json.loads((run / "summary.json").read_text())["steps"]
    saved = yaml.safe_load((run / "config.yaml").read_text())
    saved["ppo"]["total_steps"] = steps + 128  # the documented way to continue a finished run
    (run / "config.yaml").write_text(yaml.safe_dump(saved))
    assert main(["--resume", str(run), "--quiet"]) == 0
    assert "is finished" not in capsys.readouterr().out
    assert json.loads((run / "summary.json").read_text())["steps"] >= steps + 128


@pytest.mark.slow  # over 10 s on 2 cores
def test_warm_start_labels_come_from_the_named_teacher():
    """pretrain.teacher: labels are that agent's choices (here `search` and `heuristic` differ)."""
    from baloot_env.rules import RuleConfig
    from train.config import PretrainConfig
    from train.pretrain import collect_parallel

    rules = RuleConfig()
    # one worker: one stream of 256 games (chunks of 37 would hold only the first hands to end,
    # passed-out ones, worth 0)
    h = collect_parallel(PretrainConfig(positions=300, teacher="heuristic", workers=1), 4, rules, Reward(), False, True)
    again = collect_parallel(
        PretrainConfig(positions=300, teacher="heuristic", workers=1), 4, rules, Reward(), False, True
    )
    assert all(np.array_equal(a, b) for a, b in zip(h, again, strict=True))  # seeded
    obs, masks, targets, values = h
    assert obs.shape == (300, OBS_SIZE) and set(np.unique(targets)) == {0.0, 1.0}  # one-hot labels
    assert all(masks[i, a] == 1 for i, a in enumerate(targets.argmax(1)))
    assert np.abs(values).max() > 0  # hands' outcomes reach the value targets
    s = collect_parallel(PretrainConfig(positions=120, teacher="search"), 4, rules, Reward(), False, True)
    assert all(s[1][i, a] == 1 for i, a in enumerate(s[2].argmax(1)))
    assert not np.array_equal(s[2], h[2][:120])  # a different teacher, different choices


def test_soft_targets_follow_the_search_values():
    """pretrain.soft_temperature: a searched card choice teaches softmax(value / T) over the legal
    cards (largest on the card search plays); other positions stay one-hot."""
    from baloot_env.rules import RuleConfig
    from train.pretrain import collect

    obs, masks, targets, _ = collect(150, 3, RuleConfig(), 0.0, Reward(), False, "search", soft_temperature=2.0)
    hard = collect(150, 3, RuleConfig(), 0.0, Reward(), False, "search")[2]
    assert np.allclose(targets.sum(1), 1.0) and np.all(targets[masks == 0] == 0)  # only legal actions
    soft = (targets > 0).sum(1) > 1
    assert soft.sum() > 20  # the searched choices
    played = hard[soft].argmax(1)  # the card search plays carries the largest target (ties: equal values)
    assert np.allclose(targets[soft][np.arange(soft.sum()), played], targets[soft].max(1))
    assert np.array_equal(targets[~soft], hard[~soft])  # bids, doubling and forced cards: the label


def test_soft_temperature_must_not_be_negative(tmp_path):
    with pytest.raises(ConfigError, match="soft_temperature"):
        config_from_dict(tiny(tmp_path, pretrain={"positions": 10, "soft_temperature": -1.0}))


def test_a_fresh_run_moves_an_earlier_run_aside(tmp_path):
    from train.trainer import Trainer

    cfg = config_from_dict(tiny(tmp_path, ppo={"total_steps": 128}))
    with Trainer(cfg, quiet=True) as t:
        t.run()
    Trainer(cfg, quiet=True).open().close()
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("run.old-")]
    assert len(kept) == 1 and latest_checkpoint(kept[0]).is_file()  # the earlier run is intact
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_init_from_a_bundle_starts_from_its_weights_and_refuses_another_architecture(tmp_path, monkeypatch):
    """The bundle is loaded once, when the config is validated, and the frame starts from that
    network; a bundle written again since is loaded again."""
    from agents.neural.bundle import save_bundle
    from train import config as train_config
    from train.trainer import Trainer

    loads = []
    real_load = train_config.load_net
    monkeypatch.setattr(train_config, "load_net", lambda path: loads.append(path) or real_load(path))

    cfg = config_from_dict(tiny(tmp_path, pretrain={"positions": 0}))
    src = Trainer(cfg, quiet=True).open()
    with torch.no_grad():
        for p in src.net.parameters():
            p.add_(0.5)  # weights no fresh network has
    save_bundle(tmp_path / "b", src.net, name="b")
    src.close()
    t = Trainer(
        config_from_dict(tiny(tmp_path, pretrain={"positions": 0}, init_from=str(tmp_path / "b"))), quiet=True
    ).open()
    for a, b in zip(t.net.state_dict().values(), src.net.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    t.close()
    assert len(loads) == 1
    with torch.no_grad():
        for p in src.net.parameters():
            p.mul_(-1.0)
    save_bundle(tmp_path / "b2", src.net, name="b2")
    (tmp_path / "b").rename(tmp_path / "b_old")
    (tmp_path / "b2").rename(tmp_path / "b")  # new files at the same path
    t = Trainer(
        config_from_dict(tiny(tmp_path, pretrain={"positions": 0}, init_from=str(tmp_path / "b"))), quiet=True
    ).open()
    assert len(loads) == 2 and all(
        torch.equal(a, b) for a, b in zip(t.net.parameters(), src.net.parameters(), strict=True)
    )
    t.close()
    other = tiny(tmp_path, pretrain={"positions": 0}, init_from=str(tmp_path / "b"))
    other["net"]["head_hidden"] = 7
    with pytest.raises(ConfigError, match="init_from: bundle .* has architecture"):
        Trainer(config_from_dict(other), quiet=True).open()
    with pytest.raises(ConfigError, match="init_from"):
        Trainer(config_from_dict(tiny(tmp_path, init_from=str(tmp_path / "missing"))), quiet=True).open()


def test_parallel_labelling_fills_every_row_in_order_and_is_seeded():
    from baloot_env.rules import RuleConfig
    from train.config import PretrainConfig
    from train.pretrain import collect, collect_parallel

    cfg = PretrainConfig(
        positions=90, workers=2, backend="python", teacher="heuristic"
    )  # the driver, 8 chunks of 11-12 positions, seeds 4..11
    a = collect_parallel(cfg, 4, RuleConfig(), Reward(), False, True)
    assert all(
        np.array_equal(x, y)
        for x, y in zip(a, collect_parallel(cfg, 4, RuleConfig(), Reward(), False, True), strict=True)
    )
    first = collect(12, 4, RuleConfig(), cfg.random_share, Reward(), False)  # chunk 0
    last = collect(11, 11, RuleConfig(), cfg.random_share, Reward(), False)  # chunk 7
    assert np.array_equal(a[0][:12], first[0]) and np.array_equal(a[2][-11:], last[2])
    assert (a[2].sum(1) == 1).all()  # every row labelled


def test_the_final_evaluation_skips_a_champion_that_is_the_policy_itself(tmp_path):
    """A policy promoted at the last step is not evaluated against itself (d would be 0)."""
    from agents.neural.bundle import save_bundle
    from train.evaluation import same_weights as _same_weights

    net = BalootNet(NetSpec())
    save_bundle(tmp_path / "a", net, name="a")
    save_bundle(tmp_path / "copy", net, name="copy")
    with torch.no_grad():
        next(net.parameters()).add_(1.0)
    save_bundle(tmp_path / "other", net, name="other")
    assert _same_weights(tmp_path / "a", str(tmp_path / "copy"))
    assert not _same_weights(tmp_path / "a", str(tmp_path / "other"))
    assert not _same_weights(tmp_path / "a", "heuristic")


def test_batched_observations_equal_each_games_own_encoding_and_privileged_hands():
    """SelfPlayVecEnv builds all games' observations at once; each row is that game's acting
    seat's encode() plus (privileged critic) its four hands, and the masks are the legal ones."""
    from baloot_env.observation import action_mask, encode

    venv = SelfPlayVecEnv(6, EnvConfig(), _pool(3), 3, privileged=True)
    obs = venv.reset()
    rng = np.random.default_rng(3)
    for _ in range(40):
        masks = venv.action_masks()
        for i, g in enumerate(venv.games):
            seat = g.hand.to_act
            assert np.array_equal(obs[i, :OBS_SIZE], encode(g.hand, seat))
            for k in range(4):  # me, next, partner, previous: 32 bits each (R1.2 ids)
                hand = g.hand.hands[(seat + k) % 4]
                assert [c for c in range(32) if obs[i, OBS_SIZE + 32 * k + c]] == [
                    c for c in range(32) if hand >> c & 1
                ]
            assert np.array_equal(masks[i], action_mask(g.hand, seat).astype(bool))
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, *_ = venv.step_wait()


def test_warm_start_value_targets_follow_the_training_reward():
    """pretrain's value head learns the training reward (baloot_env.rewards), whatever its mode:
    a number is the "diff" scale (as before), points are unscaled, win is the hand's sign."""
    from baloot_env.rewards import Reward
    from baloot_env.rules import RuleConfig
    from train.pretrain import collect

    diff = collect(150, 1, RuleConfig(), 0.1, Reward(), False)[3]
    assert np.array_equal(diff, collect(150, 1, RuleConfig(), 0.1, Reward("diff"), False)[3])
    points = collect(150, 1, RuleConfig(), 0.1, Reward("points"), False)[3]
    win = collect(150, 1, RuleConfig(), 0.1, Reward("win"), False)[3]
    assert np.allclose(points / 44.0, diff) and np.abs(points).max() > 1.0
    assert set(np.unique(win)) <= {-1.0, 0.0, 1.0} and np.array_equal(win, np.sign(diff))


def test_eval_opponents_are_agents_each_named_once():
    cfg = config_from_dict({"eval": {"opponents": ["heuristic", "search", "tests/train/search4.json"]}})
    assert cfg.eval.opponents == ("heuristic", "search", "tests/train/search4.json")
    with pytest.raises(ConfigError, match="eval.opponents: unknown agent 'nobody'"):
        config_from_dict({"eval": {"opponents": ["heuristic", "nobody"]}})
    with pytest.raises(ConfigError, match="eval.opponents must be without repeats"):
        config_from_dict({"eval": {"opponents": ["search", "search"]}})


def test_a_checkpoint_whose_content_changed_or_whose_weights_are_not_finite_is_refused(tmp_path):
    """Issue 46, goal 3: checkpoints are verified like bundles (their content's digest, finite
    weights); format 2, written before the digest, still loads."""
    from train.checkpoint import DIGEST, UNCHECKED_FORMATS, content_digest

    path = save_checkpoint(tmp_path, 10, {"policy": {"w": torch.ones(3)}, "x": [1, 2.5, "a"]})
    data = load_checkpoint(path)
    assert data[DIGEST] == content_digest(data)
    bad = tmp_path / "checkpoints" / "step_000000010.pt"
    changed = dict(data, policy={"w": torch.tensor([1.0, 1.0, 1.0000001])})  # one weight, digest kept
    torch.save(changed, bad)
    with pytest.raises(CheckpointError, match="corrupt: its content does not match"):
        load_checkpoint(bad)
    torch.save(dict(data, x=[1, 2.5, "b"]), bad)  # plain data too
    with pytest.raises(CheckpointError, match="does not match"):
        load_checkpoint(bad)
    nan = dict(data, policy={"w": torch.tensor([1.0, float("nan"), 1.0])})
    nan[DIGEST] = content_digest(nan)  # a well-formed file of NaN weights
    torch.save(nan, bad)
    with pytest.raises(CheckpointError, match="policy weight w is not finite"):
        load_checkpoint(bad)
    old = {k: v for k, v in data.items() if k != DIGEST} | {"format": UNCHECKED_FORMATS[0]}
    torch.save(old, bad)
    assert load_checkpoint(bad)["x"] == [1, 2.5, "a"]
