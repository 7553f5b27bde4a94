"""The tutorial notebook (``examples/tutorial.ipynb``) runs as committed: every cell executes in a
fresh kernel from the repository root, and each printed line has the shape of the committed
output (the same words and numbers where they do not depend on the machine's floating point:
the hand's score, the decisions trained, the champion's call)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat and nbclient (the dev extra)")
nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient (the dev extra)")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "tutorial.ipynb"
SCORE = r"[+-]\d+\.\d\d \[[+-]\d+\.\d\d, [+-]\d+\.\d\d\] game points per deal"


def _printed(nb) -> list[str]:
    return [
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "stream" and o.get("name") == "stdout"
    ]


@pytest.mark.slow
def test_the_tutorial_runs_and_prints_what_it_shows():
    committed = nbformat.read(NOTEBOOK, as_version=4)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()  # a cell that raises fails here, naming it
    shown, printed = _printed(committed), _printed(nb)
    assert len(printed) == len(shown) == 5, printed
    assert printed[0] == shown[0] == "[26, 0]\n"  # the seeded hand's score
    assert printed[1] == shown[1] == "trained 2,048 decisions\n"
    assert re.fullmatch(rf"sb3:runs/tutorial/ppo\.zip vs random: {SCORE}\n", printed[2])
    assert re.fullmatch(rf"policies/champion vs sb3:runs/tutorial/ppo\.zip: {SCORE}\n", printed[3])
    assert printed[4] == shown[4]  # the champion's call on a seeded position
