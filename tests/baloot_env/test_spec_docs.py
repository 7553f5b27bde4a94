"""The environment page's tables are generated from the code (STYLE: one source of truth per table)."""

from pathlib import Path

from baloot_env.observation import OBS_SIZE, PIECES, piece_slice
from baloot_env.spec import render_readme

README = Path(__file__).resolve().parents[2] / "docs" / "environment.md"  # the page with the tables


def test_readme_tables_match_code():
    text = README.read_text()
    assert render_readme(text) == text, "the tables drifted: run `python -m baloot_env.spec`"


def test_observation_table_lists_every_piece():
    text = README.read_text()
    for p in PIECES:
        s = piece_slice(p.name)
        assert f"| `{p.name}` | {s.start}:{s.stop} | {p.size} |" in text
    assert f"{OBS_SIZE} floats" in text


def test_the_command_rewrites_only_a_stale_readme(tmp_path, capsys):
    from baloot_env.spec import main

    readme = tmp_path / "README.md"
    readme.write_text(README.read_text())
    before = readme.stat().st_mtime_ns
    assert main([str(readme)]) == 0
    assert "up to date" in capsys.readouterr().out and readme.stat().st_mtime_ns == before
    stale = README.read_text().replace(
        "<!-- BEGIN GENERATED: actions -->\n", "<!-- BEGIN GENERATED: actions -->\nold\n", 1
    )
    assert stale != README.read_text()
    readme.write_text(stale)
    assert main([str(readme)]) == 0
    assert "updated" in capsys.readouterr().out and readme.read_text() == README.read_text()


def test_the_command_refuses_what_is_not_a_readme_in_one_line(tmp_path, capsys):
    import os

    import pytest

    from baloot_env.spec import main

    with pytest.raises(SystemExit) as e:  # --help is a flag, not a file to read
        main(["--help"])
    assert e.value.code == 0 and "usage: python -m baloot_env.spec" in capsys.readouterr().out
    other = tmp_path / "notes.md"
    other.write_text("no generated sections here\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, says in [
        (other, "no generated section"),
        (tmp_path, "is not a file"),
        (fifo, "is not a file"),
        (tmp_path / "missing.md", "is not a file"),
    ]:
        assert main([str(path)]) == 2, path
        err = capsys.readouterr().err
        assert err.startswith("error: ") and says in err and err.count("\n") == 1, err
    assert other.read_text() == "no generated sections here\n"
