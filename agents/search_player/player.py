"""``search``: sampled hidden hands with lookahead.

For each card decision (R5) the player

1. samples ``worlds`` deals of the unseen cards, uniformly among those consistent with what
   its ``PlayerView`` shows (``baloot_env.worlds``: exact counting, no inconsistent world);
2. for every legal card and every world, plays the hand to its end: the ``heuristic`` card
   play (``agents.rule_based.card_play``, which sees only the world's public knowledge) until
   ``endgame_tricks`` tricks are left, then exact perfect-information alpha-beta search
   (``agents.search_player.endgame``) of the rest;
3. plays the card with the best mean hand score of its team minus the other team's (game
   points of the hand, R7, with the world's projects and baloot, R6).

Two backends play step 2 (``SearchConfig.backend``). ``"core"`` (the default) turns the
view into one row of the batched core (``world_row``: ``build_world`` through
``baloot_env.batch.convert.state_row``) and plays every (world, card) in one numba kernel call
(``agents.search_player.batch_search``: the heuristic kernel, then the endgame as a kernel);
``"python"`` plays them through ``HandState``. With the same worlds (the same seed) and
``epsilon`` 0 both give the same values to the bit, so the same cards
(``tests/agents/test_search_core.py``). The core is about 20 times faster: the default 384 worlds take
the median time that 16 took through ``HandState`` (``benchmarks/search_speed.py``).

The same worlds serve every card (common random numbers), so the comparison between cards
is sharper than the noise of one world. A forced card is played at once.

Worlds are built from the view only: the other seats' hands come from the sampler; the
projects and the baloot of every seat are recomputed from the world's 8-card hands (R6.1,
R6.5), which agrees with the public ones because the sampler rejects worlds that would
declare other projects. The rule variants (public) are the view's ``rules``.

Bidding (R3) and doubling (R4) use the ``heuristic`` agent's documented bars by default; with
``calls`` set to ``"searched"`` every legal call is valued by playing sampled deals to the end
instead (``agents.search_player.calls``: the heuristic continues for every seat; with
``condition`` the deals agree with the calls so far). With ``condition_play`` the card play's
worlds are filtered by the calls too (``calls.CallFilter``).

With a fixed seed every decision is deterministic, unless ``time_budget`` is set: then the
number of worlds depends on the clock (at least ``min_worlds``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from agents.judgement import Judgement
from agents.rule_based.card_play import choose_card
from agents.rule_based.heuristic import HeuristicAgent
from agents.search_player.batch_endgame import claim_stamps
from agents.search_player.batch_search import search_values
from agents.search_player.calls import CallFilter, call_values, conditioned_worlds, doubling_values
from agents.search_player.card_values import CardValues
from agents.search_player.endgame import solve
from baloot_env.batch.convert import state_row
from baloot_env.batch.state import rule_switches
from baloot_env.batch.worlds import sample_worlds
from baloot_env.cards import KING, NO_CARD, NUM_TRICKS, QUEEN, cards_of
from baloot_env.config import from_mapping
from baloot_env.errors import ConfigError, shown
from baloot_env.hand import BIDDING, DOUBLING, PLAY, HandState
from baloot_env.projects import BALOOT_POINTS, Project, declare_projects, has_baloot, scoring_projects
from baloot_env.rules import RuleConfig
from baloot_env.scoring import HOKUM, RAW_TOTAL, score_hand
from baloot_env.seats import NO_SEAT, NUM_SEATS, other_team, team_of
from baloot_env.view import PlayerView
from baloot_env.worlds import WorldSampler

# The core backend's worlds in the median time the Python backend takes for 16 worlds:
# benchmarks/search_speed.py measured 381 on the same decisions.
SEARCH_DEFAULT_WORLDS = 384
MAX_WORLDS = 65_536  # 170 times the default: about 1.5 s a decision on the core
# the most each count may be (the least is 1; 0 for call_worlds): a size that would run silently
# for minutes a decision, or fill the memory, is refused when the agent is built
SEARCH_CAPS = {
    "worlds": MAX_WORLDS,
    "call_worlds": MAX_WORLDS,
    "min_worlds": MAX_WORLDS,
    "playouts": 1024,
    "max_tries": 1_000_000,
}
MAX_TIME_BUDGET = 60.0  # seconds a decision
BACKENDS = ("core", "python")  # where the playouts run (module docstring)
CALLS = ("heuristic", "searched")  # how the bids are chosen (module docstring)
_CORE_CHUNK = 8  # worlds per kernel call under a time budget


@dataclass(frozen=True)
class SearchConfig:
    """Parameters of the search player.

    Attributes:
        worlds: sampled worlds per decision (``SEARCH_DEFAULT_WORLDS``: sized for the core backend;
            the Python backend takes about as long for 16).
        playouts: playouts per world and card (more than 1 only helps with ``epsilon`` > 0).
        epsilon: probability that a playout move is a random legal card instead of the heuristic's.
        endgame_tricks: tricks left when the exact search takes over (3 means the last 12 cards).
        time_budget: seconds per decision, 0 for none; when set, worlds are added until it is spent.
        min_worlds: worlds used even when the time budget is spent.
        max_tries: project rejections per world before the sampler falls back.
        backend: "core" (playouts in the batched core's kernels) or "python" (``HandState``).
        calls: bids by the heuristic's bars ("heuristic") or by sampled deals ("searched",
            ``agents.search_player.calls``; always on the core, with ``call_worlds`` deals).
        call_worlds: sampled deals per searched call (bid or double); 0 means ``worlds``.
        condition: with searched calls, keep only the sampled deals in which the heuristic
            makes the other seats' calls so far (``calls.call_values``).
        condition_play: in card play, keep only the sampled worlds that agree with the calls
            (``calls.CallFilter``: of ``worlds`` drawn, those that agree are played); core
            backend only.
        worlds_by_trick: empty, or the worlds of a card decision in each of the 8 tricks, in
            place of ``worlds``: the search's noise is in the first tricks and nearly gone
            from the sixth (docs/RESULTS.md, "The teacher's noise"), so worlds are better
            spent early. ``worlds`` still sizes the calls (unless ``call_worlds`` does).
        stop_z: 0, or a card decision stops drawing worlds once its best card is ahead of every
            other card by more than ``stop_z`` standard errors of their paired difference (or
            plays alike in every world so far): the worlds, ``stop_worlds`` at a time, up to
            ``worlds``, go to the decisions that are close. Core backend, without a time budget.
        stop_worlds: with ``stop_z``, the worlds drawn between two looks.
    """

    worlds: int = SEARCH_DEFAULT_WORLDS
    playouts: int = 1
    epsilon: float = 0.0
    endgame_tricks: int = 3
    time_budget: float = 0.0
    min_worlds: int = 4
    max_tries: int = 200
    backend: str = "core"
    calls: str = "heuristic"
    call_worlds: int = 0
    condition: bool = False
    condition_play: bool = False
    worlds_by_trick: tuple[int, ...] = ()
    stop_z: float = 0.0
    stop_worlds: int = 32

    def __post_init__(self) -> None:
        for name, high in SEARCH_CAPS.items():
            v = getattr(self, name)
            low = 0 if name == "call_worlds" else 1
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise ConfigError(f"search param {name} must be an integer in [{low}, {high:,}], got {shown(v)}")
        schedule = self.worlds_by_trick
        if schedule and (
            len(schedule) != NUM_TRICKS
            or not all(not isinstance(v, bool) and isinstance(v, int) and 1 <= v <= MAX_WORLDS for v in schedule)
        ):
            raise ConfigError(
                f"search param worlds_by_trick must be {NUM_TRICKS} integers in [1, {MAX_WORLDS:,}] "
                f"(a card decision's worlds in each trick), got {shown(list(schedule))}"
            )
        work = max(self.worlds, self.call_worlds, *schedule) * self.playouts
        if work > MAX_WORLDS:  # each within its bound, their product a decision of hours
            raise ConfigError(
                f"search params worlds x playouts must be at most {MAX_WORLDS:,} playouts a card (a decision's "
                f"work), got {max(self.worlds, self.call_worlds):,} x {self.playouts:,} = {work:,}"
            )
        if isinstance(self.endgame_tricks, bool) or self.endgame_tricks not in range(0, NUM_TRICKS + 1):
            raise ConfigError(f"search param endgame_tricks must be 0-8, got {self.endgame_tricks!r}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ConfigError(f"search param epsilon must be in [0, 1], got {self.epsilon!r}")
        if not 0 <= self.time_budget <= MAX_TIME_BUDGET:
            raise ConfigError(
                f"search param time_budget must be in [0, {MAX_TIME_BUDGET:g}] seconds, got {self.time_budget!r}"
            )
        if self.backend not in BACKENDS:
            raise ConfigError(f"search param backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.condition_play and self.backend != "core":
            raise ConfigError("search param condition_play needs backend 'core'")
        if self.calls not in CALLS:
            raise ConfigError(f"search param calls must be one of {CALLS}, got {self.calls!r}")
        if not 0 <= self.stop_z < math.inf:  # NaN fails
            raise ConfigError(f"search param stop_z must be a finite number >= 0, got {self.stop_z!r}")
        if isinstance(self.stop_worlds, bool) or not isinstance(self.stop_worlds, int) or self.stop_worlds < 2:
            raise ConfigError(f"search param stop_worlds must be an integer >= 2, got {shown(self.stop_worlds)}")
        if self.stop_z and (self.backend != "core" or self.time_budget):
            raise ConfigError("search param stop_z needs backend 'core' and no time_budget")

    @classmethod
    def from_dict(cls, data: object) -> SearchConfig:
        """Build from a mapping (``baloot_env.config.from_mapping``); unknown keys or wrong types
        raise ``ConfigError``."""
        return from_mapping(cls, data, "search param")

    def to_dict(self) -> dict[str, Any]:
        """The params mapping ``from_dict`` reads back (``worlds_by_trick`` and the ``stop_*``
        params only where they are set, so the descriptions of searches without them stay as
        they were)."""
        out = asdict(self)
        for name in ("worlds_by_trick", "stop_z", "stop_worlds"):
            del out[name]
        if self.worlds_by_trick:
            out["worlds_by_trick"] = list(self.worlds_by_trick)
        return out | ({"stop_z": self.stop_z, "stop_worlds": self.stop_worlds} if self.stop_z else {})

    def card_worlds(self, view: PlayerView) -> int:
        """The worlds of a card decision in ``view``'s trick (``worlds_by_trick``, else ``worlds``)."""
        return self.worlds_by_trick[len(view.tricks)] if self.worlds_by_trick else self.worlds


