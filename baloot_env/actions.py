"""The action table (R9): one Discrete(42) space for every decision."""

from __future__ import annotations

ACTION_VERSION = 1
NUM_ACTIONS = 42
PASS = 32  # R9: bidding and doubling
HOKUM_ACTIONS = (33, 34, 35, 36)  # hokum with trump S, H, D, C
HOKUM_BASE = 33
SUN_ACTION = 37
DOUBLE, THREE, FOUR, GAHWA_ACTION = 38, 39, 40, 41
RAISE_ACTIONS = (DOUBLE, THREE, FOUR, GAHWA_ACTION)
CARD_ACTIONS = range(32)
BID_ACTIONS = range(32, 42)  # everything the bidding head drives: bids and doubling calls

_NAMES = {PASS: "pass", SUN_ACTION: "sun", DOUBLE: "double", THREE: "three", FOUR: "four", GAHWA_ACTION: "gahwa"}
for _s, _a in zip("SHDC", HOKUM_ACTIONS, strict=True):
    _NAMES[_a] = f"hokum_{_s}"


def action_name(action: int) -> str:
    """Readable name: a card name, ``pass``, ``hokum_H``, ``sun``, ``double`` ... (R9)."""
    from baloot_env.cards import card_name

    if 0 <= action < 32:
        return card_name(action)
    if action in _NAMES:
        return _NAMES[action]
    raise ValueError(f"action {action!r} is not in 0..41 (R9)")


def action_table() -> list[tuple[str, str, str]]:
    """(ids, action, phase) rows of R9, for the README table."""
    return [
        ("0-31", "play the card with that id (8 * suit + rank)", "play"),
        ("32", "pass", "bidding, doubling"),
        ("33-36", "hokum with trump S, H, D, C", "bidding"),
        ("37", "sun", "bidding"),
        ("38, 39, 40, 41", "double, three, four, gahwa", "doubling"),
    ]
