"""The action table (R9): one Discrete(NUM_ACTIONS) space for every decision.

The ids are laid out once, here, from the card count and the calls: the cards first (an action
``a < NUM_CARDS`` plays card ``a``, R1.2), then pass, the four hokum calls (one per trump suit,
in suit order), sun, and the four raises of R4.1 (double, three, four, gahwa). Every name, the
documentation's action table (``action_table``, docs/environment.md) and the network's head sizes are derived from these constants.
"""

from __future__ import annotations

from baloot_env.cards import NUM_CARDS, NUM_SUITS, SUIT_NAMES, card_name, parse_card

ACTION_VERSION = 1
NUM_CARD_ACTIONS = NUM_CARDS  # R9: actions 0-31 play the card with that id
PASS = NUM_CARD_ACTIONS  # R9: bidding and doubling
HOKUM_BASE = PASS + 1  # hokum with trump suit s is HOKUM_BASE + s
HOKUM_ACTIONS = tuple(HOKUM_BASE + s for s in range(NUM_SUITS))  # hokum with trump S, H, D, C
SUN_ACTION = HOKUM_BASE + NUM_SUITS
DOUBLE, THREE, FOUR, GAHWA_ACTION = range(SUN_ACTION + 1, SUN_ACTION + 5)
RAISE_ACTIONS = (DOUBLE, THREE, FOUR, GAHWA_ACTION)  # R4.1: the raise from level L is RAISE_ACTIONS[L - 1]
NUM_ACTIONS = GAHWA_ACTION + 1
CALL_ACTIONS = range(PASS, NUM_ACTIONS)  # everything the bidding head drives: bids and doubling calls
NUM_CALL_ACTIONS = len(CALL_ACTIONS)

_CALL_NAMES = {
    PASS: "pass",
    **{a: f"hokum_{SUIT_NAMES[s]}" for s, a in enumerate(HOKUM_ACTIONS)},
    SUN_ACTION: "sun",
    **dict(zip(RAISE_ACTIONS, ("double", "three", "four", "gahwa"), strict=True)),
}


def raise_action(level: int) -> int:
    """The raise that takes a hand from ``level`` (1-4) to the next (R4.1: none is skipped)."""
    return RAISE_ACTIONS[level - 1]


def action_name(action: int) -> str:
    """Readable name: a card name, ``pass``, ``hokum_H``, ``sun``, ``double`` ... (R9)."""
    if 0 <= action < NUM_CARD_ACTIONS:
        return card_name(action)
    if action in _CALL_NAMES:
        return _CALL_NAMES[action]
    raise ValueError(f"action {action!r} is not in 0..{NUM_ACTIONS - 1} (R9)")


_ACTION_IDS = {name: a for a, name in _CALL_NAMES.items()}  # a call's name -> its id


def parse_action(name: str) -> int:
    """The action id of ``action_name``'s name: a card (``"TH"``) or a call (``"pass"``,
    ``"hokum_H"``, ``"sun"``, ``"double"``, ...; R9).

    Raises:
        ValueError: not the name of an action.
    """
    if name in _ACTION_IDS:
        return _ACTION_IDS[name]
    if isinstance(name, str) and len(name) == 2:
        try:
            return parse_card(name)
        except ValueError:
            pass
    raise ValueError(f"{name!r} is not an action's name (a card such as 'TH', or {sorted(_ACTION_IDS)})")


def _ids(actions: tuple[int, ...] | range) -> str:
    """``32`` for one id, ``33-36`` for a run of ids."""
    ids = list(actions)
    if len(ids) == 1:
        return str(ids[0])
    return f"{ids[0]}-{ids[-1]}"


def action_table() -> list[tuple[str, str, str]]:
    """(ids, action, phase) rows of R9, for the documentation's table, derived from the constants."""
    raises = ", ".join(str(a) for a in RAISE_ACTIONS)
    return [
        (_ids(range(NUM_CARD_ACTIONS)), "play the card with that id (8 * suit + rank)", "play"),
        (_ids((PASS,)), action_name(PASS), "bidding, doubling"),
        (_ids(HOKUM_ACTIONS), f"hokum with trump {', '.join(SUIT_NAMES)}", "bidding"),
        (_ids((SUN_ACTION,)), action_name(SUN_ACTION), "bidding"),
        (raises, ", ".join(action_name(a) for a in RAISE_ACTIONS), "doubling"),
    ]