class _Seen:
    """The fields of a ``PlayerView`` that ``card_play.choose_card`` reads, taken from a world."""

    __slots__ = (
        "seat",
        "hand",
        "legal_mask",
        "trump",
        "caller",
        "played_by",
        "voids",
        "no_trumps",
        "trick_cards",
        "trick_seats",
        "trick_winner",
    )

    def __init__(self, state: HandState) -> None:
        seat = state.to_act
        self.seat = seat
        self.hand = state.hands[seat]
        self.legal_mask = state.legal_mask()
        self.trump = state.trump
        self.caller = state.caller
        self.played_by = state.played_by
        self.voids = state.voids
        self.no_trumps = state.no_trumps
        self.trick_cards = state.trick_cards
        self.trick_seats = state.trick_seats
        self.trick_winner = state.trick_winner


def build_world(view: PlayerView, hands: list[int], rules: RuleConfig | None = None) -> HandState:
    """A ``HandState`` in the play phase with the given holdings and the view's public history.

    Only public fields of ``view`` are read; ``rules`` default to the view's. The deal itself (first cards and stock order) is
    not known and not needed in the play phase, so ``deal`` is None; ``history`` is empty.
    """
    rules = rules or view.rules
    full_hands = [hands[s] | view.played_by[s] for s in range(NUM_SEATS)]
    projects, baloot_seat, baloot_announced = _declared(view, full_hands, rules)
    win_card = best_trump = NO_CARD
    if view.trick_cards:
        win_card = view.trick_cards[view.trick_seats.index(view.trick_winner)]
        if win_card >> 3 == view.trump:
            best_trump = win_card  # a trump on the table wins the trick (R5.5)
    return HandState.from_fields(
        {
            "rules": rules,
            "deal": None,  # not known to the seat, and not read in the play phase
            "dealer": view.dealer,
            "phase": PLAY,
            "to_act": view.to_act,
            "hands": list(hands),
            "bid_round": view.bid_round,
            "bids": list(view.bids),
            "hokum_bidder": NO_SEAT,
            "contract": view.contract,
            "trump": view.trump,
            "caller": view.caller,
            "level": view.level,
            "doubling_calls": list(view.doubling_calls),
            "last_raiser": view.last_raiser,
            "doubling_passes": 0,
            "full_hands": full_hands,
            "projects": projects,
            "baloot_seat": baloot_seat,
            "baloot_announced": baloot_announced,
            "trick_seats": list(view.trick_seats),
            "trick_cards": list(view.trick_cards),
            "trick_winner": view.trick_winner,
            "trick_win_card": win_card,
            "trick_best_trump": best_trump,
            "tricks": list(view.tricks),
            "tricks_won": list(view.tricks_won),
            "raw": list(view.raw),
            "played_by": list(view.played_by),
            "voids": list(view.voids),
            "no_trumps": list(view.no_trumps),
            "history": [],
            "result": None,
            "match_score": tuple(view.match_score),
        }
    )


