"""The one ``njit`` every kernel of the batched core uses: nopython, cached on disk.

numba keys a cached function on its own source file only, so a kernel that calls a function of
another module (every kernel here does) or reads a constant or table taken from the engine
would load stale machine code after an edit elsewhere. Before any kernel is defined, this
module hashes what the kernels are built from: this package's kernel sources, the tables
(``tables``, computed by the engine's own functions), the engine's module-level constants they
import, and the numba version; it clears the package's cache files when the hash changes.
Edits to the engine that change none of these (most of them) keep the cache.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np

_PACKAGE = Path(__file__).resolve().parent
# Engine modules whose constants the kernels freeze in at compile time.
_ENGINE_MODULES = ("actions", "cards", "hand", "observation", "projects", "rewards", "rules", "scoring")
# Modules of this package that hold no kernel and no constant a kernel reads.
_PYTHON_ONLY = ("__init__.py", "differential.py", "game.py", "variants.py")
_STAMP = "baloot_batch_sources.sha256"
_CONSTANT_TYPES = (bool, int, float, str, tuple, dict)


def sources_digest(
    files: Iterable[Path], constants: Iterable[ModuleType], tables: ModuleType | None = None, upstream: str = ""
) -> str:
    """The hash of what a package's kernels are built from (the one digest of every cache guard).

    Args:
        files: the kernels' source files.
        constants: modules whose module-level constants the kernels freeze in.
        tables: a module whose numpy arrays the kernels read (``baloot_env.batch.tables``).
        upstream: the digest of the kernels these call (another package's ``sources_digest``).
    """
    h = hashlib.sha256(numba.__version__.encode() + upstream.encode())
    for path in files:
        h.update(path.name.encode() + path.read_bytes())
    for name in sorted(vars(tables)) if tables is not None else ():
        value = getattr(tables, name)
        if isinstance(value, np.ndarray):
            h.update(name.encode() + value.tobytes())
    for module in constants:
        for name, value in sorted(vars(module).items()):
            if name.startswith("__") or not isinstance(value, _CONSTANT_TYPES):
                continue  # __builtins__ and the like, functions and classes are not constants
            text = repr(value)
            if " at 0x" not in text:  # an object's address would change the hash in every process
                h.update(f"{module.__name__}.{name}={text}".encode())
    return h.hexdigest()


def _sources_digest() -> str:
    from baloot_env.batch import tables  # no kernels there: safe to import before any is defined

    files = [p for p in sorted(_PACKAGE.glob("*.py")) if p.name not in _PYTHON_ONLY]
    engine = [importlib.import_module(f"baloot_env.{name}") for name in _ENGINE_MODULES]
    return sources_digest(files, engine, tables)


def clear_stale_cache(cache: Path, stamp_name: str, digest: str, stems: Iterable[str] | None = None) -> None:
    """Remove numba cache files under ``cache`` if ``digest`` differs from the stamp there.

    The one cache guard of the project's kernels: this package's, and those of the packages
    built on it (``agents.rule_based.batch_heuristic``, ``agents.search_player.jit``), each with
    its own digest and stamp file. ``stems`` names the modules whose cache files go
    (``{stem}.*.nbi``, ``{stem}.*.nbc``); ``None`` clears every one in ``cache``.
    """
    stamp = cache / stamp_name
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    patterns = ["*.nbi", "*.nbc"] if stems is None else [f"{s}.*.{ext}" for s in stems for ext in ("nbi", "nbc")]
    try:
        cache.mkdir(exist_ok=True)
        for pattern in patterns:
            for path in list(cache.glob(pattern)):
                path.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only install: numba then caches under the user's cache directory


def _clear_stale_cache() -> None:
    """Remove this package's numba cache files if any source they were built from changed."""
    clear_stale_cache(_PACKAGE / "__pycache__", _STAMP, _sources_digest())


_clear_stale_cache()


def njit(func: Callable[..., Any]) -> Callable[..., Any]:
    """``numba.njit(cache=True)``: compiled on first use, then loaded from disk."""
    return numba.njit(cache=True)(func)
