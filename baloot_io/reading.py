"""Reading the files a user names: regular files only, and no more than a cap.

A path on a command line or in a config can name anything: a FIFO (``open`` waits for a writer
for ever), ``/dev/zero`` (``read`` fills the memory), a folder, a file of gigabytes. Every reader
of such a path (configs, agent files, deal sets, pointers, reports, bundles, databases) goes
through ``read_bytes_checked`` or ``read_text_checked``: the path must be a regular file (after
symlinks) of at most ``limit`` bytes, else ``InputFileError`` says which, before anything is read.
The size is checked again on the bytes read, for a file that grows in between.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from typing import Any

MiB = 1 << 20
SMALL_FILE_LIMIT = 16 * MiB  # configs, agent files, deal sets, pointers, reports, manifests


class InputFileError(ValueError):
    """A path that is not a regular file, or a file over its cap."""


def check_regular_file(path: str | os.PathLike[str], what: str, limit: int = SMALL_FILE_LIMIT) -> int:
    """The size of ``path`` when it is a regular file of at most ``limit`` bytes.

    Raises:
        InputFileError: missing, not a regular file (a folder, FIFO, device, socket), or too big.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(f"{what} {str(path)!r} does not exist") from None
    except OSError as e:
        raise InputFileError(f"{what} {str(path)!r} cannot be read: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(f"{what} {str(path)!r} is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(f"{what} {str(path)!r} is not a regular file (a FIFO, device or socket)")
    if st.st_size > limit:
        raise InputFileError(f"{what} {str(path)!r} is {st.st_size:,} bytes, over the {limit:,} a {what} may have")
    return st.st_size


def read_bytes_checked(path: str | os.PathLike[str], what: str, limit: int = SMALL_FILE_LIMIT) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (``check_regular_file``)."""
    check_regular_file(path, what, limit)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise InputFileError(f"{what} {str(path)!r} cannot be read: {e.strerror}") from None
    if len(data) > limit:
        raise InputFileError(f"{what} {str(path)!r} is over the {limit:,} bytes a {what} may have")
    return data


def read_text_checked(path: str | os.PathLike[str], what: str, limit: int = SMALL_FILE_LIMIT) -> str:
    """``read_bytes_checked`` decoded as UTF-8 (``InputFileError`` when it is not)."""
    data = read_bytes_checked(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{what} {str(path)!r} is not UTF-8 text (byte {e.start})") from None


def parse_checked(load: Callable[[str], Any], text: str, what: str, syntax_error: type[Exception]) -> Any:
    """``load(text)``, with the failures that are not bad syntax as one ``InputFileError`` naming
    ``what``: nesting deeper than Python's recursion allows, an integer of more digits than Python
    converts. A ``syntax_error`` (bad JSON, bad YAML) is raised as it is: each reader words it."""
    try:
        return load(text)
    except syntax_error:
        raise
    except RecursionError:
        raise InputFileError(f"{what} is nested too deeply to be one of ours") from None
    except ValueError as e:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise InputFileError(f"{what} holds a number too long to read ({e})") from None


def parse_json(text: str, what: str) -> Any:
    """``json.loads`` through ``parse_checked`` (bad JSON stays ``json.JSONDecodeError``)."""
    return parse_checked(json.loads, text, what, json.JSONDecodeError)
