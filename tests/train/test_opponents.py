"""The opponents: mixing weights, one rule for both backends (``train.opponents.category_weights``), and the pool's networks in one stacked pass."""

import pytest

from train.opponents import CATEGORIES, category_weights


def test_empty_categories_drop_out_and_the_rest_keep_their_weights():
    assert CATEGORIES == ("self", "champion", "heuristic", "random")
    assert category_weights((0.5, 0.3, 0.2, 0.0), (True, False, True, True)) == [0.5, 0.0, 0.2, 0.0]


def test_nothing_left_means_random_alone():
    # only "self" weighted and no snapshot yet
    assert category_weights((1.0, 0.0, 0.0, 0.0), (False, False, True, True)) == [0.0, 0.0, 0.0, 1.0]


def test_members_travel_without_the_generators():
    """``members()`` -> ``load_members`` gives another pool the same snapshots and champions (the
    RLlib backend's EnvRunners get the driver's this way) and leaves that pool's own draws alone;
    ``reseed`` makes the draws those of a new pool of that seed."""
    import torch

    from agents.neural.network import BalootNet, NetSpec
    from train.config import OpponentConfig
    from train.opponents import OpponentPool

    spec = NetSpec(trunk=(16,), head_hidden=8, value_hidden=(8,))
    cfg = OpponentConfig(self_weight=1.0, champion_weight=1.0, heuristic_weight=0.0, random_weight=0.0)
    driver = OpponentPool(cfg, spec, seed=1)
    driver.add_snapshot("step_0", BalootNet(spec).state_dict())
    champion = BalootNet(spec)
    driver.add_champion("champion@5", champion.state_dict(), spec)
    runner, fresh = OpponentPool(cfg, spec, seed=9), OpponentPool(cfg, spec, seed=9)
    fresh.load_members(driver.members())
    runner.load_members(driver.members())
    assert [o.name for o in runner.snapshots] == ["step_0"] and [o.name for o in runner.champions] == ["champion@5"]
    for k, v in champion.state_dict().items():
        assert torch.equal(runner.champions[0].net.state_dict()[k], v)
    assert [fresh.sample().name for _ in range(30)] == [runner.sample().name for _ in range(30)]  # seed 9's draws
    runner.reseed(1)
    driver_draws = [driver.sample().name for _ in range(30)]
    assert [runner.sample().name for _ in range(30)] == driver_draws
    assert len(set(driver_draws)) == 2  # both categories drawn


def test_both_backends_count_an_episode_the_same_way():
    """The ``selfplay/`` figures come from one count of each episode (``train.selfplay``), fed by
    the hands' R11.4 infos seen from the learner's team (``baloot_env.lockstep.hand_summary``)."""
    from baloot_env.lockstep import hand_summary
    from train.selfplay import episode_counts, selfplay_stats

    def info(contract, caller, level, callers_won, kaboot, score):
        return {
            "contract": contract,
            "caller": caller,
            "level": level,
            "callers_won": callers_won,
            "kaboot": kaboot,
            "score": score,
        }

    hands = [
        info("sun", 1, 1, True, False, [0, 26]),  # they called and made it
        info("hokum", 0, 2, True, True, [88, 0]),  # we called, doubled, kaboot for us
        info(None, -1, 1, False, False, [0, 0]),  # thrown in (R3.5): not a hand for the rates
    ]
    counts = episode_counts("heuristic", 1.5, True, [hand_summary(h, 0) for h in hands])
    assert counts == {
        "episodes": 1.0,
        "reward": 1.5,
        "episodes_vs_heuristic": 1.0,
        "wins_vs_heuristic": 1.0,
        "hands": 2.0,
        "called": 1.0,
        "made": 1.0,
        "doubled": 1.0,
        "kaboot_for": 1.0,
        "diff": 62.0,
    }
    lost = episode_counts("self", -1.0, False, [hand_summary(hands[0], 0)])
    sums = {k: counts.get(k, 0.0) + lost.get(k, 0.0) for k in {*counts, *lost}}
    stats = selfplay_stats(sums)
    assert (
        stats["episode_reward"] == 0.25 and stats["win_rate_vs_heuristic"] == 1.0 and stats["win_rate_vs_self"] == 0.0
    )
    assert stats["call_rate"] == 1 / 3 and stats["made_rate"] == 1.0 and stats["mean_hand_diff"] == (62 - 26) / 3


