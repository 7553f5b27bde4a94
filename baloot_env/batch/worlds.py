"""The world sampler's draws in one kernel: ``WorldSampler.sample`` for many worlds at once.

``baloot_env.worlds.WorldSampler`` counts the consistent deals of a view once and then draws
each world in Python: a split of every class of free cards with probability proportional to its
deals (``random.randrange``), the class's cards by ``random.shuffle``, and, for seats with public
projects, a rejection until the world declares exactly those projects (R6.1, R6.2). The search
draws tens to hundreds of worlds a decision, and those draws were a fifth of a guided teacher's
labelling time and more of ``search``'s.

``sample_worlds`` makes the same draws in one compiled loop, from the same ``random.Random``:
its Mersenne Twister state is read (``getstate``), advanced here word for word as CPython's
``getrandbits``, ``randrange`` and ``shuffle`` advance it, and written back (``setstate``). So
the worlds, the generator's state afterwards and the sampler's ``tries`` and ``fallbacks`` are
those of ``[sampler.sample(rng) for _ in range(count)]`` to the bit, and every figure of a search
stays as it was (``tests/baloot_env/test_batch_worlds.py`` draws both ways on the views of many
hands, projects and variants included). The project check is the batched core's
``declare_projects``, compared on the kinds and cards the view shows.
"""

from __future__ import annotations

import random
from math import comb
from typing import Any

import numpy as np

from baloot_env.batch.jit import njit
from baloot_env.batch.projects import declare_projects
from baloot_env.batch.tables import KINDS
from baloot_env.cards import NUM_CARDS
from baloot_env.scoring import HOKUM
from baloot_env.seats import NUM_SEATS
from baloot_env.worlds import WorldSampler

_N, _M = 624, 397  # the Mersenne Twister's state words and its shift (CPython's _randommodule.c)
_MT_STATE_VERSION = 3  # random.Random.getstate()'s first item
_BINOMIAL = np.array([[comb(n, k) for k in range(NUM_CARDS + 1)] for n in range(NUM_CARDS + 1)], dtype=np.int64)
_MOST_NEEDED = 8  # a seat needs at most its 8 cards (R2.3)


