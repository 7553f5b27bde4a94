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