def _declared(view: PlayerView, full_hands: list[int], rules: RuleConfig) -> tuple[list[list[Project]], int, bool]:
    """What the world's 8-card hands declare (R6.1; none under V2, R6.6), and the seat holding the
    baloot in Hokum with whether it is announced (both cards played, R6.5)."""
    projects: list[list[Project]] = [[] for _ in range(NUM_SEATS)]
    baloot_seat, baloot_announced = NO_SEAT, False
    if rules.projects:
        hokum = view.contract == HOKUM
        projects = [declare_projects(h, hokum, rules.four_aces_hokum) for h in full_hands]
        if hokum:
            for s in range(NUM_SEATS):
                if has_baloot(full_hands[s], view.trump):
                    baloot_seat = s
                    both = 1 << (8 * view.trump + KING) | 1 << (8 * view.trump + QUEEN)
                    baloot_announced = view.played_by[s] & both == both
    return projects, baloot_seat, baloot_announced


def world_row(view: PlayerView, hands: list[int], rules: RuleConfig | None = None) -> np.ndarray:
    """The world as one int64 row of the batched core: ``build_world`` through
    ``baloot_env.batch.convert.state_row`` (its deal unknown but for the turned card, R2.2)."""

    return state_row(build_world(view, hands, rules), turned=view.turned)


