"""The README's tables are generated from the code (STYLE: one source of truth per table)."""

from pathlib import Path

from baloot_env.observation import OBS_SIZE, PIECES, piece_slice
from baloot_env.spec import render_readme

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_tables_match_code():
    text = README.read_text()
    assert render_readme(text) == text, "README tables drifted: run `python -m baloot_env.spec`"


def test_observation_table_lists_every_piece():
    text = README.read_text()
    for p in PIECES:
        s = piece_slice(p.name)
        assert f"| `{p.name}` | {s.start}:{s.stop} | {p.size} |" in text
    assert f"{OBS_SIZE} floats" in text
