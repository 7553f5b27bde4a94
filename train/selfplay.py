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
``match_bonus`` added there.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from agents.network import PRIVILEGED_SIZE, privileged_input
from baloot_env.deal import random_deal
from baloot_env.hand import HandState
from baloot_env.match import MatchResult, MatchState
from baloot_env.observation import OBS_SIZE, action_mask, encode, match_context
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig
from train.config import EnvConfig
from train.opponents import OpponentPool, Seat


@dataclass
class Game:
    """One running game and its bookkeeping."""

    rng: np.random.Generator
    hand: HandState | None = None
    match: MatchState | None = None
    learner_team: int = 0
    opponent: Any = None
    last_seat: int = 0
    episode_reward: float = 0.0
    episode_score: list[int] = field(default_factory=lambda: [0, 0])  # learner team, opponents
    hands: list = field(default_factory=list)


class SelfPlayVecEnv(VecEnv):
    """``n_envs`` self-play games; see the module docstring for the reward assembly."""

    def __init__(self, n_envs: int, cfg: EnvConfig, pool: OpponentPool, seed: int, privileged: bool = False):
        self.cfg = cfg
        self.rules = RuleConfig.from_dict(cfg.rules)
        self.pool = pool
        self.privileged = privileged
        size = OBS_SIZE + (PRIVILEGED_SIZE if privileged else 0)
        super().__init__(n_envs, spaces.Box(0.0, 1.0, (size,), np.float32), spaces.Discrete(42))
        seeds = np.random.SeedSequence(seed).spawn(n_envs)
        self.games = [Game(rng=np.random.default_rng(s)) for s in seeds]
        self.finished: deque[dict] = deque(maxlen=2000)  # recent episode summaries for logging
        self.decisions = 0
        self._actions: np.ndarray | None = None
        self._masks: np.ndarray | None = None  # legal masks of the last observation (action_masks)
        self._restored = False

    # ------------------------------------------------------------------ games
    def _new_hand(self, g: Game) -> None:
        dealer = g.match.next_dealer() if g.match is not None else None
        if dealer is None:
            dealer = int(g.rng.integers(4))
        deal = random_deal(g.rng, dealer)
        g.hand = g.match.start_hand(deal) if g.match is not None else HandState(deal, self.rules)

    def _new_episode(self, g: Game) -> None:
        g.learner_team = int(g.rng.integers(2))
        g.opponent = self.pool.sample()
        g.match = MatchState(self.rules) if self.cfg.episode == "match" else None
        g.episode_reward = 0.0
        g.episode_score = [0, 0]
        g.hands = []
        self._new_hand(g)

    def _observe_all(self) -> np.ndarray:
        """Every game's observation for the seat to act (one batch), and their masks for later.

        The privileged critic's four hands are unpacked for all games in one call; the legal
        masks are kept for ``action_masks()``, which SB3 asks for right after this step.
        """
        games = self.games
        obs = np.stack([encode(g.hand, g.hand.to_act, match_context(g.match)) for g in games])
        self._masks = np.stack([action_mask(g.hand, g.hand.to_act) for g in games]).astype(bool)
        if not self.privileged:
            return obs
        priv = privileged_input([[g.hand.hands[(g.hand.to_act + k) & 3] for k in range(4)] for g in games])
        return np.concatenate([obs, priv], axis=1)

    def _settle(self, i: int, rewards: np.ndarray, dones: np.ndarray, infos: list[dict]) -> None:
        """Handle the end of a hand (and of the episode) in game ``i``."""
        g = self.games[i]
        if not g.hand.done:
            return
        res = g.hand.result
        me, them = g.learner_team, 1 - g.learner_team
        diff = res.score[me] - res.score[them]
        r = diff / self.cfg.reward_scale
        g.episode_score[0] += res.score[me]
        g.episode_score[1] += res.score[them]
        g.hands.append(self._hand_summary(res, me))
        episode_over = True
        if g.match is not None:
            g.match.end_hand()
            mres = g.match.result
            if mres is None:
                episode_over = False
            elif mres.winner is not None:
                r += self.cfg.match_bonus if mres.winner == me else -self.cfg.match_bonus
        rewards[i] += r
        g.episode_reward += r
        if not episode_over:
            self._new_hand(g)
            return
        terminal_obs = self._terminal_observation(g)
        won = g.episode_score[0] > g.episode_score[1]
        if g.match is not None and g.match.result is not None:
            won = g.match.result.winner == me
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
        seat = g.last_seat
        obs = encode(g.hand, seat, match_context(g.match))
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
                seats = [Seat(self.games[i].hand, self.games[i].hand.to_act, match_context(self.games[i].match)) for i in idxs]
                actions = opponent.act_batch(seats)
                for i, a in zip(idxs, actions, strict=True):
                    self.games[i].hand.apply(int(a))
                    self._settle(i, rewards, dones, infos)

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
            g.last_seat = g.hand.to_act
            g.hand.apply(int(self._actions[i]))  # raises IllegalActionError on a masked action
            self._settle(i, rewards, dones, infos)
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
            {"rng": g.rng.bit_generator.state, "hand": g.hand.to_json() if g.hand is not None else None,
             "match": _match_state(g.match), "learner_team": g.learner_team, "last_seat": g.last_seat,
             "episode_reward": float(g.episode_reward), "episode_score": [int(x) for x in g.episode_score],
             "hands": g.hands}
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
            g.hand = HandState.from_json(st["hand"]) if st["hand"] is not None else None
            if g.hand is not None and g.hand.rules != self.rules:
                raise ValueError("a game in progress was played under other rules than this run's")
            g.match = _load_match(st["match"], self.rules, g.hand)
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


def _match_state(m: MatchState | None) -> dict | None:
    """A match as plain data; its current hand is the game's hand, saved beside it."""
    if m is None:
        return None
    return {"score": list(m.score), "deals_played": m.deals_played, "hands_scored": m.hands_scored,
            "results": [r.to_info() for r in m.results], "result": m.result.to_info() if m.result else None,
            "in_hand": m.hand is not None}  # fmt: skip


def _tuples(x: Any) -> Any:
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _result_from_info(info: dict) -> HandResult:
    """``HandResult.to_info()`` back to the result (its lists as the tuples they were)."""
    res = HandResult(**{f.name: _tuples(info[f.name]) for f in fields(HandResult)})
    if res.to_info() != info:
        raise ValueError(f"a saved hand result does not read back: {info}")
    return res


def _load_match(data: dict | None, rules: RuleConfig, hand: HandState | None) -> MatchState | None:
    if data is None:
        return None
    m = MatchState(rules)
    m.score = [int(x) for x in data["score"]]
    m.deals_played, m.hands_scored = int(data["deals_played"]), int(data["hands_scored"])
    m.results = [_result_from_info(r) for r in data["results"]]
    r = data["result"]
    m.result = MatchResult(r["winner"], (r["score"][0], r["score"][1]), r["reason"]) if r is not None else None
    if data["in_hand"]:
        if hand is None:
            raise ValueError("a saved match is in a hand, but its game has none")
        m.hand = hand
    return m
