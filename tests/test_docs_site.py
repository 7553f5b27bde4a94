"""The documentation site builds without a warning (``mkdocs build --strict``: no broken link, no
page outside the nav), and the README's headline table is the shipped ladder (issue 48)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from eval.league import ladder_markdown

ROOT = Path(__file__).resolve().parent.parent
_LADDER = re.compile(r"<!-- BEGIN GENERATED: ladder -->\n(.*?)\n<!-- END GENERATED: ladder -->", re.DOTALL)


@pytest.mark.parametrize("page", ["README.md", "docs/ladder.md"])
def test_the_ladder_tables_are_the_shipped_one(page):
    shipped = ladder_markdown(json.loads((ROOT / "policies" / "league.json").read_text(encoding="utf-8")))
    found = _LADDER.search((ROOT / page).read_text(encoding="utf-8"))
    assert found, f"{page} has no generated ladder section"
    assert found.group(1) == shipped, f"{page}'s ladder differs from policies/league.json; it is:\n{shipped}"


def test_the_config_reference_is_the_dataclasses():
    from train.config import config_reference_markdown

    page = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- BEGIN GENERATED: config -->\n(.*?)\n<!-- END GENERATED: config -->", page, re.DOTALL)
    assert found and found.group(1) == config_reference_markdown(), (
        "docs/config.md differs from train.config's fields: put config_reference_markdown() between its markers"
    )
    assert "| `expert.targets` | `matched` |" in page  # one key, as the main job sets it


def test_a_ladder_table_follows_its_report():
    rep = json.loads((ROOT / "policies" / "league.json").read_text(encoding="utf-8"))
    table = ladder_markdown(rep).splitlines()
    assert len(table) == 2 + len(rep["agents"])
    top = rep["ranking"][0]["agent"]
    assert table[2].startswith(f"| `{rep['labels'][rep['agents'].index(top)]}` | {rep['ranking'][0]['elo']:.0f} |")
    cells = {r.split(" | ")[0].strip("| `"): r.split(" | ") for r in table[2:]}
    assert cells["heuristic"][2] == "-"  # no score against itself
    assert cells["random"][2].startswith("-17.77 [")  # random loses 17.8 points a deal to heuristic
    assert [float(c[1]) for c in cells.values()] == sorted((float(c[1]) for c in cells.values()), reverse=True)


def test_the_site_builds_strict(tmp_path):
    pytest.importorskip("material", reason="the docs site needs mkdocs-material (the dev extra)")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # Every object an API page names is rendered from its docstring (mkdocstrings ran on it).
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        named = re.findall(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.MULTILINE)
        built = tmp_path / "site" / "api" / ("" if page.stem == "index" else page.stem) / "index.html"
        html = built.read_text(encoding="utf-8")
        for target in named:
            assert f'id="{target}"' in html, f"{page.name}: {target} was not rendered"
    assert (tmp_path / "site" / "environment" / "index.html").is_file()
