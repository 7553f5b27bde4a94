"""baloot_cli: the command-line kit of every ``python -m`` command (evaluation, training, the table).

It sits on the rules engine (``--rules`` reads a ``RuleConfig``) and below every package with a
command, so that none of them borrows another's.

A bad command line is one line ``error: ...`` and exit code 2 (``OneLineParser``); inputs that
argparse cannot judge (a count against a deal set, a path that cannot be written) are checked
before any work starts and refused with ``InputError``; ``rules_arg`` reads ``--rules``;
``settings_file`` lets a command read its settings from ``--config FILE`` (YAML or JSON), the
flags given beating the file.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_type_hints

import yaml

from baloot_env.errors import ConfigError
from baloot_env.rules import RuleConfig
from baloot_io.reading import InputFileError, check_regular_file, parse_checked, read_text_checked

RULES_HELP = (
    "the rule variants of every hand: KEY=VALUE pairs of RuleConfig (sun_double=true deal_rotation=right), "
    "or one YAML/JSON file holding them or a training config (its env.rules); default RULES.md"
)


CONFIG_HELP = (
    "a YAML or JSON file of this command's settings (keys as the flags, with _ for -; "
    "a section as a mapping); a flag given beats the file"
)


MAX_WORKERS = 64  # processes one command may start (evaluation, labelling, learner processes)


class InputError(ValueError):
    """A command-line input that cannot work (a count out of range, an unwritable path)."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one line, ``error: ...``, and exits with 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def one_line(e: BaseException) -> str:
    """The exception's message on one line (a JSON or YAML error may span several)."""
    return " ".join(str(e).split())


def check_range(flag: str, value: int, low: int, high: int | None = None, note: str = "") -> None:
    """``low <= value (<= high)``, else ``InputError`` naming the flag."""
    if value < low or (high is not None and value > high):
        want = f">= {low}" if high is None else f"between {low} and {high}"
        raise InputError(f"{flag} must be {want}{note}, got {value}")


