"""The state of N games as arrays, and the rule switches as an int array.

One game is one row of an int64 matrix: every field of the engine's ``HandState`` and
``MatchState`` that the rules need has its column(s), named after the engine's attribute
(``PHASE``, ``TO_ACT``, ``HANDS + seat``, ...). One plain matrix keeps each game's fields
together in memory and lets the kernels pass the whole state as one array (numba reference-
counts every array of a tuple argument at every call, which cost more than the rules here).
Cards and card sets follow the engine: ids ``8 * suit + rank`` (R1.2) and 32-bit masks. Seats are
absolute (0-3, R1.1); -1 means "none" in every seat, card and suit field.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from baloot_env.cards import NUM_CARDS, NUM_SEATS
from baloot_env.hand import BIDDING as _BIDDING
from baloot_env.hand import DONE as _DONE
from baloot_env.hand import DOUBLING as _DOUBLING
from baloot_env.hand import PHASES
from baloot_env.hand import PLAY as _PLAY
from baloot_env.rewards import REWARD_MODES
from baloot_env.rules import RuleConfig

# Phases, numbered as the observation's ``phase`` piece orders them.
BIDDING, DOUBLING, PLAY, DONE = (PHASES.index(p) for p in (_BIDDING, _DOUBLING, _PLAY, _DONE))
# Contracts, numbered as the observation's ``contract`` piece: -1 until settled.
HOKUM, SUN = 0, 1
STOCK_SIZE = 11  # R2.2
FIRST_HAND_SIZE = 5  # R2.2
# A deal row: the 32 cards as ``random_deal`` lays out its permutation (R2.2), then the dealer.
DEAL_HANDS, DEAL_TURNED, DEAL_STOCK = 0, 20, 21
DEAL_DEALER = NUM_CARDS
DEAL_ROW = NUM_CARDS + 1

# Episode kinds (the observation's ``match_mode`` piece): one hand, target 152 (R8.1), hands (R8.2).
EPISODE_HAND, EPISODE_TARGET, EPISODE_HANDS = 0, 1, 2
# Why a match ended, as ``MatchResult.reason``.
REASONS = ("target", "hands", "gahwa", "cap")
REASON_TARGET, REASON_HANDS, REASON_GAHWA, REASON_CAP = range(len(REASONS))


class _Layout:
    """Columns of a row, allocated in order; ``fields`` documents them."""

    def __init__(self) -> None:
        self.size = 0
        self.fields: dict[str, tuple[int, int, str]] = {}

    def add(self, name: str, width: int, meaning: str) -> int:
        start = self.size
        self.fields[name] = (start, width, meaning)
        self.size += width
        return start


_g = _Layout()
# The deal being played (R2.2, R2.4).
DEAL = _g.add("deal", NUM_CARDS, "the deal's cards: 0-19 the first hands (seat s at 5s..5s+4), 20 turned, 21-31 stock")
DEALER = _g.add("dealer", 1, "the dealer")
# Bidding (R3) and doubling (R4).
PHASE = _g.add("phase", 1, "BIDDING, DOUBLING, PLAY or DONE")
TO_ACT = _g.add("to_act", 1, "the seat to act, -1 once the hand is over")
BID_ROUND = _g.add("bid_round", 1, "1 or 2 (R3.1, R3.4)")
BIDS = _g.add("bids", 2 * NUM_SEATS, "column 4 * (round - 1) + seat: that seat's call (action id), -1 not yet")
HOKUM_BIDDER = _g.add("hokum_bidder", 1, "the seat that said hokum in round 1")
CONTRACT = _g.add("contract", 1, "HOKUM, SUN, -1 until settled")
TRUMP = _g.add("trump", 1, "the trump suit in Hokum, else -1")
CALLER = _g.add("caller", 1, "the caller (R3.6)")
LEVEL = _g.add("level", 1, "1-5 (R4.1)")
DOUBLING_CALLS = _g.add("doubling_calls", NUM_SEATS, "per seat, bits: 0 passed, 1-4 double, three, four, gahwa said")
LAST_RAISER = _g.add("last_raiser", 1, "the seat that raised last (R7.1)")
DOUBLING_PASSES = _g.add("doubling_passes", 1, "passes in a row (R4.2)")
# Cards.
HANDS = _g.add("hands", NUM_SEATS, "per seat, the cards held now")
PLAYED_BY = _g.add("played_by", NUM_SEATS, "per seat, the cards it has played")
VOIDS = _g.add("voids", NUM_SEATS, "per seat, bits of the suits it has shown it lacks (R5.2, R5.4)")
NO_TRUMPS = _g.add("no_trumps", NUM_SEATS, "per seat, trumps it cannot hold (R5.2, R5.4)")
# Projects (R6.1-R6.3) and the baloot (R6.5), declared when the contract is settled.
PROJECT_CARDS = _g.add("project_cards", NUM_SEATS, "per seat, the cards of its projects")
PROJECT_KINDS = _g.add(
    "project_kinds", 2 * NUM_SEATS, "column 2 * seat + i: its i-th project's kind (tables.KINDS), -1 none"
)
PROJECT_KEY = _g.add("project_key", NUM_SEATS, "per seat, its best project's R6.3 key, 0 none")
BALOOT_SEAT = _g.add("baloot_seat", 1, "the seat holding the baloot, -1 none")
BALOOT_ANNOUNCED = _g.add("baloot_announced", 1, "1 once public (R6.5)")
# The trick (R5).
TRICK_CARDS = _g.add("trick_cards", NUM_SEATS, "cards on the table in play order from the leader, -1 empty")
TRICK_SIZE = _g.add("trick_size", 1, "cards on the table")
TRICK_LEADER = _g.add("trick_leader", 1, "the seat that led, -1 between tricks")
TRICK_WINNER = _g.add("trick_winner", 1, "the seat winning it as it stands")
TRICK_WIN_CARD = _g.add("trick_win_card", 1, "the card winning it")
TRICK_BEST_TRUMP = _g.add("trick_best_trump", 1, "the highest trump on the table, -1 none")
TRICKS_PLAYED = _g.add("tricks_played", 1, "tricks completed")
TRICKS_WON = _g.add("tricks_won", 2, "per team")
RAW = _g.add("raw", 2, "per team, card points with the last-trick bonus (R1.4)")
# The match (R8); zeros throughout in hand episodes.
MATCH_SCORE = _g.add("match_score", 2, "per team, before the current hand")
DEALS_PLAYED = _g.add("deals_played", 1, "thrown-in deals included (R8.4)")
HANDS_SCORED = _g.add("hands_scored", 1, "thrown-in deals excluded (R8.2)")
EPISODE_OVER = _g.add("episode_over", 1, "1: the finished hand also ended the episode (a match, or a single hand)")
# Where deals come from: queued deals first, then the game's random stream.
QUEUE_LEN = _g.add("queue_len", 1, "queued deals")
QUEUE_POS = _g.add("queue_pos", 1, "the next queued deal to play")
NUM_FIELDS = _g.size
FIELDS = _g.fields

_r = _Layout()
# What the last step produced; the hand and match fields keep the last finished one's result.
HAND_DONE = _r.add("hand_done", 1, "1: a hand ended in the last step")
EPISODE_DONE = _r.add("episode_done", 1, "1: a hand episode's hand, or a match, ended in the last step")
R_CONTRACT = _r.add("contract", 1, "HOKUM, SUN, or -1 for a thrown-in deal (R11.4)")
R_TRUMP = _r.add("trump", 1, "the trump suit or -1")
R_CALLER = _r.add("caller", 1, "the caller or -1")
R_LEVEL = _r.add("level", 1, "1-5")
R_RAW = _r.add("raw", 2, "per team")
R_TRICKS = _r.add("tricks", 2, "per team")
R_PROJECTS = _r.add(
    "projects", 8, "column 4 * team + i: the values of the team's projects that score (R6.3, R6.4), -1 padded"
)
R_BALOOT = _r.add("baloot", 2, "per team, 2 if one of its seats held the baloot")
R_KABOOT = _r.add("kaboot", 1, "1 if one team took every trick")
R_CALLERS_WON = _r.add("callers_won", 1, "1, 0, or -1 for a thrown-in deal")
R_SCORE = _r.add("score", 2, "per team, the game points the hand adds")
R_GAHWA_WINNER = _r.add("gahwa_winner", 1, "the team that won a gahwa hand, or -1")
R_DEALER = _r.add("dealer", 1, "the hand's dealer")
M_WINNER = _r.add("match_winner", 1, "the last match's winner, -1 a draw (R11.5)")
M_SCORE = _r.add("match_score", 2, "the last match's final score")
M_REASON = _r.add("match_reason", 1, "index into REASONS")
NUM_RESULTS = _r.size
RESULT_FIELDS = _r.fields

# Indexes into the switches array (``rule_switches``).
SW_SUN_DOUBLE = 0  # V1
SW_PROJECTS = 1  # V2
SW_DOUBLING = 2  # V3
SW_EPISODE = 3  # V4 and the episode: EPISODE_HAND, EPISODE_TARGET or EPISODE_HANDS
SW_HANDS = 4  # V4: scored hands in hands mode
SW_LAST_DIGIT = 5  # V5
SW_WIN_ABOVE = 6  # V6
SW_ACES_HUNDRED = 7  # V7
SW_BALOOT_KEPT = 8  # V8
SW_ROTATION = 9  # V9: seats the deal moves on, 3 (left, R2.1) or 1 (right)
SW_REWARD = 10  # index into REWARD_MODES
SW_AUTO_RESET = 11  # 1: a finished game starts its next deal within the same step
SW_ROTATE_QUEUED = 12  # 1: queued deals take the rotation's dealer after a match's first (DealSource "rotate")
NUM_SWITCHES = 13
# Indexes into the payoff array (``payoff``): the "diff" divisor and the match bonus (``baloot_env.rewards``).
PAY_SCALE, PAY_BONUS = 0, 1


def rule_switches(
    rules: RuleConfig, episode: str = "hand", reward: str = "diff", auto_reset: bool = True, dealers: str = "given"
) -> np.ndarray:
    """The int64 switch array the kernels read, from a ``RuleConfig`` (V1-V9) and the episode.

    Args:
        rules: the variants.
        episode: "hand" (one deal per episode) or "match" (R8, as ``rules.match`` says).
        reward: "diff", "points" or "win" (``baloot_env.rewards``).
        auto_reset: whether a finished game deals again within the step that finished it.
        dealers: queued deals keep their dealer ("given", R11.2) or, after a match's first
            deal, take the rotation's ("rotate", R2.1), as ``driver.DealSource``.
    """
    if not isinstance(rules, RuleConfig):
        raise TypeError(f"rules must be a RuleConfig, got {type(rules).__name__}")
    if episode not in ("hand", "match"):
        raise ValueError(f"episode must be 'hand' or 'match', got {episode!r}")
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
    if dealers not in ("given", "rotate"):
        raise ValueError(f"dealers must be 'given' or 'rotate', got {dealers!r}")
    sw = np.zeros(NUM_SWITCHES, dtype=np.int64)
    sw[SW_SUN_DOUBLE] = rules.sun_double
    sw[SW_PROJECTS] = rules.projects
    sw[SW_DOUBLING] = rules.doubling
    if episode == "hand":
        sw[SW_EPISODE] = EPISODE_HAND
    else:
        sw[SW_EPISODE] = EPISODE_TARGET if rules.match == "target" else EPISODE_HANDS
    sw[SW_HANDS] = rules.hands
    sw[SW_LAST_DIGIT] = rules.tie_rule == "last_digit"
    sw[SW_WIN_ABOVE] = rules.win_above
    sw[SW_ACES_HUNDRED] = rules.four_aces_hokum == "hundred"
    sw[SW_BALOOT_KEPT] = rules.baloot_kept
    sw[SW_ROTATION] = rules.next_dealer(0)
    sw[SW_REWARD] = REWARD_MODES.index(reward)
    sw[SW_AUTO_RESET] = auto_reset
    sw[SW_ROTATE_QUEUED] = dealers == "rotate"
    return sw


def payoff(scale: float, match_bonus: float) -> np.ndarray:
    """The float64 payoff array the kernels read (``PAY_SCALE``, ``PAY_BONUS``)."""
    out = np.zeros(2, dtype=np.float64)
    out[PAY_SCALE] = scale
    out[PAY_BONUS] = match_bonus
    return out


class BatchState(NamedTuple):
    """N games: ``games`` (int64[N, NUM_FIELDS], columns above), each game's random stream
    (uint64[N], splitmix64) and its queued deals (int8[N, K, 33] rows: 32 cards, then the dealer)."""

    games: np.ndarray
    rng: np.ndarray
    queue: np.ndarray

    def field(self, name: str) -> np.ndarray:
        """A view of one field for every game: shape (N,) or (N, width) (``FIELDS``)."""
        start, width, _ = FIELDS[name]
        return self.games[:, start] if width == 1 else self.games[:, start : start + width]


class BatchResults(NamedTuple):
    """What the last step produced per game: ``reward`` (float64[N], team 0's; team 1 gets its
    negative) and ``table`` (int64[N, NUM_RESULTS], columns above: the step's ends, the last
    finished hand's R11.4 result and the last match's R11.5 result)."""

    reward: np.ndarray
    table: np.ndarray

    def field(self, name: str) -> np.ndarray:
        """A view of one result field for every game (``RESULT_FIELDS``)."""
        start, width, _ = RESULT_FIELDS[name]
        return self.table[:, start] if width == 1 else self.table[:, start : start + width]

    @property
    def hand_done(self) -> np.ndarray:
        return self.table[:, HAND_DONE]

    @property
    def episode_done(self) -> np.ndarray:
        return self.table[:, EPISODE_DONE]


def new_state(num_games: int, queue_size: int = 0) -> BatchState:
    """Zeroed arrays for ``num_games`` games (a reset kernel deals them)."""
    return BatchState(
        games=np.zeros((num_games, NUM_FIELDS), dtype=np.int64),
        rng=np.zeros(num_games, dtype=np.uint64),
        queue=np.zeros((num_games, queue_size, DEAL_ROW), dtype=np.int8),
    )


def new_results(num_games: int) -> BatchResults:
    """Zeroed result arrays for ``num_games`` games."""
    return BatchResults(reward=np.zeros(num_games, np.float64), table=np.zeros((num_games, NUM_RESULTS), np.int64))