_SWITCHES: dict[RuleConfig, np.ndarray] = {}


def _switches(rules: RuleConfig) -> np.ndarray:
    """The core's switch array of ``rules`` (a hand episode: a world is one hand), cached."""
    sw = _SWITCHES.get(rules)
    if sw is None:
        sw = _SWITCHES[rules] = rule_switches(rules, "hand")
    return sw


def leaf_function(world: HandState, team: int) -> Callable[[int, int], int]:
    """Value for ``team`` of a finished hand of ``world``: its score minus the other's (R7).

    Returns a function of (team 0 raw points with the last-trick bonus, team 0 tricks), cached.
    """
    contract = world.contract
    if contract is None:
        raise ValueError("leaf_function needs a hand with a contract (R3)")
    hokum = contract == HOKUM
    total = RAW_TOTAL[contract]
    baloot = [0, 0]
    if world.baloot_seat >= 0:
        baloot[team_of(world.baloot_seat)] = BALOOT_POINTS
    cache: dict[tuple[int, int], int] = {}
    args = (contract, world.caller, world.level)

    def leaf(raw0: int, tricks0: int) -> int:
        key = (raw0, tricks0)
        v = cache.get(key)
        if v is None:
            tricks = [tricks0, NUM_TRICKS - tricks0]
            per_team = scoring_projects(world.projects, world.dealer, tricks, hokum)
            hs = score_hand(*args, [raw0, total - raw0], tricks, per_team, baloot, world.rules, world.match_score)
            v = hs.score[team] - hs.score[other_team(team)]
            cache[key] = v
        return v

    return leaf


