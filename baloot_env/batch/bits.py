"""Bit-mask helpers for card sets (32-bit, R1.2) and action sets (42-bit, R9), as int64."""

from __future__ import annotations

from baloot_env.batch.jit import njit
from baloot_env.batch.tables import DEBRUIJN_INDEX, DEBRUIJN_MUL


@njit
def lowest_index(m: int) -> int:
    """Index of the lowest set bit of a non-zero mask below 2**32."""
    low = m & -m
    return DEBRUIJN_INDEX[((low * DEBRUIJN_MUL) & 0xFFFFFFFF) >> 27]


@njit
def bit_index(m: int) -> int:
    """Index of the lowest set bit of a non-zero mask below 2**64 (action masks)."""
    low = m & -m
    if low >> 32:
        return 32 + lowest_index(low >> 32)
    return lowest_index(low)


@njit
def popcount(m: int) -> int:
    """Number of set bits of a non-negative mask below 2**63."""
    m = m - ((m >> 1) & 0x5555555555555555)
    m = (m & 0x3333333333333333) + ((m >> 2) & 0x3333333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((m * 0x0101010101010101) & 0x7FFFFFFFFFFFFFFF) >> 56


@njit
def nth_set_bit(m: int, k: int) -> int:
    """Index of the ``k``-th set bit of ``m`` (0-based, from the lowest)."""
    for _ in range(k):
        m &= m - 1
    return bit_index(m)
