"""What the tests of several packages make alike: a small policy bundle, a killed writer's temp.

The hand-worked deals and calls are in ``helpers``. torch is imported by ``make_bundle`` only, so
that the engine's tests, which import neither, stay light.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from baloot_io.atomic import TEMP_SUFFIX

SMALL_NET = {"trunk": (16,), "head_hidden": 8, "value_hidden": (8,)}  # NetSpec fields of a tiny network
EVAL = {
    "opponent": "heuristic",
    "deal_set": "small",
    "checksum": "4d167d1984c8abc",
    "deals": 64,
    "mean": 1.25,
    "sd": 3.0,
    "ci95": [0.5, 2.0],
    "date": "2026-01-01T00:00:00+00:00",
}


def make_bundle(path: Path, spec: Any = None, seed: int = 0, **kw: Any) -> Path:
    """A verified policy bundle of a seeded tiny network (``spec``, default ``SMALL_NET``) at ``path``,
    with ``EVAL`` as its evaluation unless ``evaluations`` is given."""
    import torch  # only the tests that make bundles need it

    from agents.neural.bundle import save_bundle
    from agents.neural.network import BalootNet, NetSpec

    torch.manual_seed(seed)
    net = BalootNet(spec if spec is not None else NetSpec(**SMALL_NET))
    return save_bundle(path, net, name=kw.pop("name", "tiny"), evaluations=kw.pop("evaluations", [EVAL]), **kw)


def killed_writer_temp(folder: Path) -> str:
    """Start a write in a child process and kill it (os._exit) before the rename; the temp's name."""
    code = (
        "import os, sys\n"
        "import baloot_io.atomic as a\n"
        "a.os.replace = lambda *_: os._exit(9)\n"  # the process dies between the write and the rename
        "a.write_bytes_atomic(sys.argv[1], b'half')\n"
    )
    before = set(os.listdir(folder))
    r = subprocess.run([sys.executable, "-c", code, str(folder / "state.json")], timeout=60)
    assert r.returncode == 9
    left = sorted(set(os.listdir(folder)) - before)
    assert len(left) == 1 and left[0].endswith(TEMP_SUFFIX), left  # what a kill leaves
    return left[0]
