"""Playing duplicate: one deal at two tables with the partnerships swapped, and match chains.

Table 1 seats agent A on seats 0/2 (team 0) and B on 1/3; table 2 seats B on 0/2 and A on
1/3, with the same cards in the same seats (R1.1, R2.4). The per-deal score is
``d = ((A - B) at table 1 + (A - B) at table 2) / 2`` in game points (R7).

The hands are played by the game driver (``baloot_env.driver.Table``, the one behind the
environment and self-play) and every agent decides on its seat's ``PlayerView``, match context
included, so a policy sees in a match chain what it saw in training. Before every hand
each team's agent is re-seeded from (seed, deal index, team); the seed belongs to the seat
position, not to the agent, so the two tables see the same randomness and a deterministic
agent (or two copies of one random agent) against itself scores exactly 0 on every deal.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from agents.base import Agent
from baloot_env.deal import Deal
from baloot_env.driver import DealSource, Outcome, Table
from baloot_env.errors import IllegalActionError
from baloot_env.loop import play
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig


class AgentError(RuntimeError):
    """An agent broke the interface (an illegal action, R9)."""


def hand_seed(seed: int, kind: str, index: int, team: int) -> int:
    """A 63-bit seed for one team's agent in one hand, stable across processes."""
    h = hashlib.blake2b(f"{seed}:{kind}:{index}:{team}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") >> 1


def play_hand(table: Table, team_agents: tuple[Agent, Agent], seeds: tuple[int, int]) -> Outcome:
    """Play the table's current hand to its end with ``team_agents[t]`` on the seats of team t
    (R1.1), each agent re-seeded first; returns the ``Outcome`` of the hand's last action."""
    team_agents[0].reset(seeds[0])
    team_agents[1].reset(seeds[1])
    try:
        for turn in play(table, lambda view: team_agents[view.seat & 1].act(view)):
            if turn.outcome.hand_result is not None:
                return turn.outcome
    except IllegalActionError as e:  # refused: the table still waits for that seat
        seat = table.to_act
        raise AgentError(f"agent {team_agents[seat & 1].name!r} on seat {seat} chose an illegal action: {e}") from None
    raise ValueError("the table's episode was over before its hand ended")


@dataclass(frozen=True)
class TableRecord:
    """One table of one deal, from the engine's result (R11.4). Teams are 0 and 1."""

    score: tuple[int, int]
    contract: str | None
    caller_team: int | None
    callers_won: bool | None
    level: int
    kaboot_team: int | None

    @classmethod
    def of(cls, res: HandResult) -> TableRecord:
        kaboot_team = None
        if res.kaboot:
            kaboot_team = 0 if res.tricks[0] == 8 else 1
        return cls(
            score=res.score,
            contract=res.contract,
            caller_team=None if res.caller is None else res.caller % 2,
            callers_won=res.callers_won,
            level=res.level,
            kaboot_team=kaboot_team,
        )


@dataclass(frozen=True)
class DealRecord:
    """Both tables of one deal. ``x1``, ``x2``: A's lead over B at each table; ``d`` their mean."""

    index: int
    tables: tuple[TableRecord, TableRecord]

    @property
    def x1(self) -> int:
        s = self.tables[0].score
        return s[0] - s[1]  # A is team 0 at table 1

    @property
    def x2(self) -> int:
        s = self.tables[1].score
        return s[1] - s[0]  # A is team 1 at table 2

    @property
    def d(self) -> float:
        return (self.x1 + self.x2) / 2


def play_deal(
    index: int, deal: Deal, agent_a: Agent, agent_b: Agent, seed: int, rules: RuleConfig | None = None
) -> DealRecord:
    """Play deal ``index`` at both tables (A on team 0, then B on team 0)."""
    seeds = (hand_seed(seed, "deal", index, 0), hand_seed(seed, "deal", index, 1))
    records = []
    for team_agents in ((agent_a, agent_b), (agent_b, agent_a)):
        table = Table(rules, "hand", DealSource(deals=[deal]))
        table.reset()
        result = play_hand(table, team_agents, seeds).hand_result
        assert result is not None  # play_hand returns the outcome that ended the hand
        records.append(TableRecord.of(result))
    return DealRecord(index, (records[0], records[1]))


@dataclass(frozen=True)
class MatchRecord:
    """One match to 152 (R8) at one table, from A's side.

    Attributes:
        table: 0 (A on seats 0/2) or 1 (A on seats 1/3).
        first_deal: index of its first deal in the set; deals: how many it used.
        winner: "A", "B" or None for a draw (R8.4).
        score_a, score_b: final match score.
        reason: how it ended (R8.1-R8.4).
    """

    table: int
    first_deal: int
    deals: int
    winner: str | None
    score_a: int
    score_b: int
    reason: str


def play_match_chain(
    deals: tuple[Deal, ...] | list[Deal],
    agent_a: Agent,
    agent_b: Agent,
    table: int,
    seed: int,
    rules: RuleConfig | None = None,
) -> tuple[list[MatchRecord], int]:
    """Matches to 152 played on the deal sequence at one table; returns (matches, deals left over).

    A match takes the deals in order; when it ends the next match starts with the next deal.
    The first deal of a match keeps its dealer; after that the deal moves on by R2.1. A match
    still running when the deals run out is not counted (its deals are returned as left over).
    """
    a_team = table
    team_agents = (agent_a, agent_b) if table == 0 else (agent_b, agent_a)
    out: list[MatchRecord] = []
    i = 0
    n = len(deals)
    while i < n:
        # R8 on the deals from i on; the first keeps its dealer, then the deal rotates (R2.1).
        game = Table(rules, "match", DealSource(deals=deals[i:], dealers="rotate"))
        game.reset()
        start = i
        outcome = Outcome()
        while not outcome.episode_over:
            seeds = (hand_seed(seed, "match", i, 0), hand_seed(seed, "match", i, 1))
            outcome = play_hand(game, team_agents, seeds)
            i += 1
        result = outcome.match_result
        if result is None:  # out of deals: the match is not counted
            return out, i - start
        w = result.winner
        winner = None if w is None else ("A" if w == a_team else "B")
        sc = result.score
        out.append(MatchRecord(table, start, i - start, winner, sc[a_team], sc[1 - a_team], result.reason))
    return out, 0
