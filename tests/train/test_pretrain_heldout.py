"""The warm start's imitation accuracy is measured on held-out hands, not on its training data."""

from __future__ import annotations

import numpy as np
import torch

from agents.neural.network import BalootNet, NetSpec
from baloot_env.observation import OBS_SIZE
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from train.config import PretrainConfig
from train.pretrain import HELDOUT_SEED_OFFSET, collect, collect_parallel, heldout_size, pretrain


def test_heldout_positions_come_from_other_hands():
    cfg = PretrainConfig(positions=1500, workers=1)
    train = collect_parallel(cfg, 3, RuleConfig(), Reward(), False, quiet=True)
    held = collect(
        heldout_size(cfg.positions), 3 + HELDOUT_SEED_OFFSET, RuleConfig(), cfg.random_share, Reward(), False
    )
    train_rows = {row.tobytes() for row in train[0]}
    shared = sum(row.tobytes() in train_rows for row in held[0])
    assert len(held[0]) == 500
    assert shared <= len(held[0]) // 100  # a few identical opening views at most, never whole hands


def test_pretrain_reports_heldout_and_training_accuracy_separately():
    torch.manual_seed(0)
    net = BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,), obs_size=OBS_SIZE))
    cfg = PretrainConfig(positions=600, epochs=3, batch_size=128, workers=1)
    stats = pretrain(net, cfg, 5, RuleConfig(), Reward(), quiet=True)
    assert "accuracy" not in stats  # the old, ambiguous key
    assert 0.0 <= stats["heldout_accuracy"] <= 1.0 and 0.0 <= stats["train_accuracy"] <= 1.0
    # on 600 positions a small net fits its training data better than hands it has not seen
    assert stats["train_accuracy"] != stats["heldout_accuracy"]
    assert np.isfinite(stats["policy_loss"])
