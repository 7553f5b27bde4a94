"""Exceptions raised by the engine: each message says what is wrong and what is allowed."""

from __future__ import annotations


class BalootError(ValueError):
    """Base class of every error about bad input to the engine."""


class IllegalActionError(BalootError):
    """An action that the rules do not allow now (R9: the mask is exact)."""


class DealError(BalootError):
    """A malformed deal (R2.4)."""


class ConfigError(BalootError):
    """A config (the rules, an agent's params) with an unknown key or a bad value; the one error
    of every config built from a mapping (``baloot_env.config.from_mapping``)."""


class StateError(BalootError):
    """A saved state that cannot be restored (corrupt, wrong version, inconsistent)."""


SHOWN_CHARS = 80  # the most of a bad value an error message quotes


def shown(value: object) -> str:
    """``repr(value)`` for an error message, safe for anything a caller may pass: an integer too
    long for Python to print (over 4,300 digits) is named by its size, and a long repr is cut."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"<an integer of {value.bit_length():,} bits>"
    try:
        text = repr(value)
    except Exception:  # a repr that fails is still a bad value to name
        return f"<a {type(value).__name__}>"
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."
