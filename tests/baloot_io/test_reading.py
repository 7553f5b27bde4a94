"""Reading user-named files (``baloot_io.reading``): a FIFO, a device, a folder or a file over
its cap is refused before anything is read, and every command that reads such a path gives one
line and exit code 2 for it instead of hanging or filling the memory. Each case runs under an
alarm, so a reader that blocks fails the test instead of hanging the suite."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager

import pytest

from baloot_io.reading import InputFileError, read_bytes_checked, read_text_checked


@contextmanager
def _deadline(seconds: int):
    def fail(*_):
        raise AssertionError(f"still reading after {seconds} s: the path blocked")

    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


def test_regular_files_are_read_and_everything_else_refused(tmp_path, fifo):
    good = tmp_path / "a.json"
    good.write_text('{"x": 1}', encoding="utf-8")
    assert read_text_checked(good, "config file") == '{"x": 1}'
    assert read_bytes_checked(good, "config file", limit=8) == b'{"x": 1}'
    with _deadline(10):
        for path, words in (
            (fifo, "not a regular file"),
            ("/dev/zero", "not a regular file"),
            (tmp_path, "is a folder"),
            (tmp_path / "none", "does not exist"),
        ):
            with pytest.raises(InputFileError, match=words):
                read_text_checked(path, "config file")
    with pytest.raises(InputFileError, match="over the 7 a config file may have"):
        read_bytes_checked(good, "config file", limit=7)
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9")
    with pytest.raises(InputFileError, match="not UTF-8"):
        read_text_checked(tmp_path / "latin.txt", "config file")


def _one_line_exit_2(main, argv, capsys, words):
    with _deadline(60):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and words in err[0], (code, err)


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_every_command_refuses_a_special_file_in_one_line(special, fifo, tmp_path, capsys):
    from eval.__main__ import main as eval_main
    from eval.record import main as record_main
    from train.__main__ import main as train_main

    path = str(fifo) if special == "fifo" else special
    small = ["--deal-set", "small", "--deals", "4", "--quiet"]
    _one_line_exit_2(eval_main, ["--a", path, "--b", "random", *small], capsys, "not a regular file")
    _one_line_exit_2(
        eval_main, ["--a", "heuristic", "--b", "random", "--deal-set", path, "--quiet"], capsys, "not a regular file"
    )
    _one_line_exit_2(
        eval_main, ["promote", "--candidate", "heuristic", "--champion", path, *small], capsys, "not a regular file"
    )
    _one_line_exit_2(train_main, ["--config", path], capsys, "not a regular file")
    _one_line_exit_2(record_main, ["--bundle", "policies/champion", path], capsys, "not a regular file")


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_a_database_path_must_be_a_regular_sqlite_file(special, fifo, tmp_path, capsys):
    from eval.__main__ import main as eval_main
    from table.__main__ import main as table_main

    path = str(fifo) if special == "fifo" else special
    small = ["--a", "heuristic", "--b", "random", "--deal-set", "small", "--deals", "4", "--quiet"]
    _one_line_exit_2(eval_main, [*small, "--save-hands", path], capsys, "not a regular file")
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    _one_line_exit_2(eval_main, [*small, "--save-hands", str(text)], capsys, "not a SQLite database")
    with _deadline(30):
        code = table_main(["--db", path, "--port", "8765"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "not a regular file" in err[0], (code, err)


DEEP, LONG = "[" * 50_000 + "]" * 50_000, "9" * 5_000


@pytest.mark.parametrize(
    "value, words", [(DEEP, "nested too deeply"), (LONG, "a number too long")], ids=["deep", "long"]
)
def test_too_deep_or_too_long_values_are_one_line(value, words, tmp_path, capsys):
    from eval.__main__ import main as eval_main
    from eval.record import main as record_main
    from train.__main__ import main as train_main

    (tmp_path / "c.yaml").write_text(f"seed: {value}\n")
    (tmp_path / "a.json").write_text(f'{{"agent": "search", "params": {{"worlds": {value}}}}}')
    (tmp_path / "d.json").write_text(f'{{"format": "x", "deals": {value}}}')
    (tmp_path / "r.json").write_text(f'{{"format": {value}}}')
    small = ["--deal-set", "small", "--deals", "4", "--quiet"]
    _one_line_exit_2(train_main, ["--config", str(tmp_path / "c.yaml")], capsys, words)
    _one_line_exit_2(eval_main, ["--a", str(tmp_path / "a.json"), "--b", "random", *small], capsys, words)
    _one_line_exit_2(
        eval_main, ["--a", "heuristic", "--b", "random", "--deal-set", str(tmp_path / "d.json")], capsys, words
    )
    _one_line_exit_2(eval_main, ["promote", "--config", str(tmp_path / "c.yaml")], capsys, words)
    _one_line_exit_2(record_main, ["--bundle", "policies/champion", str(tmp_path / "r.json")], capsys, words)