def test_the_pools_networks_act_in_one_stacked_pass_as_each_would_alone():
    """``StackedNets`` gives each row its own network's logits (the oracle: ``BalootNet``'s own
    forward, one row at a time), and ``OpponentPool.act_nets`` samples only legal actions, one
    draw a row, rebuilding the stack when a snapshot joins."""
    import numpy as np
    import torch

    from agents.neural.network import BalootNet, NetSpec, StackedNets
    from train.config import OpponentConfig
    from train.opponents import OpponentPool

    torch.manual_seed(0)
    spec = NetSpec(trunk=(64, 32), head_hidden=16, value_hidden=(16,), privileged_critic=True)
    nets = [BalootNet(spec) for _ in range(4)]
    g = torch.Generator().manual_seed(1)
    obs = (torch.rand(23, spec.obs_size + 128, generator=g) < 0.2).float()  # the privileged part is ignored
    masks = torch.rand(23, 42, generator=g) < 0.4
    masks[:, 0] = True
    which = torch.tensor([3, 3, 0, 1, 3, 2, 2, 0, 3, 3, 1, 1, 0, 3, 2, 2, 2, 2, 0, 1, 3, 3, 2])
    got = StackedNets(nets).policy_logits(obs, masks, which)
    with torch.inference_mode():
        want = torch.cat(
            [nets[k].policy_logits(obs[i : i + 1], masks[i : i + 1]) for i, k in enumerate(which.tolist())]
        )
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    in_bf16 = StackedNets(nets, torch.bfloat16).policy_logits(obs, masks, which)
    assert in_bf16.dtype == torch.float32 and not torch.equal(in_bf16, got)  # bf16 matrix work, fp32 logits out
    torch.testing.assert_close(in_bf16, want, rtol=0.02, atol=0.02)
    only_one = StackedNets(nets).policy_logits(obs[:2], masks[:2], torch.tensor([3, 3]))  # absent nets: empty blocks
    torch.testing.assert_close(only_one, want[:2], rtol=1e-5, atol=1e-5)

    pool = OpponentPool(OpponentConfig(pool_size=3), spec, seed=0)
    for k, net in enumerate(nets[:2]):
        pool.add_snapshot(f"s{k}", net.state_dict())
    members = [pool.snapshots[k % 2] for k in range(23)]
    acts = pool.act_nets(obs.numpy(), masks.numpy().astype(np.int8), members)
    assert len(acts) == 23 and all(masks[i, a] for i, a in enumerate(acts))
    first = pool._stacks[spec][1]
    pool.add_snapshot("s2", nets[2].state_dict())
    pool.act_nets(obs.numpy(), masks.numpy().astype(np.int8), [pool.snapshots[2]] * 23)
    assert pool._stacks[spec][1] is not first and pool._stacks[spec][1].size == 3
    gone = pool.snapshots[0]
    pool.add_snapshot("s3", nets[3].state_dict())  # pushes s0 out (pool_size 3); its games go on
    assert gone not in pool.snapshots
    acts = pool.act_nets(obs.numpy(), masks.numpy().astype(np.int8), [gone, pool.snapshots[-1]] * 11 + [gone])
    assert all(masks[i, a] for i, a in enumerate(acts)) and pool._stacks[spec][1].size == 4
    with pytest.raises(ValueError, match="one architecture"):
        StackedNets([nets[0], BalootNet(NetSpec())])