def memory_bytes() -> int:
    """This machine's physical memory in bytes (what no run can go beyond)."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def memory_need(what: str, count: int, bytes_each: int) -> str | None:
    """Why ``count`` items of ``bytes_each`` bytes cannot be held (more than this machine's
    memory), or None when they fit: the check that a size given in a config or on a command line
    does not fill the memory minutes into a run."""
    need, have = count * bytes_each, memory_bytes()
    if need <= have:
        return None
    return f"{what} would need {need / 2**30:,.1f} GiB, more than this machine's {have / 2**30:,.1f} GiB of memory"


def check_output_path(path: str | os.PathLike[str], flag: str) -> None:
    """A file can be written at ``path`` (atomic writers create missing folders).

    Refused: ``path`` is a folder or something other than a regular file (a device, a FIFO: an
    atomic write would replace it), or the nearest existing folder above it is not a folder (a
    file stands in the way) or cannot take a new file (tried: a folder such as ``/proc`` passes
    the permission bits and still refuses one).
    """
    p = Path(path)
    if str(path).strip() == "" or p.is_dir():
        raise InputError(f"{flag} {str(path)!r} is a folder, not a file path")
    if os.path.lexists(p) and not p.is_file():
        raise InputError(
            f"{flag} {str(path)!r} is not a regular file (a device, a FIFO or a socket); it is left as it is"
        )
    parent = p.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"{flag} {str(path)!r}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):  # the file itself is replaced, so only the folder matters
        raise InputError(f"{flag} {str(path)!r}: the folder {parent} is not writable")
    try:
        with tempfile.TemporaryFile(dir=parent, prefix=".write-check-"):
            pass
    except OSError as e:
        raise InputError(f"{flag} {str(path)!r}: the folder {parent} takes no new file ({e.strerror or e})") from None


def parse_yaml(text: str, what: str) -> Any:
    """``yaml.safe_load`` through ``baloot_io.reading.parse_checked`` (too deep, a number too long:
    ``InputFileError``; bad YAML stays ``yaml.YAMLError``)."""
    return parse_checked(yaml.safe_load, text, what, yaml.YAMLError)


def check_distinct(inputs: dict[str, str | None], outputs: dict[str, str | None]) -> None:
    """No output is the file of an input (``--json`` on the ``--deal-set``) or of another output
    (``--pointer`` on ``--history``); flag -> path, None and agent or deal-set names skipped.
    Inputs may repeat (a bundle against itself)."""
    seen: dict[str, tuple[str, str]] = {}
    for is_output, named in ((False, inputs), (True, outputs)):
        for flag, path in named.items():
            if path is None or (os.sep not in path and not os.path.lexists(path)):
                continue  # a name, not a file
            key = os.path.realpath(path)
            if key in seen and (is_output or seen[key][0] in outputs):
                other, other_path = seen[key]
                raise InputError(f"{flag} {path!r} is the same file as {other} {other_path!r}; give each its own path")
            seen.setdefault(key, (flag, path))


def check_png_path(path: str, flag: str) -> None:
    """A plot is written as PNG: its path ends in ``.png`` (so ``--png report.json`` is not taken)."""
    check_output_path(path, flag)
    if not path.lower().endswith(".png"):
        raise InputError(f"{flag} {path!r}: a plot is a PNG file, its name must end in .png")


def check_database(path: str | os.PathLike[str], flag: str) -> None:
    """``path`` can hold a SQLite database of hands (``baloot_io.hands_db``): a writable place for a
    new file, or an existing regular file that SQLite opens (not a FIFO, a device, another file)."""
    check_output_path(path, flag)
    if not os.path.lexists(path):
        return
    try:
        check_regular_file(path, flag, limit=1 << 62)
    except InputFileError as e:
        raise InputError(str(e)) from None
    try:
        con = sqlite3.connect(f"file:{Path(path).absolute()}?mode=ro", uri=True)
        try:
            con.execute("SELECT name FROM sqlite_master").fetchall()
        finally:
            con.close()
    except sqlite3.DatabaseError as e:
        raise InputError(f"{flag} {str(path)!r} is not a SQLite database ({e})") from None


def check_output_dir(path: str | os.PathLike[str], what: str) -> None:
    """A folder can be created (or used) at ``path``: not a file, and the nearest existing folder
    at or above it is writable (its parent too when it exists: an old run is moved aside)."""
    p = Path(path).absolute()
    if p.exists() and not p.is_dir():
        raise InputError(f"{what} {str(path)!r} is a file, not a folder")
    at = p if p.exists() else p.parent
    while not at.exists():
        at = at.parent
    if not at.is_dir():
        raise InputError(f"{what} {str(path)!r}: {at} is a file, not a folder")
    for folder in {at, p.parent} if p.exists() else {at}:
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(f"{what} {str(path)!r}: the folder {folder} is not writable")


def read_yaml(flag: str, path: str, hint: str = "") -> Any:
    """The data of the YAML (or JSON) file that ``flag`` names, read safely (no file runs code);
    an empty file is ``{}``.

    Raises:
        InputError: no such file (``hint`` added), or it cannot be read or parsed.
    """
    if not os.path.lexists(path):
        raise InputError(f"{flag} {path!r}: no such file{hint}")
    try:
        return parse_yaml(read_text_checked(path, "settings file"), f"settings file {str(path)!r}") or {}
    except (InputFileError, yaml.YAMLError) as e:
        raise InputError(f"{flag} {path!r} cannot be read: {one_line(e)}") from None


def rules_arg(items: list[str] | dict[str, Any] | None) -> RuleConfig:
    """The ``RuleConfig`` that ``--rules`` names (``RULES_HELP``), or a ``rules`` mapping of a
    ``--config`` file; None or no items: RULES.md.

    Raises:
        InputError: a missing or unreadable file, bad YAML, an unknown key or a bad value.
    """
    if not items:
        return RuleConfig()
    data: Any
    if isinstance(items, dict):
        data = items
    elif not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise InputError(f"rules must be KEY=VALUE pairs, a file or a mapping, got {items!r}")
    elif len(items) == 1 and "=" not in items[0]:
        data = read_yaml("--rules", items[0], " (or give KEY=VALUE pairs)")
        if isinstance(data, dict) and isinstance(data.get("env"), dict) and "rules" in data["env"]:
            data = data["env"]["rules"] or {}  # a training config: its rules
    else:
        data = {}
        for item in items:
            key, sep, raw = item.partition("=")
            if not sep or not key.strip():
                raise InputError(f"--rules {item!r} must look like KEY=VALUE (or be one file)")
            try:
                data[key.strip()] = yaml.safe_load(raw)
            except yaml.YAMLError as e:
                raise InputError(f"--rules {item!r}: the value is not valid YAML: {one_line(e)}") from None
    try:
        return RuleConfig.from_dict(data)
    except ConfigError as e:
        raise InputError(f"--rules: {one_line(e)}") from None


def settings_file(
    parser: argparse.ArgumentParser, argv: list[str], rename: dict[str, str] | None = None, nested: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Make the settings of ``--config FILE`` in ``argv`` (when given) the defaults of ``parser``.

    The file holds one mapping of the command's config (``CONFIG_HELP``); a key is a flag's dest,
    or a field named differently from its flag (``rename``: field -> dest); a ``nested`` section
    (``calls``) is a mapping of flag dests. A required option set by the file is no longer
    required on the command line. Values are type-checked when the command builds its config
    from the parsed arguments (``baloot_env.config.from_mapping``). Returns the file's settings.

    Raises:
        InputError: a missing or unreadable file, not a mapping, or a key that is no setting.
    """
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config", default=None)
    known, _ = pre.parse_known_args(argv)
    if known.config is None:
        return {}
    data = read_yaml("--config", known.config)
    if not isinstance(data, dict):
        raise InputError(f"--config {known.config!r} must hold a mapping of settings, got {type(data).__name__}")
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if key in nested:
            if not isinstance(value, dict):
                raise InputError(f"--config {known.config!r}: {key} must be a mapping, got {type(value).__name__}")
            flat.update(value)
        else:
            flat[key] = value
    rename = rename or {}
    dests = {a.dest: a for a in parser._actions if a.option_strings and a.dest not in ("help", "config")}
    values = {rename.get(k, k): v for k, v in flat.items()}
    unknown = sorted((k for k in values if k not in dests), key=repr)
    if unknown:
        raise InputError(f"--config {known.config!r}: unknown settings {unknown}; known are {sorted(dests)}")
    for dest, value in values.items():
        values[dest] = _setting(dests[dest], value, known.config)
        dests[dest].required = False
    parser.set_defaults(**values)
    return data


