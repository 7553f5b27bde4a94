"""N games in lockstep for one learner: the game loop under the vector env and the Gymnasium env.

``LockstepGames`` seats a learner in each of ``n`` games played by the game driver
(``baloot_env.driver.Table``) and lets other players (agents or policies) take every other
seat. One learner step applies the learner's action in every game, then lets the other seats
play, in batches across games, until the learner is to act again in every game (through the end
of a hand and the start of the next). ``baloot_env.vector.BalootVecEnv`` (stable-baselines3's
``VecEnv``), ``baloot_env.single.BalootEnv`` (Gymnasium, one game) and self-play training
(``train.selfplay``) are this class with an interface around it.

Learner: ``learner="team"`` plays both seats of one team (R1.1), ``"seat"`` one seat (its
partner is played like the opponents, or by ``partner``). ``position`` fixes the team (0, 1) or
the seat (0-3); None draws it per episode from the game's generator.

Trajectory and rewards: a game's trajectory is its learner decisions (in team mode whichever
partner made them; the observation is always the acting seat's own view). The reward of step t
is everything the learner's team earned between decision t and the next one
(``baloot_env.rewards``): when a hand ends, on the learner's action or on another seat's, the
hand's reward lands on the learner's last decision of that hand, which also ends the episode in
hand episodes; match episodes end with the match (R8), ``match_bonus`` included.

Other players: an agent spec (``"heuristic"``, ``"random"``, ``"search"``, a bundle path or an
agent file), an ``agents.Agent``, a policy on arrays or a callable on arrays, made into players
by ``baloot_env.players.make_player``. Their decisions are batched across the games (one call
per player and round).

Backends, the only difference, each a stepper with the same five methods (observe, masks,
terminal observation, learner step, advance): ``backend="python"`` plays each game on a driver
``Table`` (``TableLockstep``); ``backend="core"`` plays the N games on the compiled batched core
(``baloot_env.lockstep_core.CoreLockstep``: the learner's and each player's actions one kernel
step, observations one kernel call), with the same deals, the same bookkeeping (``settle``) and
the same results for the same seed and actions.

Seeding: game ``i`` draws its learner positions and its deals from
``numpy.random.default_rng(SeedSequence(seed).spawn(n)[i])``; agents made from specs, and
``Agent`` objects given, are re-seeded (``Agent.reset``) from the same ``SeedSequence``.
Callables keep their own randomness.

Needs numpy.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from baloot_env.cards import NUM_SEATS
from baloot_env.driver import EPISODES, DealSource, Outcome, Table
from baloot_env.errors import StateError
from baloot_env.hand import HandState
from baloot_env.lockstep_core import CoreLockstep
from baloot_env.match import MatchState
from baloot_env.observation import OBS_SIZE, PRIVILEGED_SIZE, action_mask, encode, hidden_hands
from baloot_env.players import Seat, make_player, seat_arrays
from baloot_env.rewards import REWARD_SCALE, Reward
from baloot_env.rules import RuleConfig

if TYPE_CHECKING:
    from baloot_env.core_table import CoreTable

ArrayGroupCall = Callable[[np.ndarray, np.ndarray, list[Any]], Any]
"""A group's call (``LockstepGames.array_group``): observations, masks, the player of each row
-> an action a row."""

LEARNERS = ("team", "seat")
BACKENDS = ("core", "python")


@dataclass
class Game:
    """One running game (its driver ``table``, dealing from ``rng``) and its bookkeeping.

    ``players[s]`` plays seat ``s``; None marks the learner's seats. With the core backend
    ``table`` is a ``core_table.CoreTable``: the driver table's face over the game's row.
    """

    rng: np.random.Generator
    table: Table | CoreTable
    learner_team: int = 0
    learner_seat: int = -1  # the learner's seat in "seat" mode, -1 in "team" mode
    opponent: Any = None
    partner: Any = None
    players: list[Any] = field(default_factory=lambda: [None] * NUM_SEATS)
    last_seat: int = 0
    episode_reward: float = 0.0
    episode_score: list[int] = field(default_factory=lambda: [0, 0])  # learner team, opponents
    length: int = 0  # learner decisions in this episode
    hands: list[Any] = field(default_factory=list)

    @property
    def hand(self) -> HandState:
        """The hand being played (the table's); every game has one from its first reset."""
        hand = self.table.hand
        if hand is None:
            raise StateError("the game has no hand yet: reset the games first")
        return hand

    @property
    def driver(self) -> Table:
        """The game's driver table (the python backend; the core backend steps its rows itself)."""
        if not isinstance(self.table, Table):
            raise StateError("the game is played on the batched core, not on a driver table")
        return self.table

    @property
    def match(self) -> MatchState | None:
        """The match in match episodes (the table's)."""
        return self.table.match


def _reward(reward: str | Reward, match_bonus: float) -> Reward:
    if isinstance(reward, Reward):
        return reward
    return Reward(reward, REWARD_SCALE, match_bonus)


def _check_settings(
    n: int, learner: str, position: int | None, episode: str, rules: Any, autoreset: bool, backend: str
) -> None:
    """Refuse settings the lockstep games cannot run (``ValueError``; ``TypeError`` for rules
    that are not a ``RuleConfig``)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "core" and not autoreset:
        raise ValueError("the core backend starts the next episode at once (autoreset=True)")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"the number of games must be an integer >= 1, got {n!r}")
    if learner not in LEARNERS:
        raise ValueError(f"learner must be one of {LEARNERS}, got {learner!r}")
    places = 2 if learner == "team" else NUM_SEATS
    if position is not None and (isinstance(position, bool) or position not in range(places)):
        raise ValueError(f"position must be None or a {learner} 0-{places - 1}, got {position!r}")
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    if rules is not None and not isinstance(rules, RuleConfig):
        raise TypeError(f"rules must be a RuleConfig, got {type(rules).__name__}")


class LockstepGames:
    """``n`` games in lockstep for one learner (module docstring).

    Args:
        n: number of games (>= 1).
        learner: "team" or "seat".
        position: the learner's team (0, 1) or seat (0-3); None: drawn per episode.
        opponents: who plays the other seats: one player for every game, or a list of ``n``,
            one per game (module docstring).
        partner: in "seat" mode, who plays the learner's partner (default: the opponents' player).
        episode: "hand" or "match" (R8).
        rules: rule variants (default RULES.md).
        reward: "diff", "points", "win" or a ``Reward``; ``match_bonus`` goes with a mode name.
        seed: seeds the games and the agents made or given (None: fresh entropy).
        privileged: append the four current hands (4 x 32, relative seats) to the observation,
            for a privileged critic during training; never give them to an actor.
        autoreset: start the next episode as soon as one ends (vector envs), else leave the
            finished game until ``restart``.
        backend: "python" (driver tables) or "core" (the batched core; needs ``autoreset``).
    """

    def __init__(
        self,
        n: int,
        *,
        learner: str = "team",
        position: int | None = None,
        opponents: Any = "heuristic",
        partner: Any = None,
        episode: str = "hand",
        rules: RuleConfig | None = None,
        reward: str | Reward = "diff",
        match_bonus: float = 1.0,
        seed: int | None = None,
        privileged: bool = False,
        autoreset: bool = True,
        backend: str = "python",
    ) -> None:
        _check_settings(n, learner, position, episode, rules, autoreset, backend)
        self.n_games = n
        self.learner = learner
        self.position = position
        self.episode = episode
        self.rules = rules or RuleConfig()
        self.reward = _reward(reward, match_bonus)
        self.privileged = privileged
        self.autoreset = autoreset
        self.obs_size = OBS_SIZE + (PRIVILEGED_SIZE if privileged else 0)
        self.finished: deque[dict[str, Any]] = deque(maxlen=2000)  # recent episode summaries, for logging
        self.decisions = 0  # learner decisions so far, all games
        self._players: list[Any] = []  # the distinct players this object made or was given (re-seeded)
        self._opponents = self._per_game(opponents, "opponents")
        self._partners = self._per_game(partner, "partner") if partner is not None else self._opponents
        self.backend = backend
        # How the games are stepped: driver tables, or the batched core (the only difference).
        self.stepper: TableLockstep | CoreLockstep
        if backend == "core":
            core = CoreLockstep(self)
            self.stepper = core
            self.games = [Game(rng, core.tables[i]) for i, rng in enumerate(self._rngs(seed))]
            for g in self.games:
                g.table.deals = DealSource(g.rng)
        else:
            self.stepper = TableLockstep(self)
            self.games = [
                Game(rng, Table(self.rules, episode, DealSource(rng), self.reward)) for rng in self._rngs(seed)
            ]
        self._seed_players(seed)
        self._masks: np.ndarray | None = None  # legal masks of the last observation

    # ------------------------------------------------------------------ players and seeds
    def _per_game(self, spec: Any, what: str) -> list[Any]:
        """One player per game; equal specs and the same objects share one player (one batch)."""
        if spec is None:
            return [None] * self.n_games
        specs = list(spec) if isinstance(spec, (list, tuple)) else [spec] * self.n_games
        if len(specs) != self.n_games:
            raise ValueError(f"{what}: a list needs one entry per game ({self.n_games}), got {len(specs)}")
        made: dict[Any, Any] = {}
        out = []
        for s in specs:
            key = s if isinstance(s, str) else id(s)
            if key not in made:
                made[key] = make_player(s)
                self._players.append(made[key])
            out.append(made[key])
        return out

    def _rngs(self, seed: int | None) -> list[np.random.Generator]:
        return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(self.n_games)]

    def _seed_players(self, seed: int | None) -> None:
        """Re-seed the players this object owns or was given from ``seed`` (after the games' seeds)."""
        ss = np.random.SeedSequence(seed)
        ss.spawn(self.n_games)  # the games' children
        for player, child in zip(self._players, ss.spawn(len(self._players)), strict=True):
            reseed = getattr(player, "reseed", None)
            if reseed is not None:
                reseed(int(child.generate_state(1)[0]))

    def reseed(self, seed: int | None) -> None:
        """Every game draws from a fresh generator of ``seed`` (as if built with it) and the
        players are re-seeded; the games in progress keep their hands until they end."""
        for g, rng in zip(self.games, self._rngs(seed), strict=True):
            g.rng = rng
            g.table.deals = DealSource(rng)
        self._seed_players(seed)

    def _draw_players(self, i: int, g: Game) -> None:
        """Seat the players of a new episode in game ``i`` (a subclass may draw them)."""
        g.opponent = self._opponents[i]
        g.partner = self._partners[i]

    def array_group(self, player: Any) -> tuple[Hashable, ArrayGroupCall] | None:
        """Players that act as one call on observation and mask blocks (a subclass names its
        own: self-play's networks of one architecture, ``train.selfplay``): the key that groups
        ``player`` with the others of its call, and the call, which gets the games of all of
        them at once with the player of each row. None (the default): ``player`` is asked alone.
        Both backends group and ask alike (the core from its blocks, the driver from the seats'
        views), so they play the same games."""
        return None

    def groups(
        self, acting: Sequence[tuple[int, Any]]
    ) -> list[tuple[Any, list[int], list[Any], ArrayGroupCall | None]]:
        """The games ``acting`` (game index, the player to act there) as calls, in the order of
        their first game: for each, its first player, its games, the player of each, and the
        ``array_group`` call (None: the player alone)."""
        out: dict[Hashable, tuple[Any, list[int], list[Any], ArrayGroupCall | None]] = {}
        known: dict[int, tuple[Hashable, ArrayGroupCall] | None] = {}
        for i, player in acting:
            if id(player) not in known:
                known[id(player)] = self.array_group(player)
            group = known[id(player)]
            key = ("player", id(player)) if group is None else group[0]
            if key not in out:
                out[key] = (player, [], [], None if group is None else group[1])
            out[key][1].append(i)
            out[key][2].append(player)
        return list(out.values())

    # ------------------------------------------------------------------ episodes
    def learner_seats(self, g: Game) -> tuple[int, ...]:
        """The seats the learner plays in game ``g`` this episode."""
        if g.learner_seat >= 0:
            return (g.learner_seat,)
        return (g.learner_team, g.learner_team + 2)

    def new_episode(self, i: int) -> None:
        """Start game ``i``'s next episode: the learner's place (drawn unless fixed), its players,
        the first deal (from the game's deal source)."""
        g = self.games[i]
        if self.learner == "team":
            g.learner_team = self.position if self.position is not None else int(g.rng.integers(2))
            g.learner_seat = -1
        else:
            g.learner_seat = self.position if self.position is not None else int(g.rng.integers(NUM_SEATS))
            g.learner_team = g.learner_seat % 2
        self._draw_players(i, g)
        self.seat_players(g)
        g.episode_reward = 0.0
        g.episode_score = [0, 0]
        g.length = 0
        g.hands = []
        g.table.reset()

    def observe(self) -> np.ndarray:
        """Every game's observation for its learner seat to act (one batch), keeping the legal
        masks for ``masks()``; with ``privileged``, the four hands appended."""
        obs, self._masks = self.stepper.observe()
        return obs

    def masks(self) -> np.ndarray:
        """The legal actions (bool, N x 42) of every game's learner seat to act."""
        if self._masks is None:  # not observed since the last step (e.g. right after loading)
            self._masks = self.stepper.masks()
        return self._masks

    def terminal_observation(self, g: Game) -> np.ndarray:
        """What the learner's last acting seat sees when the episode is over."""
        return self.stepper.terminal_observation(g)

    # ------------------------------------------------------------------ stepping
    def learner_step(
        self, actions: Any, games: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Apply the learner's action in each game (``games``: only these), then let the other
        seats play. Returns rewards, dones and infos for every game.

        Raises:
            IllegalActionError: an action the rules refuse (R9); the games before it in the
                batch have moved on, that game and the later ones have not (core backend: no
                game has moved).
        """
        self._masks = None
        return self.stepper.learner_step(actions, games)

    def settle(
        self, i: int, outcome: Outcome, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]
    ) -> None:
        """Book what an action in game ``i`` did: a hand's end, its reward, the episode's end."""
        res = outcome.hand_result
        if res is None:
            return
        g = self.games[i]
        me, them = g.learner_team, 1 - g.learner_team
        r = outcome.rewards[me]
        g.episode_score[0] += res.score[me]
        g.episode_score[1] += res.score[them]
        info = res.to_info()
        g.hands.append(hand_summary(info, me))
        rewards[i] += r
        g.episode_reward += r
        infos[i]["hand_result"] = info
        if outcome.match_result is not None:
            infos[i]["match_result"] = outcome.match_result.to_info()
        if not outcome.episode_over:
            return  # the table has dealt the match's next hand
        won = g.episode_score[0] > g.episode_score[1]
        if outcome.match_result is not None:
            won = outcome.match_result.winner == me
        summary = {
            "opponent": _label(g.opponent),
            "reward": g.episode_reward,
            "won": won,
            "score": tuple(g.episode_score),
            "hands": g.hands,
        }
        self.finished.append(summary)
        dones[i] = True
        infos[i]["terminal_observation"] = self.terminal_observation(g)
        infos[i]["episode_summary"] = summary
        infos[i]["episode"] = {"r": float(g.episode_reward), "l": g.length}  # what SB3's Monitor reports
        if self.autoreset:
            self.new_episode(i)

    def advance(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> None:
        """Let the other players act, batched by player, until every game waits for the learner
        (or, without autoreset, is over)."""
        self.stepper.advance(rewards, dones, infos)

    # ------------------------------------------------------------------ saving
    def game_data(self, g: Game) -> dict[str, Any]:
        """A game in progress as plain data (its players are the owner's to identify)."""
        return {
            "rng": g.rng.bit_generator.state,
            **g.table.to_data(),
            "learner_team": g.learner_team,
            "learner_seat": g.learner_seat,
            "last_seat": g.last_seat,
            "episode_reward": float(g.episode_reward),
            "episode_score": [int(x) for x in g.episode_score],
            "length": g.length,
            "hands": g.hands,
        }

    def load_game_data(self, g: Game, st: dict[str, Any]) -> None:
        """Restore ``game_data`` (the players are seated by the caller, then ``seat_players``)."""
        g.rng.bit_generator.state = st["rng"]
        g.table.load_data({"hand": st["hand"], "match": st["match"]})  # ValueError: other rules
        g.learner_team, g.last_seat = int(st["learner_team"]), int(st["last_seat"])
        g.learner_seat = int(st.get("learner_seat", -1))
        g.episode_reward = float(st["episode_reward"])
        g.episode_score = [int(x) for x in st["episode_score"]]
        g.length = int(st.get("length", 0))
        g.hands = list(st["hands"])
        self._masks = None

    @staticmethod
    def seat_players(g: Game) -> None:
        """Seat ``g.opponent`` (and ``g.partner``) around the learner's seats as they are."""
        for s in range(NUM_SEATS):
            if s % 2 != g.learner_team:
                g.players[s] = g.opponent
            elif g.learner_seat >= 0 and s != g.learner_seat:
                g.players[s] = g.partner
            else:
                g.players[s] = None


class TableLockstep:
    """The python backend of ``LockstepGames``: each game on its driver ``Table`` (module
    docstring); ``CoreLockstep`` is the same on the batched core."""

    def __init__(self, owner: LockstepGames) -> None:
        self.owner = owner

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """Observations and legal masks (bool) of every game's seat to act."""
        owner = self.owner
        games = owner.games
        obs = np.stack([encode(g.hand, g.hand.to_act, g.table.context) for g in games])
        masks = self.masks()
        if not owner.privileged:
            return obs, masks
        hands = np.asarray([[g.hand.hands[(g.hand.to_act + k) & 3] for k in range(4)] for g in games], dtype="<u4")
        priv = hidden_hands(hands)
        return np.concatenate([obs, priv], axis=1), masks

    def masks(self) -> np.ndarray:
        return np.stack([action_mask(g.hand, g.hand.to_act) for g in self.owner.games]).astype(bool)

    def terminal_observation(self, g: Game) -> np.ndarray:
        obs = encode(g.hand, g.last_seat, g.table.context)
        if self.owner.privileged:
            obs = np.concatenate([obs, np.zeros(PRIVILEGED_SIZE, np.float32)])
        return obs

    def learner_step(
        self, actions: Any, games: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
        owner = self.owner
        n = owner.n_games
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        idx = range(n) if games is None else games
        for i, a in zip(idx, actions, strict=True):
            g = owner.games[i]
            g.last_seat = g.table.to_act
            outcome = g.driver.apply(int(a))  # raises IllegalActionError on a masked action
            g.length += 1
            owner.decisions += 1
            owner.settle(i, outcome, rewards, dones, infos)
        self.advance(rewards, dones, infos)
        return rewards, dones, infos

    def advance(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> None:
        owner = self.owner
        while True:
            acting = []
            for i, g in enumerate(owner.games):
                hand = g.table.hand
                if hand is None or hand.done:
                    continue
                player = g.players[hand.to_act]
                if player is not None:
                    acting.append((i, player))
            if not acting:
                return
            for player, idxs, members, call in owner.groups(acting):
                tables = [owner.games[i].driver for i in idxs]
                seats = [Seat(t.current_hand, t.to_act, t.context) for t in tables]
                actions = player.act_seats(seats) if call is None else call(*seat_arrays(seats), members)
                for i, t, a in zip(idxs, tables, actions, strict=True):
                    owner.settle(i, t.apply(int(a)), rewards, dones, infos)


def _label(player: Any) -> str | None:
    if player is None:
        return None
    return getattr(player, "category", None) or getattr(player, "name", None) or type(player).__name__


def hand_summary(info: dict[str, Any], me: int) -> dict[str, Any]:
    """A hand's result (its R11.4 info, ``HandResult.to_info``) from team ``me``'s side, for
    logging (call, make, double, kaboot); a hand thrown in (R3.5) has no contract."""
    if info["contract"] is None:
        return {"thrown": True}
    score = info["score"]
    called = info["caller"] % 2 == me
    return {
        "thrown": False,
        "called": called,
        "made": called and bool(info["callers_won"]),
        "doubled": info["level"] > 1,
        "kaboot_for": bool(info["kaboot"]) and score[me] > 0,
        "kaboot_against": bool(info["kaboot"]) and score[me] == 0,
        "diff": score[me] - score[1 - me],
    }
