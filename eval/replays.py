"""The hands of a duplicate run, stored for the replay viewer (``python -m eval --save-hands DB``).

``save_eval_hands`` plays chosen deals of a ``python -m eval`` run again, exactly as the
evaluation played them (``eval.duplicate.play_hand`` with the same per-hand seeds, so the same
actions), and stores both tables of each deal in the hands file (``baloot_io.hands_db``) with
``source = "eval"`` and the deal's index and score difference in ``meta``. The viewer
(``python -m table --db DB``, page ``/replay``) opens the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.registry import make_agent
from baloot_env.deal import parse_deal
from baloot_env.driver import DealSource, Table
from baloot_env.hand import HandState
from baloot_env.rules import RuleConfig
from baloot_io.hands_db import HandsDB
from eval.duplicate import hand_seed, play_hand


def _actions(deal: Any, history: list[int], rules: RuleConfig, names: Sequence[str]) -> list[list[Any]]:
    """[seat, action, time, by] for each action of a hand played without a clock."""
    state = HandState(deal, rules)
    out = []
    for a in history:
        seat = state.to_act
        out.append([seat, a, None, names[seat % 2]])
        state.apply(a)
    return out


def save_eval_hands(
    db: str | Path,
    spec_a: str,
    spec_b: str,
    deal_set: Any,
    records: Sequence[Any],
    seed: int = 0,
    worst: int | None = None,
    rules: RuleConfig | None = None,
) -> int:
    """Store the hands of a duplicate run (``eval.runner.run_duplicate``) in the database ``db``.

    Args:
        db: the SQLite file (created when missing).
        spec_a, spec_b: the agents of the run (``agents.make_agent`` specs).
        deal_set: the run's ``DealSet``; ``records``: its ``RunResult.records``.
        seed: the run's seed (the per-hand seeds come from it, ``eval.duplicate.hand_seed``).
        worst: store only the ``worst`` deals for A (lowest score difference ``d``); None: all.
        rules: the run's rules (default RULES.md).

    Returns:
        How many hands were stored (two per deal: A on team 0, then A on team 1).
    """

    rules = rules or RuleConfig()
    chosen = sorted(records, key=lambda r: (r.d, r.index))
    if worst is not None:
        if worst < 1:
            raise ValueError(f"worst must be >= 1, got {worst}")
        chosen = chosen[:worst]
    agent_a, agent_b = make_agent(spec_a, seed), make_agent(spec_b, seed)
    store = HandsDB(db)
    stored = 0
    try:
        for rank, rec in enumerate(chosen):
            deal = parse_deal(deal_set.deals[rec.index])
            seeds = (hand_seed(seed, "deal", rec.index, 0), hand_seed(seed, "deal", rec.index, 1))
            for table_no, (team0, team1) in enumerate(((agent_a, agent_b), (agent_b, agent_a))):
                table = Table(rules, "hand", DealSource(deals=[deal]))
                table.reset()
                result = play_hand(table, (team0, team1), seeds).hand_result
                if result is None:
                    raise RuntimeError("a played hand has a result")
                names = (spec_a, spec_b) if table_no == 0 else (spec_b, spec_a)
                meta = {"deal_set": deal_set.name, "index": rec.index, "table": table_no, "a": spec_a, "b": spec_b}
                meta |= {"seed": seed, "d": rec.d, "rank": rank, "teams": list(names)}
                meta["reproduced"] = list(result.score) == list(rec.tables[table_no].score)
                hand = {"deal": deal.to_dict(), "rules": rules.to_dict(), "match_score": [0, 0]}
                hand |= {"actions": _actions(deal, table.current_hand.history, rules, names)}
                store.add_hand(hand | {"result": result.to_info(), "meta": meta}, source="eval")
                stored += 1
    finally:
        store.close()
    return stored
