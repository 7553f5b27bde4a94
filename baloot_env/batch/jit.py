"""The one ``njit`` every kernel of the batched core uses: nopython, cached on disk.

numba keys a cached function on its own source file only, so a kernel that calls a function of
another module (every kernel here does) or reads a table derived from the engine would load
stale machine code after an edit elsewhere. Before any kernel is defined, this module hashes
the sources the kernels are built from (this package and the engine modules its tables come
from) with the numba version, and clears the package's cache files when the hash has changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba

_PACKAGE = Path(__file__).resolve().parent
_ENGINE = _PACKAGE.parent
# Engine modules whose tables and constants the kernels freeze in at compile time.
_ENGINE_SOURCES = (
    "actions.py",
    "cards.py",
    "hand.py",
    "match.py",
    "observation.py",
    "projects.py",
    "rewards.py",
    "rules.py",
    "scoring.py",
)
_STAMP = "baloot_batch_sources.sha256"


def _sources_digest() -> str:
    h = hashlib.sha256(numba.__version__.encode())
    paths = sorted(_PACKAGE.glob("*.py")) + [_ENGINE / name for name in _ENGINE_SOURCES]
    for path in paths:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _clear_stale_cache() -> None:
    """Remove this package's numba cache files if any source they were built from changed."""
    cache = _PACKAGE / "__pycache__"
    stamp = cache / _STAMP
    digest = _sources_digest()
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for path in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            path.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only install: numba then caches under the user's cache directory


_clear_stale_cache()


def njit(func: Callable[..., Any]) -> Callable[..., Any]:
    """``numba.njit(cache=True)``: compiled on first use, then loaded from disk."""
    return numba.njit(cache=True)(func)
