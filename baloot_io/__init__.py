"""baloot_io: file utilities shared by the layers that write files (agents' policy bundles,
evaluation's deal sets and reports, training's checkpoints and run folders).

Standard library only. Not part of the rules engine: ``baloot_env`` writes no files.
"""

from baloot_io.atomic import TEMP_SUFFIX, remove_stale_temps, write_bytes_atomic, write_json_atomic, write_text_atomic

__all__ = ["TEMP_SUFFIX", "remove_stale_temps", "write_bytes_atomic", "write_json_atomic", "write_text_atomic"]
