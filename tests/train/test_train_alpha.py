"""A training run spends its false-promotion rate over all its promotion tests (Bonferroni)."""

from __future__ import annotations

import json

import pytest
import yaml

from train.config import config_from_dict, load_config
from train.evaluation import planned_evaluations, planned_tests, promotion_alpha_per_test
from train.trainer import Trainer

RUN = {
    "ppo": {"processes": 1, "n_envs": 4, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "total_steps": 500},
    "net": {"trunk": [16], "head_hidden": 8, "value_hidden": [8]},
    "log_every": 128,
    "checkpoint_every": 256,
    "eval": {
        "every": 160,
        "deals": 4,
        "final_deals": 2,
        "final_deal_set": "small",
        "deal_set": "small",
        "workers": 1,
        "promote": True,
        "promotion_alpha": 0.02,
    },
    "pretrain": {"positions": 0},
    "expert": {"rounds": 0},
}


@pytest.mark.parametrize(
    "total, rollout, every, expected",
    [
        (4_000_000, 4096, 2_000_000, 2),  # tests at 2M and 4M
        (2_000_000, 4096, 2_000_000, 1),  # configs/default.yaml's PPO: a test at 2M
        (1_000_000, 4096, 250_000, 4),  # configs/rllib.yaml: tests at 250k, 500k, 750k, 1M
        (4_500_000, 4096, 1_500_000, 3),  # configs/strong.yaml
        (500, 128, 160, 3),  # updates end at 128, 256, ..., 512: due at 160, 320, 480
        (1_000_000, 4096, 0, 0),
        (100, 128, 1000, 0),
    ],
)
def test_planned_evaluations_replay_the_schedule(total, rollout, every, expected):
    assert planned_evaluations(total, rollout, every) == expected


def test_the_shipped_configs_plan_what_the_docs_say():
    # default.yaml: after its expert round and at 2M; strong.yaml: at 1.5M, 3M, 4.5M; expert.yaml: after each round
    for name, tests in (("configs/default.yaml", 2), ("configs/strong.yaml", 3), ("configs/expert.yaml", 4)):
        assert planned_tests(load_config(name)) == tests, name
    assert promotion_alpha_per_test(0.025, 4) == pytest.approx(0.00625)
    assert promotion_alpha_per_test(0.025, 0) == 0.025


def test_every_promotion_test_of_a_run_uses_its_share_of_the_run_alpha(tmp_path):
    d = yaml.safe_load(yaml.safe_dump(RUN))
    d["run_dir"] = str(tmp_path / "run")
    trainer = Trainer(config_from_dict(d), quiet=True)
    try:
        trainer.run()
    finally:
        trainer.close()
    lines = (tmp_path / "run" / "promotions.jsonl").read_text().splitlines()
    history = [json.loads(line) for line in lines]
    assert len(history) == 3  # as planned: the test above counts the same schedule by hand
    assert all(e["alpha"] == pytest.approx(0.02 / 3) for e in history)