def _joined(weights: list[np.ndarray]) -> np.ndarray | None:
    """The worlds' weights of a decision's batches in one array (None: the worlds weigh alike)."""
    return np.concatenate(weights) if weights else None


def cards_left(state: HandState) -> int:
    return sum(h.bit_count() for h in state.hands)


LeafValues = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int], np.ndarray]
WorldWeights = Callable[[PlayerView, np.ndarray, np.ndarray], np.ndarray]


class SearchAgent(Agent):
    """Sampled-worlds lookahead for card play; heuristic bidding and doubling (module docstring)."""

    name = "search"
    deterministic = False

    def __init__(
        self,
        seed: int = 0,
        config: SearchConfig | None = None,
        leaf_values: LeafValues | None = None,
        world_weights: WorldWeights | None = None,
    ):
        """``leaf_values``: on the core backend, what values a card in a batch of worlds instead of
        the heuristic playouts (``netsearch``'s critic or policy leaves); called as
        ``leaf_values(template, worlds, cards, switches, team, endgame_cards)``, it returns each
        card's value in each world (worlds x cards). ``world_weights``: on the core backend, the
        weight of each world of a card decision (``netsearch``'s beliefs), called as
        ``world_weights(view, worlds, switches)``; None: every world weighs alike."""
        super().__init__(seed)
        self.config = config or SearchConfig()
        self.heuristic = HeuristicAgent(seed)
        self.leaf_values = leaf_values
        self.world_weights = world_weights
        if (leaf_values is not None or world_weights is not None) and self.config.backend != "core":
            raise ConfigError("search leaves other than playouts, and weighted worlds, need backend 'core'")
        self.last_stats: dict[str, Any] = {}

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name, "params": self.config.to_dict()}

    def act(self, view: PlayerView) -> int:
        return self.judge(view).action

    def judge(self, view: PlayerView) -> Judgement:
        """The action and, for a searched choice, every legal action's value: the cards of a card
        choice (with their errors on the core backend), and with ``calls: "searched"`` the calls
        of a bid or double.

        Used by ``act`` and by the labelling of positions (``train.labels``, ``agents.teacher``),
        which turns the values into soft or policy-improvement targets.
        """
        if view.phase in (BIDDING, DOUBLING) and self.config.calls == "searched":
            return Judgement(*self._searched_call(view))
        if view.phase != PLAY:
            return Judgement(self.heuristic.act(view))  # R3, R4: the heuristic's bars (module docstring)
        legal = cards_of(view.legal_mask)
        if len(legal) == 1:
            return Judgement(legal[0])
        if self.config.backend != "core":
            values = self.evaluate(view)
            return Judgement(self.pick(view, values), values)
        found = self.card_values(view, self.rng)
        values = found.values()
        action = self.pick(view, values)
        return Judgement(action, values, found.gap_errors(action))

    def pick(self, view: PlayerView, values: dict[int, float]) -> int:
        """The card ``judge`` plays given every legal card's value: the best one. Ties (common
        when the cards are equivalent) go to the heuristic's choice when it is among them, else
        to the lowest id: stable and deterministic."""
        best = max(values.values())
        tied = [c for c in cards_of(view.legal_mask) if values[c] == best]
        h = choose_card(view)
        return h if h in tied else tied[0]

    def choose_call(self, view: PlayerView) -> int:
        """The bid (R3) or doubling call (R4) with the best mean value over sampled deals
        (``calls.call_values``, ``calls.doubling_values``); ties go to the heuristic's call when
        it is among them, else to the lowest action id."""
        return self._searched_call(view)[0]

    def _searched_call(self, view: PlayerView) -> tuple[int, dict[int, float] | None]:
        """``choose_call``'s call and every legal call's value (None when only one is legal)."""
        legal = cards_of(view.legal_mask)
        if len(legal) == 1:
            return legal[0], None
        values, used = self.call_values(view)
        self.last_stats = {"worlds": used, "call_values": values}
        best = max(values.values())
        tied = [a for a in legal if values[a] == best]
        h = self.heuristic.act(view)
        return (h if h in tied else tied[0]), values

    def call_values(self, view: PlayerView) -> tuple[dict[int, float], int]:
        """Every legal call's mean value over sampled deals, and the deals used (bidding or doubling)."""

        values = call_values if view.phase == BIDDING else doubling_values
        return values(view, self.config.call_worlds or self.config.worlds, self.rng, self.config.condition)

    def evaluate(self, view: PlayerView, rng: random.Random | None = None) -> dict[int, float]:
        """Mean value (own team's hand score minus the other's, R7) of every legal card."""
        cfg = self.config
        rng = rng or self.rng
        if cfg.backend == "core":
            return self.card_values(view, rng).values()
        rules = view.rules
        sampler = WorldSampler(view, rules.projects, rules.four_aces_hokum, cfg.max_tries)
        legal = cards_of(view.legal_mask)
        team = team_of(view.seat)
        sums = dict.fromkeys(legal, 0.0)
        n = 0
        start = time.perf_counter()
        endgame_cards = NUM_SEATS * cfg.endgame_tricks
        while True:
            if cfg.time_budget > 0:
                if n >= cfg.min_worlds and time.perf_counter() - start >= cfg.time_budget:
                    break
            elif n >= cfg.card_worlds(view):
                break
            world = build_world(view, sampler.sample(rng), rules)
            leaf = leaf_function(world, team)
            for card in legal:
                for _ in range(cfg.playouts):
                    s = world.clone()
                    s.apply(card)
                    sums[card] += self._finish(s, team, leaf, endgame_cards, rng)
            n += 1
        self.last_stats = {"worlds": n, "fallbacks": sampler.fallbacks, "deals": sampler.total}
        return {c: sums[c] / (n * cfg.playouts) for c in legal}

    def card_values(self, view: PlayerView, rng: random.Random, candidates: Sequence[int] = ()) -> CardValues:
        """``evaluate`` on the core (``batch_search.search_values``, or ``leaf_values``) before the
        mean: every legal card's value in every world played, and their sums; with ``candidates``
        (legal cards of the view, in card order) only theirs.

        The worlds come from the same sampler, drawn in the same order from ``rng`` as the Python
        backend draws them; with ``epsilon`` 0 nothing else is drawn, so the same seed gives the
        same worlds and the same values.
        """

        cfg = self.config
        rules = view.rules
        sampler = WorldSampler(view, rules.projects, rules.four_aces_hokum, cfg.max_tries)
        legal = list(candidates) or cards_of(view.legal_mask)
        cards = np.array(legal, dtype=np.int64)
        sums = np.zeros(len(legal), dtype=np.float64)
        stream = np.zeros(1, dtype=np.uint64)
        if cfg.epsilon > 0:
            stream[0] = rng.getrandbits(64)
        sw = _switches(rules)
        team = team_of(view.seat)
        endgame_cards = NUM_SEATS * cfg.endgame_tricks
        start = time.perf_counter()
        template = None
        per_world: list[np.ndarray] = []
        weights: list[np.ndarray] = []
        call_filter = None
        if cfg.condition_play and view.bids:
            call_filter = CallFilter(view, rng)
        n = 0  # worlds played
        drawn = 0  # worlds sampled (more than played when ``condition_play`` filters them)
        while (k := self._next_batch(view, n, drawn, start)) > 0:
            drawn += k
            if call_filter is not None:
                least = max(cfg.min_worlds - n, 0) if cfg.time_budget > 0 else min(k, cfg.min_worlds)
                worlds = conditioned_worlds(lambda: sampler.sample(rng), k, call_filter, least)
                if len(worlds) == 0:
                    continue
            else:
                worlds = sample_worlds(sampler, rng, k)  # sampler.sample's draws, compiled
            if template is None:
                template = world_row(view, [int(h) for h in worlds[0]], rules)
            total, each = self._play(template, worlds, cards, sw, team, endgame_cards, stream)
            sums += total
            per_world.append(each)
            if self.world_weights is not None:
                weights.append(self.world_weights(view, worlds, sw))
            n += len(worlds)
            if cfg.stop_z and drawn < cfg.card_worlds(view):
                so_far = CardValues(tuple(legal), sums, np.concatenate(per_world), cfg.playouts, _joined(weights))
                if so_far.settled(cfg.stop_z):
                    break
        self.last_stats = {"worlds": n, "fallbacks": sampler.fallbacks, "deals": sampler.total}
        if call_filter is not None:
            self.last_stats["calls_drawn"] = call_filter.drawn
            self.last_stats["calls_kept"] = call_filter.kept
        each_world = np.concatenate(per_world) if per_world else np.zeros((0, len(legal)))
        return CardValues(tuple(legal), sums, each_world, cfg.playouts, _joined(weights))

    def _next_batch(self, view: PlayerView, n: int, drawn: int, start: float) -> int:
        """The worlds a card decision draws next (0: it is done), having played ``n`` of the
        ``drawn`` since ``start``: under a time budget, chunks until the budget is spent (at
        least ``min_worlds``); else the rest of its worlds, ``stop_worlds`` at a time with
        ``stop_z``."""
        cfg = self.config
        if cfg.time_budget > 0:
            if n >= cfg.min_worlds and time.perf_counter() - start >= cfg.time_budget:
                return 0
            return max(cfg.min_worlds - n, _CORE_CHUNK)
        rest = cfg.card_worlds(view) - drawn
        return min(rest, cfg.stop_worlds) if cfg.stop_z else max(rest, 0)

    def _play(
        self,
        template: np.ndarray,
        worlds: np.ndarray,
        cards: np.ndarray,
        sw: np.ndarray,
        team: int,
        endgame_cards: int,
        stream: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """One batch of worlds on the core: each card's sum over the worlds and playouts, and
        each world's value of each card (the mean over its playouts)."""
        playouts = self.config.playouts
        if self.leaf_values is not None:  # deterministic leaves: every playout of a world alike
            each = self.leaf_values(template, worlds, cards, sw, team, endgame_cards)
            return each.sum(axis=0) * playouts, each
        played = np.zeros((len(worlds), len(cards)), dtype=np.float64)
        eps = float(self.config.epsilon)
        table, stamp = claim_stamps(len(worlds))
        search_values(template, worlds, cards, sw, team, endgame_cards, eps, playouts, stream, played, table, stamp)
        return played.sum(axis=0), played / playouts  # whole game points: the sum is exact in any order

    def _finish(
        self, s: HandState, team: int, leaf: Callable[[int, int], int], endgame_cards: int, rng: random.Random
    ) -> float:
        """Play ``s`` to the end: heuristic playout, then exact search of the last tricks."""
        eps = self.config.epsilon
        while s.phase == PLAY and cards_left(s) > endgame_cards:
            if eps and rng.random() < eps:
                s.apply(rng.choice(s.legal_actions()))
            else:
                s.apply(choose_card(_Seen(s)))
        if s.phase != PLAY:
            out: float = leaf(s.raw[0], s.tricks_won[0])
            return out
        trick = list(zip(s.trick_seats, s.trick_cards, strict=True))
        return solve(s.hands, s.to_act, trick, s.trump, s.raw[0], s.tricks_won[0], len(s.tricks), team, leaf)
