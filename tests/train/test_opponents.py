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