def _setting(action: argparse.Action, value: Any, path: str) -> Any:
    """A file's setting checked and converted as its flag's text would be (``settings_file``)."""
    flag = action.option_strings[-1]
    if action.nargs == 0:  # store_true / store_false
        ok = isinstance(value, bool)
    elif action.nargs in ("+", "*") or value is None:
        return value  # lists (``--rules``) and nulls are the command's to check
    elif action.type is None:  # a string flag
        ok = isinstance(value, str)
    elif isinstance(value, dict) or (isinstance(value, (list, bool)) and action.type in (int, float)):
        ok = False
    else:
        text = (
            " ".join(map(str, value))
            if isinstance(value, list)
            else str(value).lower()
            if isinstance(value, bool)
            else str(value)
        )
        try:
            return action.type(text)  # type: ignore[operator]
        except (ValueError, TypeError, argparse.ArgumentTypeError):
            ok = False
    if not ok:
        raise InputError(f"--config {path!r}: {value!r} is not a value of {flag}")
    return value


def widths(text: str) -> tuple[int, ...]:
    """A flag's list of integers, "64,64" or "64 64" (a network's layer widths)."""
    return tuple(int(x) for x in text.replace(",", " ").split())


def config_flags(
    parser: argparse.ArgumentParser,
    cls: type,
    names: Sequence[str],
    defaults: Any = None,
    choices: dict[str, Sequence[str]] | None = None,
    aliases: dict[str, Sequence[str]] | None = None,
) -> None:
    """A flag for each of the config dataclass ``cls``'s fields ``names``, made from the field
    itself, so that no command declares a config's fields again by hand: ``--name-with-dashes``
    (dest: the field's name; ``aliases`` by name give it other spellings too), its type (int,
    float, str, ``tuple[int, ...]`` as ``widths``; a bool is a switch: ``--x`` / ``--no-x``), its
    default (``defaults``' value of it, else the field's; a field without one is a required
    flag) and its help (the field's ``help`` metadata, the text of the config's own help), with
    ``choices`` by name."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    types = get_type_hints(cls)
    for name in names:
        f = fields[name]
        kind = types[name]
        factory = f.default_factory
        missing = f.default is dataclasses.MISSING and not callable(factory)
        if missing:
            default = None
        elif defaults is not None:
            default = getattr(defaults, name)
        else:
            default = f.default if f.default is not dataclasses.MISSING else factory() if callable(factory) else None
        text = f.metadata.get("help", "")
        flags = [*(aliases or {}).get(name, ()), "--" + name.replace("_", "-")]  # the field's own last (messages)
        if kind is bool:
            parser.add_argument(*flags, dest=name, action=argparse.BooleanOptionalAction, default=default, help=text)
        elif kind in (int, float, str) or kind == tuple[int, ...]:
            action = parser.add_argument(
                *flags, dest=name, default=default, required=missing, help=text, choices=(choices or {}).get(name)
            )
            if kind is not str:  # a string flag keeps no type, so a settings file's value must be a string
                action.type = widths if kind == tuple[int, ...] else kind
        else:
            raise TypeError(f"config_flags: {cls.__name__}.{name} is a {kind}, not a flag's type")


def check_output(
    path: str,
    flag: str,
    inputs: Sequence[tuple[str, str | None]],
    protected: Sequence[str | os.PathLike[str]] = (),
    folder_of: Sequence[str] | None = None,
) -> None:
    """An output never destroys what a command reads or ships: the one check of every command
    that writes. ``path`` (the output of ``flag``) is refused when it is an input's file or folder
    (``inputs``: (flag, path) pairs; None and names that are not paths skipped), lies inside an input's
    folder (a bundle's ``weights.pt``), holds an input (``--out policies`` over
    ``policies/champion``), or lies in or over a ``protected`` folder (the shipped bundles).
    With ``folder_of`` the output is a folder: an existing one must hold only those names (a
    bundle's files), so that no folder of other files is written into; otherwise it is a file
    (``check_output_path``).

    Raises:
        InputError: naming the flag, the path and what it would destroy.
    """
    if folder_of is None:
        check_output_path(path, flag)
    else:
        check_output_dir(path, flag)
    out = Path(os.path.realpath(path))

    def inside(a: Path, b: Path) -> bool:
        return a == b or b in a.parents

    for other, given in inputs:
        if given is None or (os.sep not in given and not os.path.lexists(given)):
            continue  # a name (an agent, a deal set), not a path
        src = Path(os.path.realpath(given))
        if inside(out, src) or inside(src, out):
            raise InputError(f"{flag} {path!r} would overwrite {other} {given!r}; write the output elsewhere")
    for kept in protected:
        shipped = Path(os.path.realpath(kept))
        if inside(out, shipped) or inside(shipped, out):
            raise InputError(f"{flag} {path!r} is in or over the shipped {shipped}; write the output elsewhere")
    if folder_of is not None and out.is_dir():
        others = sorted(p.name for p in out.iterdir() if p.name not in folder_of)
        if others:
            raise InputError(
                f"{flag} {path!r} is a folder of other files ({', '.join(others[:3])}"
                f"{', ...' if len(others) > 3 else ''}); give a new folder or one this command wrote"
            )
