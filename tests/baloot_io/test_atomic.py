"""Atomic writes: normal permissions, and no temporary file outlives a killed writer."""

from __future__ import annotations

import os
import stat

import pytest
from shared import killed_writer_temp

from baloot_io.atomic import TEMP_SUFFIX, remove_stale_temps, write_bytes_atomic, write_json_atomic


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_written_files_get_the_mode_of_any_new_file(tmp_path, umask022):
    write_json_atomic(tmp_path / "report.json", {"a": 1})
    write_bytes_atomic(tmp_path / "sub" / "weights.bin", b"\0" * 10)
    for p in (tmp_path / "report.json", tmp_path / "sub" / "weights.bin"):
        assert stat.S_IMODE(p.stat().st_mode) == 0o644, oct(p.stat().st_mode)
    os.umask(0o077)
    write_json_atomic(tmp_path / "private.json", {})
    assert stat.S_IMODE((tmp_path / "private.json").stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)] == []


def test_a_killed_writers_temporary_file_is_removed(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    killed_writer_temp(tmp_path / "checkpoints")
    (tmp_path / ".old.json.ab_cd12z.tmp").write_text("x")  # mkstemp's name in earlier versions
    mine = tmp_path / f".live.json.0123abcd.{os.getpid()}{TEMP_SUFFIX}"  # a writer still running
    mine.write_text("x")
    keep = tmp_path / "notes.tmp"
    keep.write_text("x")
    removed = remove_stale_temps(tmp_path)
    assert len(removed) == 2
    assert list((tmp_path / "checkpoints").iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["checkpoints", mine.name, "notes.tmp"])
