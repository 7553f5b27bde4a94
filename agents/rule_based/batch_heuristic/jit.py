"""The cache guard of the heuristic's kernels (this package); import it before any kernel is defined.

numba keys a cached kernel on its own source file alone; these kernels also freeze in each
other (across this package's modules), the batched core's kernels and tables and the
heuristic's constants. As ``baloot_env.batch.jit`` does for its package: hash all of that, and
drop this package's kernel cache files when the hash changes.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from agents.rule_based import card_play as _card_play
from agents.rule_based import heuristic as _heuristic
from baloot_env.batch import jit as _batch_jit

_PACKAGE = Path(__file__).resolve().parent
_CACHE = _PACKAGE / "__pycache__"
KERNEL_MODULES = ("batched", "bidding", "play")  # the modules of this package that hold kernels
_STAMP = "batch_heuristic_sources.sha256"


def _sources_digest() -> str:
    constants = (_heuristic, _card_play, importlib.import_module("baloot_env.seats"))
    # upstream: the core's kernels, tables and engine constants
    return _batch_jit.sources_digest(sorted(_PACKAGE.glob("*.py")), constants, upstream=_batch_jit._sources_digest())


def _clear_stale_cache() -> None:
    _batch_jit.clear_stale_cache(_CACHE, _STAMP, _sources_digest(), KERNEL_MODULES)


_clear_stale_cache()

njit = _batch_jit.njit  # numba.njit(cache=True)
