"""The documentation's generated tables (action table R9, observation pieces), on the page of the
environment (``docs/environment.md``).

``python -m baloot_env.spec [PAGE]`` rewrites the page's sections between the GENERATED markers
(atomically, and only when a table changed); ``tests/baloot_env/test_spec_docs.py`` fails when
the page and the code drift apart. A path that is not a page with those sections gets one line
and exit code 2, and the file is left as it was.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from baloot_env.actions import ACTION_VERSION, NUM_ACTIONS, action_table
from baloot_env.observation import observation_table_markdown
from baloot_io.atomic import write_text_atomic


def action_table_markdown() -> str:
    """The action table, generated from ``actions.action_table`` (R9)."""
    lines = [
        f"Action version {ACTION_VERSION}: one `Discrete({NUM_ACTIONS})` space (RULES.md R9).",
        "",
        "| ids | action | phase |",
        "|---|---|---|",
    ]
    lines += [f"| {ids} | {what} | {phase} |" for ids, what, phase in action_table()]
    return "\n".join(lines)


SECTIONS = {"actions": action_table_markdown, "observation": observation_table_markdown}


def render_readme(text: str) -> str:
    """``text`` with every generated section replaced by the current tables."""
    for name, make in SECTIONS.items():
        pattern = re.compile(rf"(<!-- BEGIN GENERATED: {name} -->\n).*?(<!-- END GENERATED: {name} -->)", re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"the page has no generated section {name!r}")
        table = make()

        def fill(m: re.Match[str], table: str = table) -> str:
            return m.group(1) + table + "\n" + m.group(2)

        text = pattern.sub(fill, text)
    return text


MAX_README_BYTES = 4 << 20  # a page is far smaller; anything larger is not one
PAGE = "docs/environment.md"  # the page that holds the tables


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m baloot_env.spec", description="Rewrite the documentation's generated tables from the code."
    )
    p.add_argument("readme", nargs="?", default=PAGE, help=f"the page to update (default {PAGE})")
    path = Path(p.parse_args(argv).readme)
    try:
        if not path.is_file():
            raise ValueError(f"{path} is not a file")
        if path.stat().st_size > MAX_README_BYTES:
            raise ValueError(f"{path} is over {MAX_README_BYTES >> 20} MiB: not a documentation page")
        text = path.read_text(encoding="utf-8")
        new = render_readme(text)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if new == text:
        print(f"{path}: the generated tables are up to date")
        return 0
    write_text_atomic(path, new)
    print(f"updated {path}: the generated tables were rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
