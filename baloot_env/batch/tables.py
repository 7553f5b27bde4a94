"""Tables the kernels read, built once at import from the engine's own definitions (R1, R6).

Nothing here restates a rule: each table is computed from ``baloot_env.cards`` or
``baloot_env.projects``, so the engine stays the single source of truth. The arrays are int64
so that kernel arithmetic never mixes signedness (numba would widen to float).
"""

from __future__ import annotations

import numpy as np

from baloot_env.cards import (
    HIGHER_TRUMP as _HIGHER_TRUMP,
)
from baloot_env.cards import (
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    PLAIN_STRENGTH,
    SUIT_MASKS,
    TRUMP_STRENGTH,
    card_points,
)
from baloot_env.projects import (
    FIFTY,
    FOUR_HUNDRED,
    HUNDRED,
    PROJECT_VALUES,
    QUAD_RANKS,
    SIRA,
    Project,
    declare_projects,
)

# R1.3 trick strength by rank, plain and trump.
PLAIN_RANK_STRENGTH = np.array(PLAIN_STRENGTH, dtype=np.int64)
TRUMP_RANK_STRENGTH = np.array(TRUMP_STRENGTH, dtype=np.int64)
# HIGHER_TRUMP[c]: the trumps that beat trump c (R1.3, R5.2, R5.4).
HIGHER_TRUMP = np.array(_HIGHER_TRUMP, dtype=np.int64)
SUIT_MASK = np.array(SUIT_MASKS, dtype=np.int64)
# CARD_POINTS[t, c]: R1.4 points of card c when t is the trump suit; row NUM_SUITS is Sun.
CARD_POINTS = np.array([[card_points(c, t) for c in range(NUM_CARDS)] for t in (*range(NUM_SUITS), -1)], dtype=np.int64)

# Project kinds, indexed in the order of the observation's ``project_kinds`` piece.
KINDS = (SIRA, FIFTY, HUNDRED, FOUR_HUNDRED)
KIND_SIRA, KIND_FIFTY, KIND_HUNDRED, KIND_FOUR_HUNDRED = range(len(KINDS))
# KIND_VALUE[kind, 0 Hokum / 1 Sun]: game points (R6.1).
KIND_VALUE = np.array([PROJECT_VALUES[k] for k in KINDS], dtype=np.int64)
# KIND_CATEGORY[kind]: the first element of the engine's R6.3 comparison key.
KIND_CATEGORY = np.array([Project(k, True, 0, ()).key()[0] for k in KINDS], dtype=np.int64)
QUAD_RANK = np.array(QUAD_RANKS, dtype=np.int64)
# Four cards of one rank, one bit per suit, for each rank (R6.1).
RANK_MASK = np.array([sum(1 << (8 * s + r) for s in range(NUM_SUITS)) for r in range(NUM_RANKS)], dtype=np.int64)


def _run_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per suit byte (bit r = rank r held): its runs as the engine declares them (R6.1, R1.5).

    A single suit cannot hold a four-of-a-kind, so ``declare_projects`` of a suit-0 byte is
    exactly the list of its maximal runs, in the engine's order.
    """
    count = np.zeros(256, dtype=np.int64)
    kind = np.full((256, 2), -1, dtype=np.int64)
    bits = np.zeros((256, 2), dtype=np.int64)
    for b in range(256):
        runs = declare_projects(b, True)
        if len(runs) > 2:
            raise RuntimeError("a suit byte holds at most two runs of three")
        count[b] = len(runs)
        for i, p in enumerate(runs):
            kind[b, i] = KINDS.index(p.kind)
            bits[b, i] = sum(1 << c for c in p.cards)
    return count, kind, bits


# RUN_COUNT[b], RUN_KIND[b, i], RUN_BITS[b, i]: the runs of suit byte b (bits within the byte).
RUN_COUNT, RUN_KIND, RUN_BITS = _run_tables()
# RUN_TOP[b, i]: rank of the run's top card (R6.3 key), from its bits.
RUN_TOP = np.array([[int(x).bit_length() - 1 for x in row] for row in RUN_BITS], dtype=np.int64)

# Index of the lowest set bit of a 32-bit power of two (de Bruijn multiplication).
DEBRUIJN_MUL = 0x077CB531
DEBRUIJN_INDEX = np.zeros(32, dtype=np.int64)
for _i in range(32):
    DEBRUIJN_INDEX[((1 << _i) * DEBRUIJN_MUL & 0xFFFFFFFF) >> 27] = _i
