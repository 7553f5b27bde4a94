"""People's games as imitation data (``pretrain.games``): the moves people made at the table,
exported by ``python -m table export``, are learnt as that seat saw them."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest
import torch

from agents.neural.network import BalootNet, NetSpec
from agents.registry import make_agent
from baloot_env.deal import parse_deal
from baloot_env.driver import DealSource, Table
from baloot_env.errors import ConfigError
from baloot_env.hand import HandState
from baloot_env.observation import OBS_SIZE
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView
from eval.deals import load_named
from eval.games import GamesError, load_games
from table.export import export_games
from table.store import Store
from train.config import PretrainConfig, check_games
from train.labels import people_positions
from train.pretrain import pretrain

KINDS = ("person", "bot", "person", "bot")


def stored_hand(deal, rules: RuleConfig, seed: int, agent: str = "heuristic") -> dict:
    """A hand played on the engine by ``agent`` in every seat, stored as the table stores it: the
    people's seats 0 and 2, every fifth of their moves a time-out (the clock's, not theirs)."""
    state = HandState(deal, rules)
    player = make_agent(agent, seed)
    actions = []
    while state.result is None:
        seat = state.to_act
        action = player.act(PlayerView.from_state(state, seat))
        by = "bot" if KINDS[seat] == "bot" else ("timeout" if len(actions) % 5 == 4 else "person")
        actions.append([seat, action, 0.5 * len(actions), by])
        state.apply(action)
    return {
        "deal": deal.to_dict(),
        "rules": rules.to_dict(),
        "match_score": [0, 0],
        "actions": actions,
        "result": state.result.to_info(),
        "room": "r1",
        "number": seed,
        "meta": {"names": ["Noura", "b1", "Lana", "b3"], "seats": [{"kind": k} for k in KINDS]},
    }


def games_file(tmp_path, deals, rules_of=lambda i: RuleConfig(), agent: str = "heuristic", name: str = "people"):
    store = Store(tmp_path / f"{name}.sqlite")
    for i, deal in enumerate(deals):
        store.add_hand(stored_hand(deal, rules_of(i), i, agent), "live")
    out = tmp_path / f"{name}.json"
    export_games(tmp_path / f"{name}.sqlite", out)
    return out


def driver_positions(hand: dict, reward: Reward) -> list[tuple[np.ndarray, np.ndarray, int, float]]:
    """The oracle: the hand played again on the game driver (``Table``), each person's own move
    as that seat's view on the driver showed it, with the driver's reward for its team."""
    table = Table(RuleConfig.from_dict(hand["rules"]), "hand", DealSource(deals=[parse_deal(hand["deal"])]), reward)
    table.reset()
    seen, teams = [], []
    outcome = None
    for seat, action, _t, by in hand["actions"]:
        assert table.to_act == seat
        if by == "person":
            view = PlayerView.from_table(table, seat)
            seen.append((view.observation(), view.action_mask(), action))
            teams.append(seat % 2)
        outcome = table.apply(action)
    assert outcome is not None and outcome.hand_result is not None
    return [(o, m, a, outcome.rewards[t]) for (o, m, a), t in zip(seen, teams, strict=True)]


def test_the_people_moves_are_positions_as_their_seat_saw_them(tmp_path):
    deals = random.Random(7).sample(load_named("small").deals, 6)
    path = games_file(tmp_path, deals)
    games = load_games(path)
    reward = Reward("diff", 44.0)
    people = people_positions(games, RuleConfig(), reward, privileged=False)
    expected = [p for g in games.games for p in driver_positions(g, reward)]
    assert len(people) == len(expected) > 0
    for k, (o, m, a, v) in enumerate(expected):
        assert np.array_equal(people.obs[k], o) and np.array_equal(people.masks[k], m.astype(np.int8))
        assert people.targets[k].argmax() == a and people.targets[k].sum() == 1.0
        assert people.values[k] == pytest.approx(v)
    # time-outs and the bots' moves are not the people's: 2 seats of 4, 4 moves in 5 of theirs
    moves = sum(len(g["actions"]) for g in games.games)
    assert len(people) < moves / 2


def test_the_privileged_part_holds_the_four_hands_from_the_acting_seat(tmp_path):
    path = games_file(tmp_path, load_named("small").deals[:2])
    games = load_games(path)
    people = people_positions(games, RuleConfig(), Reward(), privileged=True)
    first = games.games[0]
    seat = next(s for s, _a, _t, by in first["actions"] if by == "person")
    hands = HandState(parse_deal(first["deal"]), RuleConfig()).hands
    held = people.obs[0, OBS_SIZE:].reshape(4, 32)
    for rel in range(4):
        assert [c for c in range(32) if held[rel, c]] == [c for c in range(32) if hands[(seat + rel) % 4] >> c & 1]


def test_games_under_other_rules_are_left_out(tmp_path):
    other = RuleConfig(projects=False)
    path = games_file(tmp_path, load_named("small").deals[:4], rules_of=lambda i: other if i % 2 else RuleConfig())
    people = people_positions(load_games(path), RuleConfig(), Reward(), privileged=False)
    assert people.skipped == 2 and set(people.game.tolist()) == {0, 2}


def test_a_warm_start_on_people_games_alone_learns_their_moves(tmp_path):
    path = games_file(tmp_path, load_named("small").deals[:40])
    torch.manual_seed(0)
    net = BalootNet(NetSpec(trunk=(64,), head_hidden=32, value_hidden=(16,), obs_size=OBS_SIZE))
    people = people_positions(load_games(path), RuleConfig(), Reward(), privileged=False)
    obs, masks = torch.from_numpy(people.obs), torch.from_numpy(people.masks)

    def agreement() -> float:
        with torch.no_grad():
            logits, _ = net(obs, masks)
        return float((logits.argmax(1).numpy() == people.targets.argmax(1)).mean())

    before = agreement()
    cfg = PretrainConfig(positions=0, games=str(path), epochs=20, batch_size=64, learning_rate=3e-3, workers=1)
    stats = pretrain(net, cfg, 3, RuleConfig(), Reward(), quiet=True)
    assert stats["people_positions"] == len(people) and stats["people_games_skipped"] == 0
    # two whole games of the 40 (5%) held out, not moves scattered over every hand
    per_game = np.bincount(people.game)
    held = len(people) - stats["positions"]
    assert held in {int(per_game[i] + per_game[j]) for i, j in itertools.combinations(range(40), 2)}
    assert 0.0 <= stats["people_heldout_accuracy"] <= 1.0
    assert agreement() > before + 0.2  # it learnt the people's (here heuristic's) moves


def test_games_teach_beside_the_teacher_positions(tmp_path):
    path = games_file(tmp_path, load_named("small").deals[:3])
    people = people_positions(load_games(path), RuleConfig(), Reward(), privileged=False)
    net = BalootNet(NetSpec(trunk=(16,), head_hidden=8, value_hidden=(8,), obs_size=OBS_SIZE))
    cfg = PretrainConfig(positions=300, games=str(path), epochs=1, batch_size=64, workers=1)
    stats = pretrain(net, cfg, 3, RuleConfig(), Reward(), quiet=True)
    assert stats["positions"] == 300 + len(people)  # under 20 games, none held out
    assert "heldout_accuracy" in stats and "people_heldout_accuracy" not in stats


def test_bad_games_files_are_refused_with_one_line(tmp_path):
    with pytest.raises(ConfigError, match="test set"):
        check_games(str(games_file(tmp_path, load_named("test960").deals[:2], name="t")), RuleConfig())
    with pytest.raises(ConfigError, match="no move of a person under the run's rules"):
        check_games(str(games_file(tmp_path, load_named("small").deals[:2], name="p")), RuleConfig(projects=False))
    deal_set_only = tmp_path / "deals.json"
    deal_set_only.write_text(json.dumps(load_named("small").head(2).to_json()))
    with pytest.raises(ConfigError, match="no games"):
        check_games(str(deal_set_only), RuleConfig())
    # a game edited so that a move breaks the rules (a card played twice) is not a game
    path = games_file(tmp_path, load_named("small").deals[:2], name="e")
    data = json.loads(path.read_text())
    actions = data["games"][1]["actions"]
    last = max(i for i, a in enumerate(actions) if a[1] < 32)
    actions[last][1] = actions[last - 4][1]
    path.write_text(json.dumps(data))
    with pytest.raises(GamesError, match="game 1"):
        load_games(path)
    with pytest.raises(ConfigError, match=r"pretrain.games: .*game 1"):
        check_games(str(path), RuleConfig())
    with pytest.raises(ConfigError, match="does not exist"):
        check_games(str(tmp_path / "missing.json"), RuleConfig())
