"""Moved to ``baloot_io.atomic`` (file I/O is not part of the rules engine); this name stays
importable for code written against it. New code imports ``baloot_io``."""

from baloot_io.atomic import (  # noqa: F401 (re-exported)
    TEMP_SUFFIX,
    _create_temp,
    _pid_alive,
    remove_stale_temps,
    write_bytes_atomic,
    write_json_atomic,
    write_text_atomic,
)
