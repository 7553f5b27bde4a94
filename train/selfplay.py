"""Self-play games as a stable-baselines3 ``VecEnv``: the public vector env with an opponent pool.

``SelfPlayVecEnv`` is ``baloot_env.vector.BalootVecEnv`` (the one vector env; by default its
games run on the compiled batched core, ``backend="core"``, with the deals, rewards and
bookkeeping of the one game driver) with what training adds:

- the learner plays both seats of one team, drawn per game when its episode starts (docs/rule-choices.md,
  choice 12), so it plays both seat pairs;
- the opponent team is drawn per game from the ``OpponentPool`` (recent snapshots of the learner,
  champions, ``heuristic``, ``random``), by the config's mixing weights; opponents' decisions are
  batched across the games, as the vector env batches any player, and the pool's networks of one
  architecture act together, one stacked pass for all their games (``array_group``,
  ``OpponentPool.act_nets``);
- episode summaries (``finished``: opponent category, reward, won, score, per-hand figures) for
  the trainer's ``selfplay/`` logs;
- checkpoints: ``state()`` / ``load_state()`` hold the games in progress (hands, matches,
  generators, opponents by their identity in the pool) as plain data, so a resumed run plays on
  exactly; both backends save the games in the engine's form (one format).

How the team trajectory and its rewards are assembled is the vector env's
(``baloot_env.lockstep``): a game's trajectory is its learner-team decisions, whichever of the
two partners made them (the observation is always the acting partner's own view); when a hand
ends, on the learner's card or on an opponent's, the hand's reward from the learner team's side
(``env.reward``, ``baloot_env.rewards``) lands on the team's last decision of that hand, which is
also ``done`` in hand episodes; in match episodes ``done`` comes at the match end, with
``match_bonus`` added there. So both partners' decisions share the hand's outcome through the
returns, and the last decision of a lost hand gets the negative reward.

Seeding: game ``i`` draws from ``SeedSequence(seed).spawn(n_envs)[i]`` (``seed(s)`` re-seeds at
the next ``reset``); the pool has its own generator, seeded and checkpointed by the trainer.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from baloot_env.lockstep import ArrayGroupCall
from baloot_env.vector import BalootVecEnv
from train.config import EnvConfig
from train.opponents import NetOpponent, OpponentPool

GAMES_FORMAT = "baloot-selfplay-games-2"


class SelfPlayVecEnv(BalootVecEnv):
    """``n_envs`` self-play games against the pool; see the module docstring."""

    def __init__(
        self,
        n_envs: int,
        cfg: EnvConfig,
        pool: OpponentPool,
        seed: int,
        privileged: bool = False,
        backend: str = "core",
    ):
        self.cfg = cfg
        self.pool = pool
        super().__init__(
            n_envs,
            learner="team",
            opponents=None,
            episode=cfg.episode,
            rules=cfg.rules,
            reward=cfg.as_reward(),
            seed=seed,
            privileged=privileged,
            backend=backend,
        )

    def _draw_players(self, i: int, g: Any) -> None:
        g.opponent = g.partner = self.pool.sample()

    def array_group(self, player: Any) -> tuple[Hashable, ArrayGroupCall] | None:
        """The pool's networks of one architecture act as one call (``OpponentPool.act_nets``)."""
        if isinstance(player, NetOpponent):
            return ("nets", player.net.spec), self.pool.act_nets
        return None

    def _observe_all(self) -> np.ndarray:
        """Every game's observation for its seat to act (``observe``)."""
        return self.observe()

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        """Games in progress (with their opponents by pool identity) and the counters, as plain
        data: hands in their saved form (``HandState.to_json``), matches by their score and
        results, random generators by their state dicts."""
        opp_ids = []
        for g in self.games:
            o = g.opponent
            if o is None:  # no game started yet (a run of 0 decisions)
                opp_ids.append(["none", 0])
            elif o in self.pool.snapshots:
                opp_ids.append(["self", list(self.pool.snapshots).index(o)])
            elif o in self.pool.champions:
                opp_ids.append(["champion", self.pool.champions.index(o)])
            else:
                opp_ids.append([o.category, 0])
        games = [self.game_data(g) for g in self.games]
        return {"format": GAMES_FORMAT, "games": games, "opponents": opp_ids, "decisions": self.decisions}

    def load_state(self, data: dict[str, Any]) -> None:
        """Restore ``state()``; raises ValueError (or TypeError, KeyError) on malformed data."""
        if not isinstance(data, dict) or data.get("format") != GAMES_FORMAT:
            raise ValueError(f"games in progress: expected format {GAMES_FORMAT!r}")
        if len(data["games"]) != self.num_envs:
            raise ValueError(f"checkpoint has {len(data['games'])} games, config has n_envs={self.num_envs}")
        for g, st, (cat, k) in zip(self.games, data["games"], data["opponents"], strict=True):
            self.load_game_data(g, st)
            if cat == "none":
                g.opponent = None
            elif cat == "self":
                g.opponent = list(self.pool.snapshots)[k]
            elif cat == "champion":
                g.opponent = self.pool.champions[k]
            else:
                g.opponent = self.pool.rule_agents[cat]
            g.partner = g.opponent
            self.seat_players(g)
        self.decisions = int(data["decisions"])
        self._pending_seed = None  # the games come from the save
        self._restored = all(g.opponent is not None for g in self.games)


def episode_counts(opponent: str, reward: float, won: bool, hands: list[dict[str, Any]]) -> dict[str, float]:
    """One self-play episode as counts to sum over many (``selfplay_stats``): the learner's reward
    and win against its opponent's category, and its hands (``baloot_env.lockstep.hand_summary``)."""
    counts = {
        "episodes": 1.0,
        "reward": float(reward),
        f"episodes_vs_{opponent}": 1.0,
        f"wins_vs_{opponent}": float(won),
    }
    for h in hands:
        if h["thrown"]:  # R3.5
            continue
        for key, value in (("hands", 1), *((k, h[k]) for k in ("called", "made", "doubled", "kaboot_for", "diff"))):
            counts[key] = counts.get(key, 0.0) + float(value)
    return counts


def selfplay_stats(sums: dict[str, float]) -> dict[str, float]:
    """The ``selfplay/`` figures from summed ``episode_counts``: the mean reward, the win rate
    against each opponent category, and the hands' call, make, double and kaboot rates and mean
    score difference. Both backends log these."""
    out: dict[str, float] = {}
    episodes = sums.get("episodes", 0.0)
    if episodes <= 0:
        return out
    out["episode_reward"] = sums.get("reward", 0.0) / episodes
    for key, n in sums.items():  # the opponent categories met (train.opponents.CATEGORIES)
        if key.startswith("episodes_vs_") and n > 0:
            cat = key.removeprefix("episodes_vs_")
            out[f"win_rate_vs_{cat}"] = sums.get(f"wins_vs_{cat}", 0.0) / n
    hands = sums.get("hands", 0.0)
    if hands > 0:
        out["call_rate"] = sums.get("called", 0.0) / hands
        out["made_rate"] = sums.get("made", 0.0) / max(sums.get("called", 0.0), 1.0)
        out["doubled_rate"] = sums.get("doubled", 0.0) / hands
        out["kaboot_rate"] = sums.get("kaboot_for", 0.0) / hands
        out["mean_hand_diff"] = sums.get("diff", 0.0) / hands
    return out
