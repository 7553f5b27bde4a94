"""Exceptions raised by the engine: each message says what is wrong and what is allowed."""

from __future__ import annotations


class BalootError(ValueError):
    """Base class of every error about bad input to the engine."""


class IllegalActionError(BalootError):
    """An action that the rules do not allow now (R9: the mask is exact)."""


class DealError(BalootError):
    """A malformed deal (R2.4)."""


class RuleConfigError(BalootError):
    """A RuleConfig with an unknown or out-of-range setting."""


class StateError(BalootError):
    """A saved state that cannot be restored (corrupt, wrong version, inconsistent)."""
