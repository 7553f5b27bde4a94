"""The one cache guard of every kernel package (``baloot_env.batch.jit``): the digest follows what
the kernels are built from, and stale cache files go when it changes."""

from __future__ import annotations

import types

import numpy as np

from baloot_env.batch.jit import clear_stale_cache, sources_digest


def test_the_digest_follows_sources_constants_tables_and_upstream(tmp_path):
    src = tmp_path / "kernels.py"
    src.write_text("x = 1\n")
    consts = types.ModuleType("consts")
    consts.LIMIT = 5
    consts.helper = lambda: 0  # not a constant: not hashed
    tables = types.ModuleType("tables")
    tables.T = np.arange(4)
    base = sources_digest([src], [consts], tables, upstream="u")
    assert base == sources_digest([src], [consts], tables, upstream="u")  # stable
    src.write_text("x = 2\n")
    assert sources_digest([src], [consts], tables, upstream="u") != base
    src.write_text("x = 1\n")
    consts.LIMIT = 6
    assert sources_digest([src], [consts], tables, upstream="u") != base
    consts.LIMIT = 5
    tables.T = np.arange(5)
    assert sources_digest([src], [consts], tables, upstream="u") != base
    tables.T = np.arange(4)
    assert sources_digest([src], [consts], tables, upstream="v") != base
    consts.helper = lambda: 1
    assert sources_digest([src], [consts], tables, upstream="u") == base


def test_stale_cache_files_of_the_named_modules_go_when_the_digest_changes(tmp_path):
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    mine, other = cache / "play.f-1.py311.nbi", cache / "other.f-1.py311.nbc"
    for p in (mine, other):
        p.write_text("x")
    clear_stale_cache(cache, "stamp", "d1", ["play"])
    assert not mine.exists() and other.exists() and (cache / "stamp").read_text() == "d1"
    mine.write_text("x")
    clear_stale_cache(cache, "stamp", "d1", ["play"])  # the same digest: kept
    assert mine.exists()
    clear_stale_cache(cache, "stamp", "d2", None)  # every cache file
    assert not mine.exists() and not other.exists()
