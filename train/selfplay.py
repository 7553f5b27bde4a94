"""Self-play games as a stable-baselines3 ``VecEnv`` (what SB3 does not provide for 4 seats).

Each of the ``n`` games seats the learner on both seats of one team (drawn per game) and an
opponent team from the pool. One VecEnv step is one *learner decision* in every game: the
learner's action is applied, then the opponents play (in batches across games) until the
learner's team is to act again, possibly through the end of a hand and the start of the next.

How the team trajectory and its rewards are assembled: a game's trajectory is the sequence of
its learner-team decisions, whichever of the two partners made them (the observation is always
the acting partner's own view). The reward of step t is everything the learner's team earned
between its decision t and its next decision: when a hand ends (on the learner's card or on an
opponent's), the hand's score difference / ``reward_scale`` from the learner team's side lands
on the team's last decision of that hand, which is also marked ``done`` in hand episodes. So
both partners' decisions share the hand's outcome through the returns, and the last decision
of a lost hand gets the negative reward. In match episodes ``done`` comes at the match end, with
``match_bonus`` added there. Other reward modes (``env.reward``: "points", "win") are those of
``baloot_env.rewards``, the environment's own.

Each game is played by the game driver (``baloot_env.driver.Table``), the one behind the
PettingZoo environment and evaluation: deals from the game's generator, dealer rotation, hands,
matches and rewards all come from it; this module seats the learner and the opponents, batches
the opponents' decisions across games and assembles the team trajectories.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from agents.network import PRIVILEGED_SIZE, privileged_input
from baloot_env.driver import DealSource, Outcome, Table
from baloot_env.hand import HandState
from baloot_env.match import MatchState
from baloot_env.observation import OBS_SIZE, action_mask, encode
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from train.config import EnvConfig
from train.opponents import OpponentPool, Seat


@dataclass
class Game:
    """One running game (its driver ``table``, dealing from ``rng``) and its bookkeeping."""

    rng: np.random.Generator
    table: Table
    learner_team: int = 0
    opponent: Any = None
    last_seat: int = 0
    episode_reward: float = 0.0
    episode_score: list[int] = field(default_factory=lambda: [0, 0])  # learner team, opponents
    hands: list = field(default_factory=list)

    @property
    def hand(self) -> HandState | None:
        """The hand being played (the table's)."""
        return self.table.hand

    @property
    def match(self) -> MatchState | None:
        """The match in match episodes (the table's)."""
        return self.table.match


class SelfPlayVecEnv(VecEnv):
    """``n_envs`` self-play games; see the module docstring for the reward assembly."""

    def __init__(self, n_envs: int, cfg: EnvConfig, pool: OpponentPool, seed: int, privileged: bool = False):
        self.cfg = cfg
        self.rules = RuleConfig.from_dict(cfg.rules)
        self.reward = Reward(cfg.reward, cfg.reward_scale, cfg.match_bonus)
        self.pool = pool
        self.privileged = privileged
        size = OBS_SIZE + (PRIVILEGED_SIZE if privileged else 0)
        super().__init__(n_envs, spaces.Box(0.0, 1.0, (size,), np.float32), spaces.Discrete(42))
        seeds = np.random.SeedSequence(seed).spawn(n_envs)
        self.games = []
        for s in seeds:
            rng = np.random.default_rng(s)
            self.games.append(Game(rng, Table(self.rules, cfg.episode, DealSource(rng), self.reward)))
        self.finished: deque[dict] = deque(maxlen=2000)  # recent episode summaries for logging
        self.decisions = 0
        self._actions: np.ndarray | None = None
        self._masks: np.ndarray | None = None  # legal masks of the last observation (action_masks)
        self._restored = False

    # ------------------------------------------------------------------ games
    def _new_episode(self, g: Game) -> None:
        g.learner_team = int(g.rng.integers(2))
        g.opponent = self.pool.sample()
        g.episode_reward = 0.0
        g.episode_score = [0, 0]
        g.hands = []
        g.table.reset()  # the first deal, from the game's generator

    def _observe_all(self) -> np.ndarray:
        """Every game's observation for the seat to act (one batch), and their masks for later.

        The privileged critic's four hands are unpacked for all games in one call; the legal
        masks are kept for ``action_masks()``, which SB3 asks for right after this step.
        """
        games = self.games
        obs = np.stack([encode(g.hand, g.hand.to_act, g.table.context) for g in games])
        self._masks = np.stack([action_mask(g.hand, g.hand.to_act) for g in games]).astype(bool)
        if not self.privileged:
            return obs
        priv = privileged_input([[g.hand.hands[(g.hand.to_act + k) & 3] for k in range(4)] for g in games])
        return np.concatenate([obs, priv], axis=1)

    def _settle(self, i: int, outcome: Outcome, rewards: np.ndarray, dones: np.ndarray, infos: list[dict]) -> None:
        """Book what an action in game ``i`` did: a hand's end, its reward, the episode's end."""
        res = outcome.hand_result
        if res is None:
            return
        g = self.games[i]
        me, them = g.learner_team, 1 - g.learner_team
        r = outcome.rewards[me]
        g.episode_score[0] += res.score[me]
        g.episode_score[1] += res.score[them]
        g.hands.append(self._hand_summary(res, me))
        rewards[i] += r
        g.episode_reward += r
        if not outcome.episode_over:
            return  # the table has dealt the match's next hand
        terminal_obs = self._terminal_observation(g)
        won = g.episode_score[0] > g.episode_score[1]
        if outcome.match_result is not None:
            won = outcome.match_result.winner == me
        summary = {"opponent": g.opponent.category, "reward": g.episode_reward, "won": won,
                   "score": tuple(g.episode_score), "hands": g.hands}  # fmt: skip
        self.finished.append(summary)
        dones[i] = True
        infos[i]["terminal_observation"] = terminal_obs
        infos[i]["episode_summary"] = summary
        self._new_episode(g)

    @staticmethod
    def _hand_summary(res: Any, me: int) -> dict:
        if res.thrown:
            return {"thrown": True}
        called = res.caller % 2 == me
        return {"thrown": False, "called": called, "made": called and res.callers_won,
                "doubled": res.level > 1, "kaboot_for": res.kaboot and res.score[me] > 0,
                "kaboot_against": res.kaboot and res.score[me] == 0, "diff": res.score[me] - res.score[1 - me]}  # fmt: skip

    def _terminal_observation(self, g: Game) -> np.ndarray:
        obs = encode(g.hand, g.last_seat, g.table.context)
        if self.privileged:
            obs = np.concatenate([obs, np.zeros(PRIVILEGED_SIZE, np.float32)])
        return obs

    def _advance(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict]) -> None:
        """Let the opponents play, batched by opponent, until every game waits for the learner."""
        while True:
            groups: dict[int, tuple[Any, list[int]]] = {}
            for i, g in enumerate(self.games):
                if g.hand.to_act % 2 != g.learner_team:
                    groups.setdefault(id(g.opponent), (g.opponent, []))[1].append(i)
            if not groups:
                return
            for opponent, idxs in groups.values():
                tables = [self.games[i].table for i in idxs]
                actions = opponent.act_batch([Seat(t.hand, t.to_act, t.context) for t in tables])
                for i, t, a in zip(idxs, tables, actions, strict=True):
                    self._settle(i, t.apply(int(a)), rewards, dones, infos)

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        if self._restored:  # resuming: keep the games exactly as checkpointed
            self._restored = False
        else:
            for g in self.games:
                self._new_episode(g)
            n = self.num_envs
            self._advance(np.zeros(n, np.float32), np.zeros(n, bool), [{} for _ in range(n)])
        return self._observe_all()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)
        self._masks = None

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        n = self.num_envs
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos: list[dict] = [{} for _ in range(n)]
        for i, g in enumerate(self.games):
            g.last_seat = g.table.to_act
            outcome = g.table.apply(int(self._actions[i]))  # raises IllegalActionError on a masked action
            self._settle(i, outcome, rewards, dones, infos)
        self.decisions += n
        self._advance(rewards, dones, infos)
        return self._observe_all(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        if self._masks is None:  # not observed since the last step (e.g. right after loading)
            self._masks = np.stack([action_mask(g.hand, g.hand.to_act) for g in self.games]).astype(bool)
        return self._masks

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"SelfPlayVecEnv has no per-env method {method_name!r}")

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def get_attr(self, attr_name: str, indices: Any = None) -> list:
        if attr_name == "render_mode":
            return [None for _ in self._get_indices(indices)]
        raise AttributeError(f"SelfPlayVecEnv has no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"SelfPlayVecEnv attributes are not settable ({attr_name!r})")

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        pass

    def seed(self, seed: int | None = None) -> list:
        return [None for _ in range(self.num_envs)]

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict:
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
        games = [
            {"rng": g.rng.bit_generator.state, **g.table.to_data(), "learner_team": g.learner_team,
             "last_seat": g.last_seat, "episode_reward": float(g.episode_reward),
             "episode_score": [int(x) for x in g.episode_score], "hands": g.hands}
            for g in self.games
        ]  # fmt: skip
        return {"format": GAMES_FORMAT, "games": games, "opponents": opp_ids, "decisions": self.decisions}

    def load_state(self, data: dict) -> None:
        """Restore ``state()``; raises ValueError (or TypeError, KeyError) on malformed data."""
        if not isinstance(data, dict) or data.get("format") != GAMES_FORMAT:
            raise ValueError(f"games in progress: expected format {GAMES_FORMAT!r}")
        self._masks = None
        if len(data["games"]) != self.num_envs:
            raise ValueError(f"checkpoint has {len(data['games'])} games, config has n_envs={self.num_envs}")
        for g, st, (cat, k) in zip(self.games, data["games"], data["opponents"], strict=True):
            g.rng.bit_generator.state = st["rng"]
            g.table.load_data({"hand": st["hand"], "match": st["match"]})  # ValueError: other rules
            g.learner_team, g.last_seat = int(st["learner_team"]), int(st["last_seat"])
            g.episode_reward = float(st["episode_reward"])
            g.episode_score = [int(x) for x in st["episode_score"]]
            g.hands = list(st["hands"])
            if cat == "none":
                g.opponent = None
            elif cat == "self":
                g.opponent = list(self.pool.snapshots)[k]
            elif cat == "champion":
                g.opponent = self.pool.champions[k]
            else:
                g.opponent = self.pool.rule_agents[cat]
        self.decisions = int(data["decisions"])
        self._restored = all(g.opponent is not None for g in self.games)


GAMES_FORMAT = "baloot-selfplay-games-2"
