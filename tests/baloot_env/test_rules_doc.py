"""docs/RULES.md is complete: every rule and variant number cited in code and tests has an entry."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "RULES.md"
CITING_FOLDERS = ("baloot_env", "agents", "train", "eval", "tests", "benchmarks", "examples")

# A citation: R<n> or R<n>.<m> (rules), V<n> (variants), not inside a longer word or number.
CITATION = re.compile(r"(?<![A-Za-z0-9_])(R[0-9]+(?:\.[0-9]+)?|V[0-9]+)(?![0-9A-Za-z_])")
# Where the document defines a number: a heading "## R5. ...", a list item "- **R5.4** ..."
# or a table row whose first cell is the label "| V1 | ...".
DEFINITION = re.compile(
    r"^(?:#+\s+(?P<heading>R[0-9]+)\.\s"
    r"|\s*[-*]\s+\*\*(?P<item>R[0-9]+\.[0-9]+|V[0-9]+)\*\*\s"
    r"|\|\s*(?P<row>V[0-9]+)\s*\|)"
)


def cited_numbers() -> dict[str, str]:
    """Every rule or variant number cited in the project's Python files, with one place citing it."""
    cited: dict[str, str] = {}
    for folder in CITING_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number in CITATION.findall(path.read_text(encoding="utf-8")):
                cited.setdefault(number, str(path.relative_to(ROOT)))
    return cited


def defined_numbers() -> dict[str, list[str]]:
    """Each number the document defines, with the kinds of entry that define it."""
    defined: dict[str, list[str]] = {}
    for line in RULES_DOC.read_text(encoding="utf-8").splitlines():
        m = DEFINITION.match(line)
        if m:
            kind = m.lastgroup
            defined.setdefault(m.group(kind), []).append(kind)
    return defined


def test_every_cited_rule_and_variant_is_in_the_rules_document():
    cited, defined = cited_numbers(), defined_numbers()
    # The scan must find the citations we know exist, or the check below proves nothing.
    assert {"R1.1", "R5.4", "R7.3", "R11.4", "V1", "V9"} <= set(cited), sorted(cited)
    missing = {n: where for n, where in cited.items() if n not in defined}
    assert not missing, f"cited but missing from docs/RULES.md (number: a file citing it): {missing}"


def test_rules_document_defines_each_number_once():
    """A heading or item per rule (variants also have their table row), none repeated."""
    defined = defined_numbers()
    repeated = {
        n: kinds for n, kinds in defined.items() if sorted(kinds) not in (["heading"], ["item"], ["item", "row"])
    }
    assert not repeated, repeated
    for section in range(1, 12):  # R1 ... R11, numbered without gaps
        assert f"R{section}" in defined
        items = sorted(int(n.split(".")[1]) for n in defined if n.startswith(f"R{section}."))
        assert items == list(range(1, len(items) + 1)), (section, items)
        assert items or section == 9, section  # R9 is a table, the others have numbered items
    assert sorted(n for n in defined if n.startswith("V")) == [f"V{i}" for i in range(1, 10)]
    assert all(defined[f"V{i}"] == ["row", "item"] for i in range(1, 10))


def test_rules_document_keeps_its_choices_section():
    text = RULES_DOC.read_text(encoding="utf-8")
    assert "## Choices" in text and "## Variants" in text
