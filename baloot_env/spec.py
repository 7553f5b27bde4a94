"""The README's generated tables (action table R9, observation pieces).

``python -m baloot_env.spec`` rewrites the README sections between the GENERATED markers;
``tests/baloot_env/test_spec_docs.py`` fails when the README and the code drift apart.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from baloot_env.actions import ACTION_VERSION, NUM_ACTIONS, action_table
from baloot_env.observation import observation_table_markdown


def action_table_markdown() -> str:
    """The README's action table, generated from ``actions.action_table`` (R9)."""
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
            raise ValueError(f"README has no generated section {name!r}")
        table = make()

        def fill(m: re.Match[str], table: str = table) -> str:
            return m.group(1) + table + "\n" + m.group(2)

        text = pattern.sub(fill, text)
    return text


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    new = render_readme(path.read_text())
    path.write_text(new)
    print(f"updated {path}")


if __name__ == "__main__":
    main()
