"""``python -m train calls``: searched calls as the teacher of a policy's bid head.

The positions are call decisions with a choice; the labels are the searched calls; training
moves only the bid head, so the card play, the trunk and the value are the base policy's to the
bit; fitting raises the agreement with the labels; bad input exits 2 before any work.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.neural.bundle import load_net, load_policy
from agents.neural.policy import PolicyAgent
from agents.search_player.player import SearchAgent, SearchConfig
from baloot_env.actions import NUM_ACTIONS
from baloot_env.cards import cards_of
from baloot_env.hand import BIDDING, DOUBLING
from baloot_env.rules import RuleConfig
from train.call_iteration import collect_call_views, main, searched_labels, train_bid_head
from train.config import CallsConfig

CHAMPION = "policies/champion"


def test_positions_are_call_decisions_with_a_choice():
    net, manifest = load_net(CHAMPION)
    views = collect_call_views(60, PolicyAgent(net, manifest, deterministic=False), 0.5, RuleConfig(), seed=1)
    assert len(views) == 60
    assert all(v.phase in (BIDDING, DOUBLING) and len(cards_of(v.legal_mask)) > 1 for v in views)
    assert len({(v.seat, v.hand, v.bids) for v in views}) > 30  # many different decisions
    again = collect_call_views(60, PolicyAgent(net, manifest, deterministic=False), 0.5, RuleConfig(), seed=1)
    assert [v.observation().tobytes() for v in views] == [v.observation().tobytes() for v in again]


def test_labels_are_the_searched_calls():
    net, manifest = load_net(CHAMPION)
    views = collect_call_views(12, PolicyAgent(net, manifest, deterministic=False), 0.5, RuleConfig(), seed=2)
    labels = searched_labels(views, CallsConfig(worlds=16), 3, quiet=True)
    search_cfg = SearchConfig(worlds=16, calls="searched", condition=True)
    for i, view in enumerate(views):
        assert view.legal_mask >> int(labels[i]) & 1
        assert labels[i] == SearchAgent(3 * 1_000_003 + i, search_cfg).choose_call(view)


def test_training_moves_only_the_bid_head_and_fits_the_labels():
    net, manifest = load_net(CHAMPION)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    views = collect_call_views(400, PolicyAgent(net, manifest, deterministic=False), 0.5, RuleConfig(), seed=4)
    obs = np.stack([v.observation() for v in views]).astype(np.float32)
    masks = np.stack([v.action_mask() for v in views]).astype(np.int8)
    # Labels the base head disagrees with: the legal call it likes least, so fitting must move it.
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(obs), torch.from_numpy(masks))
    legal = masks != 0
    labels = np.where(legal, -logits.numpy(), -np.inf).argmax(axis=1).astype(np.int64)
    calls = CallsConfig(epochs=30, learning_rate=3e-3)
    fit = train_bid_head(net, obs, masks, labels, calls, 0, quiet=True)
    assert fit["agreement_before"] < 0.2 and fit["agreement_after"] > fit["agreement_before"] + 0.3
    after = net.state_dict()
    for k, v in before.items():
        if k.startswith("bid_head."):
            continue
        assert torch.equal(v, after[k]), k
    assert any(not torch.equal(before[k], after[k]) for k in before if k.startswith("bid_head."))
    assert all(p.requires_grad for p in net.parameters())  # left trainable for whoever comes next


def test_the_command_writes_a_bundle_whose_card_play_is_the_base_policys(tmp_path):
    out = tmp_path / "calls"
    assert main(["--positions", "80", "--worlds", "8", "--epochs", "2", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["positions"] == 80 and summary["base_policy"]["path"] == CHAMPION
    new, base = load_policy(out / "bundle"), load_policy(CHAMPION)
    views = collect_call_views(1, base, 0.0, RuleConfig(), seed=9)  # any observation will do
    obs = np.repeat(views[0].observation()[None], 2, axis=0)
    card_mask = np.zeros((2, NUM_ACTIONS), dtype=np.int8)
    card_mask[:, :32] = 1
    assert np.array_equal(
        new.logits_and_value(obs, card_mask)[0][:, :32], base.logits_and_value(obs, card_mask)[0][:, :32]
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--positions", "0"],
        ["--worlds", "-1"],
        ["--heuristic-share", "2"],
        ["--policy", "nope"],
        ["--condition", "x"],
        ["--seed", "-1"],
        ["--learning-rate", "nan"],
    ],
)
def test_bad_input_exits_2_with_one_line_before_any_work(argv, tmp_path, capsys, monkeypatch):
    import train.call_iteration as ci

    monkeypatch.setattr(ci, "run", lambda *a, **k: pytest.fail("work started"))
    try:
        code = main([*argv, "--out", str(tmp_path / "o")])
    except SystemExit as e:  # argparse's own refusal (a value of the wrong type)
        code = e.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")


def test_a_training_run_with_a_call_step_changes_only_the_bid_head_after_ppo(tmp_path):
    """``calls.positions`` > 0: the final bundle is the last checkpoint's network with a new bid
    head (trunk, card head and value head equal to the checkpoint's), and the summary has the fit."""
    import yaml
    from test_train import tiny

    from train.__main__ import main as train_main
    from train.checkpoint import latest_checkpoint, load_checkpoint

    cfg = tiny(tmp_path, calls={"positions": 60, "worlds": 4, "epochs": 3})
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg))
    assert train_main(["--config", str(path), "--quiet"]) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["calls"]["positions"] == 60
    final, _ = load_net(tmp_path / "run" / "bundles" / "final")
    ckpt = load_checkpoint(latest_checkpoint(tmp_path / "run"))
    trained = {k[len("net.") :] if k.startswith("net.") else k: v for k, v in ckpt["policy"].items()}
    moved = []
    for k, v in final.state_dict().items():
        match = [t for name, t in trained.items() if name.endswith(k)]
        assert match, k
        if not torch.equal(v, match[0]):
            moved.append(k)
    assert moved and all(k.startswith("bid_head.") for k in moved)
