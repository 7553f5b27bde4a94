"""The opponents' mixing weights, one rule for both backends (``train.opponents.category_weights``)."""

import pytest

from train.opponents import CATEGORIES, category_weights


def test_empty_categories_drop_out_and_the_rest_keep_their_weights():
    assert CATEGORIES == ("self", "champion", "heuristic", "random")
    assert category_weights((0.5, 0.3, 0.2, 0.0), (True, False, True, True)) == [0.5, 0.0, 0.2, 0.0]


def test_nothing_left_means_random_alone():
    # only "self" weighted and no snapshot yet
    assert category_weights((1.0, 0.0, 0.0, 0.0), (False, False, True, True)) == [0.0, 0.0, 0.0, 1.0]


def test_the_rllib_league_draws_by_the_same_rule():
    league = pytest.importorskip("train.rllib.league")
    mapping = league.LeagueMapping((1.0, 0.0, 0.0, 0.0), snapshots=0, champions=0, heuristic=True)
    assert {mapping.draw(str(k))[1] for k in range(50)} == {"random"}
    mapping = league.LeagueMapping((1.0, 1.0, 0.0, 0.0), snapshots=2, champions=0, heuristic=True)
    assert {mapping.draw(str(k))[1] for k in range(200)} == {"main_v0", "main_v1"}


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
