"""Replays of stored hands (any seat's view, or all four) and the hands of a duplicate
evaluation stored for the viewer (``eval.replays.save_eval_hands``, for ``python -m eval``)."""

from __future__ import annotations

import random

import pytest

from agents.registry import make_agent
from baloot_env.cards import card_name
from baloot_env.driver import DealSource, Table
from baloot_env.view import PlayerView
from eval.deals import generate
from eval.replays import save_eval_hands
from eval.runner import run_duplicate
from table.replay import frames
from table.store import Store


def played_hand(seed: int = 3) -> dict:
    table = Table(None, "hand", DealSource(random.Random(seed)))
    table.reset()
    agent = make_agent("heuristic", seed)
    log = []
    while not table.over:
        seat = table.to_act
        action = agent.act(PlayerView.from_table(table, seat))
        log.append([seat, action, 0.5 * len(log), "bot"])
        table.apply(action)
    hand = table.hand
    return {
        "deal": hand.deal.to_dict(),
        "rules": hand.rules.to_dict(),
        "match_score": [0, 0],
        "actions": log,
        "result": hand.result.to_info(),
    }


def same_result(replayed: dict, stored: dict) -> bool:
    """The replay's result is the stored one, with the hand's qaid beside it (its score the
    result's; None for a thrown-in hand)."""
    q = replayed["qaid"]
    rest = {k: v for k, v in replayed.items() if k != "qaid"}
    return rest == {k: v for k, v in stored.items() if k != "qaid"} and (
        q is None if stored["contract"] is None else q["score"] == stored["score"]
    )


def test_a_stored_hand_replays_from_all_four_and_from_each_seat(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    hand_id = store.add_hand(played_hand())
    hand = store.hand(hand_id)
    everything = frames(hand)
    assert len(everything) == len(hand["actions"]) + 1
    assert everything[0]["step"] is None and same_result(everything[-1]["result"], hand["result"])
    assert sum(len(h) for h in everything[0]["hands"]) == 20  # five each before the contract (R2.2)
    for seat in range(4):
        seen = frames(hand, seat)
        assert len(seen) == len(everything)
        for f, full in zip(seen, everything, strict=True):
            assert "hands" not in f and f["hand"] == full["hands"][seat]  # only its own cards
            assert f["step"] == full["step"]
    step = everything[5]["step"]
    seat4, action4 = hand["actions"][4][:2]
    assert step == {"index": 4, "seat": seat4, "action": action4, "t": 2.0, "by": "bot", "think": 0.5}


def test_thinking_time_is_from_the_previous_move_or_the_end_of_a_finished_tricks_pause():
    played = next(h for h in map(played_hand, range(3, 40)) if h["result"]["contract"])
    hand = {**played, "meta": {"gather": 0.2}}  # a move every 0.5 s; a trick lay 0.2 s of it
    steps = frames(hand)
    done = next(i for i, f in enumerate(steps) if f["gathering"])  # the first trick's fourth card
    assert steps[1]["step"]["think"] == 0.0 and all(f["step"]["think"] == 0.5 for f in steps[2 : done + 1])
    assert steps[done + 1]["step"]["think"] == 0.3  # the lead after it: 0.5 less the 0.2 s pause
    untimed = {**hand, "actions": [[s, a, None, b] for s, a, _t, b in hand["actions"]]}
    assert all(f["step"]["think"] is None for f in frames(untimed)[1:])


def test_a_stored_hand_that_does_not_replay_is_refused():
    hand = played_hand()
    hand["actions"][0][0] = (hand["actions"][0][0] + 1) % 4
    with pytest.raises(ValueError, match="seat"):
        frames(hand)
    with pytest.raises(ValueError, match="view"):
        frames(played_hand(), view=4)


def test_eval_hands_are_stored_worst_first_and_replay_as_they_were_played(tmp_path):
    deal_set = generate("tiny", seed=9, count=6)
    run = run_duplicate("heuristic", "random", deal_set, seed=4, matches=False)
    db = tmp_path / "eval.sqlite"
    assert save_eval_hands(db, "heuristic", "random", deal_set, run.records, seed=4, worst=2) == 4
    store = Store(db)
    hands = store.hands(source="eval")
    worst = sorted(run.records, key=lambda r: (r.d, r.index))[:2]
    assert [h["meta"]["index"] for h in hands] == [worst[0].index] * 2 + [worst[1].index] * 2
    for h in hands:
        meta = h["meta"]
        assert meta["reproduced"] and meta["d"] == next(r.d for r in run.records if r.index == meta["index"])
        rec = next(r for r in run.records if r.index == meta["index"])
        assert h["result"]["score"] == list(rec.tables[meta["table"]].score)
        last = frames(h)[-1]
        assert same_result(last["result"], h["result"]) and last["phase"] == "done"
    # the viewer's first frame shows the deal as it was dealt
    first = frames(hands[0])[0]
    deal = deal_set.deals[hands[0]["meta"]["index"]]
    assert sorted(first["hands"][0]) == sorted(card_name(c) for c in deal.hands[0])


def test_the_server_lists_eval_hands_for_the_viewer(tmp_path):
    pytest.importorskip("fastapi", reason="the table server needs the 'table' extra")
    from table.server import create_app
    from table.testing import get, serve

    deal_set = generate("tiny", seed=9, count=3)
    run = run_duplicate("heuristic", "random", deal_set, seed=1, matches=False)
    db = tmp_path / "eval.sqlite"
    save_eval_hands(db, "heuristic", "random", deal_set, run.records, seed=1)
    with serve(create_app(db, default_agent="heuristic")) as s:
        status, listing = get(s.url + "/api/replays")
        assert status == 200 and len(listing["hands"]) == 6
        ds = [h["meta"]["d"] for h in listing["hands"]]
        assert ds == sorted(ds)
        status, r = get(f"{s.url}/api/hands/{listing['hands'][0]['id']}?view=2")
        assert status == 200 and r["frames"][0]["seat"] == 2
