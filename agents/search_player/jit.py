"""The cache guard of the search player's kernels (``batch_calls``, ``batch_endgame``, ``batch_search``,
and the leaves' kernels in ``critic_leaves`` and ``policy_leaves``).

numba keys a cached kernel on its own source file only; these kernels also freeze in the
batched core's kernels and tables and the heuristic kernels (``agents.rule_based.batch_heuristic``).
As ``baloot_env.batch.jit`` does for its package: hash all of that (the heuristic's digest covers
the core's), and drop this package's kernel cache files when the hash changes. Import this
module before any kernel of the package is defined.
"""

from __future__ import annotations

from pathlib import Path

from agents.rule_based.batch_heuristic import jit as _heuristic_jit
from baloot_env.batch import jit as _batch_jit

_PACKAGE = Path(__file__).resolve().parent
_CACHE = _PACKAGE / "__pycache__"
# the modules of this package that hold kernels (the leaves' too: theirs call the search's)
KERNEL_MODULES = ("batch_calls", "batch_endgame", "batch_search", "critic_leaves", "policy_leaves")
_STAMP = "search_player_kernels.sha256"


def _sources_digest() -> str:
    files = [_PACKAGE / f"{name}.py" for name in KERNEL_MODULES]
    # upstream: the heuristic's kernels, which cover the core's, their tables and constants
    return _batch_jit.sources_digest(files, (), upstream=_heuristic_jit._sources_digest())


def _clear_stale_cache() -> None:
    _batch_jit.clear_stale_cache(_CACHE, _STAMP, _sources_digest(), KERNEL_MODULES)


_clear_stale_cache()

njit = _heuristic_jit.njit  # numba.njit(cache=True), the core's