@njit
def _next_word(mt: np.ndarray, at: np.ndarray) -> int:
    """CPython's ``genrand_uint32``: the next 32-bit word of the generator (state ``mt``, its
    position ``at[0]``), twisting the state when it is used up."""
    if at[0] >= _N:
        for kk in range(_N):
            y = (mt[kk] & 0x80000000) | (mt[(kk + 1) % _N] & 0x7FFFFFFF)
            mt[kk] = mt[(kk + _M) % _N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        at[0] = 0
    y = mt[at[0]]
    at[0] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return int(y)


@njit
def _bits(mt: np.ndarray, at: np.ndarray, k: int) -> int:
    """``getrandbits(k)`` (0 < k < 63): 32-bit words from the least significant, the last cut."""
    if k <= 32:
        return _next_word(mt, at) >> (32 - k)
    out = 0
    shift = 0
    while k > 0:
        w = _next_word(mt, at)
        if k < 32:
            w >>= 32 - k
        out |= w << shift
        shift += 32
        k -= 32
    return out


@njit
def _below(mt: np.ndarray, at: np.ndarray, n: int) -> int:
    """``randrange(n)`` (``_randbelow_with_getrandbits``): bits of n's length until one is below n."""
    k = 0
    while n >> k:
        k += 1
    r = _bits(mt, at, k)
    while r >= n:
        r = _bits(mt, at, k)
    return r


@njit
def _draw(mt: np.ndarray, at: np.ndarray, deals: tuple[Any, ...], out: np.ndarray) -> None:
    """``WorldSampler._sample_once`` into ``out`` (four holdings): the classes from the last,
    each split drawn as the first whose running count of deals exceeds a uniform draw (the
    splits in ``_split_table``'s order), its cards shuffled as ``random.shuffle`` does.
    ``deals``: the fixed holdings, the other seats, the first two's needs, and the classes'
    cards, sizes, seat keys and deal counts (``sample_worlds``)."""
    base, others, need0, need1, class_cards, class_size, class_key, ways = deals
    out[:] = base
    a0, a1 = need0, need1
    shuffled = np.empty(class_cards.shape[1], dtype=np.int64)
    for k in range(class_size.shape[0], 0, -1):
        n = class_size[k - 1]
        r = _below(mt, at, ways[k, a0, a1])
        total = 0
        x0, x1 = -1, -1
        for y0 in range(n + 1 if class_key[k - 1, 0] else 1):
            if y0 > a0 or x0 >= 0:
                break
            for y1 in range(n - y0 + 1 if class_key[k - 1, 1] else 1):
                if y1 > a1:
                    break
                if n - y0 - y1 and not class_key[k - 1, 2]:
                    continue
                w = ways[k - 1, a0 - y0, a1 - y1]
                if not w:
                    continue
                total += w * _BINOMIAL[n, y0] * _BINOMIAL[n - y0, y1]
                if total > r:
                    x0, x1 = y0, y1
                    break
        shuffled[:n] = class_cards[k - 1, :n]
        for i in range(n - 1, 0, -1):
            j = _below(mt, at, i + 1)
            shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
        for i in range(n):
            seat = others[0] if i < x0 else others[1] if i < x0 + x1 else others[2]
            out[seat] |= 1 << shuffled[i]
        a0 -= x0
        a1 -= x1


@njit
def _agree(hands: np.ndarray, project_seats: np.ndarray, targets: np.ndarray, hokum: bool, aces_hundred: bool) -> bool:
    """``WorldSampler.projects_agree``: each public-project seat's 8 cards declare exactly the
    projects the view shows (their kinds in order and their cards, ``targets`` rows)."""
    for i in range(project_seats.shape[0]):
        s = project_seats[i]
        kind0, kind1, cards, _key = declare_projects(hands[s] | targets[i, 3], hokum, aces_hundred)
        if kind0 != targets[i, 0] or kind1 != targets[i, 1] or cards != targets[i, 2]:
            return False
    return True


@njit
def _sample(
    mt: np.ndarray,
    at: np.ndarray,
    deals: tuple[Any, ...],
    project_seats: np.ndarray,
    targets: np.ndarray,
    hokum: bool,
    aces_hundred: bool,
    max_tries: int,
    worlds: np.ndarray,
    counters: np.ndarray,
) -> None:
    """``WorldSampler.sample`` for every row of ``worlds``; ``counters``: tries, fallbacks."""
    for w in range(worlds.shape[0]):
        hands = worlds[w]
        _draw(mt, at, deals, hands)
        if project_seats.shape[0] == 0:
            continue
        accepted = False
        for _ in range(max_tries):
            counters[0] += 1
            if _agree(hands, project_seats, targets, hokum, aces_hundred):
                accepted = True
                break
            _draw(mt, at, deals, hands)
        if not accepted:
            counters[1] += 1


def sample_worlds(sampler: WorldSampler, rng: random.Random, count: int) -> np.ndarray:
    """``count`` worlds (count x 4 holdings), equal to ``[sampler.sample(rng) for _ in
    range(count)]`` and leaving ``rng`` and ``sampler.tries`` / ``fallbacks`` as that would."""
    view = sampler.view
    k = len(sampler.classes)
    class_cards = np.zeros((k, NUM_CARDS), dtype=np.int64)
    class_size = np.zeros(k, dtype=np.int64)
    class_key = np.zeros((k, 3), dtype=np.bool_)
    for i, (key, cards) in enumerate(sampler.classes):
        class_cards[i, : len(cards)] = cards
        class_size[i] = len(cards)
        class_key[i] = key
    ways = np.zeros((k + 1, _MOST_NEEDED + 1, _MOST_NEEDED + 1), dtype=np.int64)
    for i, table in enumerate(sampler.ways):
        for (a0, a1), w in table.items():
            ways[i, a0, a1] = w
    base = np.array(sampler.fixed, dtype=np.int64)
    base[sampler.seat] = view.hand
    seats = sampler.project_seats
    targets = np.zeros((len(seats), 4), dtype=np.int64)
    for i, s in enumerate(seats):
        shown = view.projects[s]
        kinds = [KINDS.index(p.kind) for p in shown] + [-1, -1]
        targets[i] = (kinds[0], kinds[1], sum(1 << c for p in shown for c in p.cards), view.played_by[s])
    version, state, gauss = rng.getstate()
    if version != _MT_STATE_VERSION or len(state) != _N + 1:
        raise ValueError(f"sample_worlds needs CPython's Mersenne Twister state, got version {version}")
    mt = np.array(state[:_N], dtype=np.int64)
    at = np.array([state[_N]], dtype=np.int64)
    worlds = np.zeros((count, NUM_SEATS), dtype=np.int64)
    counters = np.array([sampler.tries, sampler.fallbacks], dtype=np.int64)
    others = sampler.others
    deals = (base, np.array(others, dtype=np.int64), sampler.need[others[0]], sampler.need[others[1]])
    _sample(
        mt,
        at,
        (*deals, class_cards, class_size, class_key, ways),
        np.array(seats, dtype=np.int64),
        targets,
        view.contract == HOKUM,
        sampler.four_aces == "hundred",
        sampler.max_tries,
        worlds,
        counters,
    )
    rng.setstate((version, (*(int(x) for x in mt), int(at[0])), gauss))
    sampler.tries, sampler.fallbacks = int(counters[0]), int(counters[1])
    return worlds
