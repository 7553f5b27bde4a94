"""Atomic file writes, shared by every layer (saved states, deal sets, reports, checkpoints,
policy bundles): write a temporary file in the same folder, fsync it, then ``os.replace``, so a
crash leaves the old file or the new one, never half of one. Standard library only.

Temporary files are named ``.<name>.<random>.<pid>.atomic-tmp`` (``TEMP_SUFFIX``), so that
those a killed writer left behind can be found and removed (``remove_stale_temps``). The files
written get the permissions of any newly created file, ``0o666`` less the process's umask
(``0o644`` under the usual umask 022), not the ``0o600`` of ``tempfile.mkstemp``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path
from typing import Any

TEMP_SUFFIX = ".atomic-tmp"
# .<name>.<8 hex>.<pid>.atomic-tmp; and the .<name>.<8 chars>.tmp of mkstemp in earlier versions
_TEMP_NAME = re.compile(r"^\..+\.[0-9a-f]{8}\.(?P<pid>\d+)\.atomic-tmp$")
_LEGACY_TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")


def _create_temp(folder: Path, name: str) -> tuple[int, str]:
    """Create and open a new temporary file beside ``folder/name``.

    ``os.open`` with mode 0o666 lets the kernel apply the umask (and any default ACL), exactly
    as for an ordinary new file; reading the umask with ``os.umask`` would change it for every
    thread for a moment.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = str(folder / f".{name}.{secrets.token_hex(4)}.{os.getpid()}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file for {folder / name}")


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (creating the folder if needed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(path.parent, path.name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 text atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: str | os.PathLike[str], data: Any) -> None:
    """Write JSON atomically (indented, newline-terminated)."""
    write_text_atomic(path, json.dumps(data, indent=1) + "\n")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process (or unknowable): leave its file alone
    return True


def remove_stale_temps(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files that killed atomic writes left in ``folder`` and below.

    A temporary file whose writer (the pid in its name) is still running on this machine is
    kept; so is anything not named like one. Call it where no other machine writes (a run
    directory under its run lock). Returns the files removed.
    """
    removed: list[Path] = []
    root = Path(folder)
    if not root.is_dir():
        return removed
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            m = _TEMP_NAME.match(name)
            if m is None and not _LEGACY_TEMP_NAME.match(name):
                continue
            if m is not None and _pid_alive(int(m.group("pid"))):
                continue
            p = Path(dirpath) / name
            try:
                p.unlink()
            except FileNotFoundError:
                continue
            removed.append(p)
    return removed
