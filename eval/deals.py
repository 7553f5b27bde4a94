"""Duplicate deal sets: fixed lists of R2.4 deals, generated from a seed and committed.

A deal set file is JSON::

    {"format": "baloot-deal-set-1", "name": "standard960", "seed": 960, "count": 960,
     "checksum": "<sha256>", "deals": [{"dealer": 0, "hands": [[...] x 4], "turned": c, "stock": [...]}, ...]}

The checksum is the SHA-256 of the canonical JSON of the ``deals`` list alone (card ids, keys
sorted, no spaces), so it names the cards and nothing else; reports cite it. Loading checks
every deal (R2.4) and the checksum, so an edited or corrupt file is refused.

The committed sets are package data (``eval/deals/*.json``), read through ``importlib.resources``
so that an installed wheel finds them wherever it runs.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import numpy as np

from baloot_env.deal import Deal, parse_deal, random_deal
from baloot_env.errors import DealError
from baloot_io.atomic import write_text_atomic
from baloot_io.reading import InputFileError, parse_json, read_text_checked

FORMAT = "baloot-deal-set-1"
DEALS_DIR: Traversable = resources.files("eval") / "deals"  # the committed sets, shipped as package data

# Every deal set has a role, fixed here in code (not in the file, so that it cannot be edited away):
# a *development* set may be used for any choice (promotion, tuning, ablations, comparing recipes);
# the *test* set is only for final reports, and everything that chooses refuses it.
DEVELOPMENT = "development"
TEST = "test"
ROLES = (DEVELOPMENT, TEST)


@dataclass(frozen=True)
class SetSpec:
    """How a committed set is generated (``generate(name, seed, count)``) and what it is for."""

    seed: int
    count: int
    role: str
    note: str


# The committed sets. standard960 was the reported set of the first two sessions' work, but the
# strong recipe was chosen by comparing on it, so it is a development set now; test960 (seed
# 20261130, first drawn on 2026-11-30) replaced it as the test set and had been used by nothing.
STANDARD_SETS: dict[str, SetSpec] = {
    "small": SetSpec(64, 64, DEVELOPMENT, "a quick set for smoke runs and tests"),
    "standard960": SetSpec(960, 960, DEVELOPMENT, "the former test set; the strong recipe was chosen on it"),
    "dev960": SetSpec(9601, 960, DEVELOPMENT, "promotion during training and other choices"),
    "test960": SetSpec(20261130, 960, TEST, "final reports only; nothing may choose on it"),
}
DEFAULT_SET = "dev960"  # what a command that compares or chooses uses unless told otherwise
TEST_SET = "test960"  # where final reports are made


class DealSetError(ValueError):
    """A deal set that is missing, corrupt or does not match its checksum."""


class DealSetRoleError(DealSetError):
    """A choice (promotion, tuning, an ablation) was asked to use the test set."""


@dataclass(frozen=True)
class DealSet:
    """A named, checksummed list of deals (R2.4)."""

    name: str
    seed: int | None
    deals: tuple[Deal, ...]
    checksum: str
    role: str = DEVELOPMENT

    def __len__(self) -> int:
        return len(self.deals)

    def head(self, n: int) -> DealSet:
        """The first ``n`` deals, as a set of its own (with its own checksum)."""
        if not 1 <= n <= len(self.deals):
            raise DealSetError(f"deal set {self.name!r} has {len(self.deals)} deals; cannot take {n}")
        if n == len(self.deals):
            return self
        deals = self.deals[:n]
        return DealSet(f"{self.name}[:{n}]", self.seed, deals, checksum_of(deals), self.role)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "name": self.name,
            "seed": self.seed,
            "count": len(self.deals),
            "checksum": self.checksum,
            "deals": [d.to_dict() for d in self.deals],
        }


def checksum_of(deals: tuple[Deal, ...] | list[Deal]) -> str:
    """SHA-256 of the canonical JSON of the deals (card ids, sorted keys, no spaces)."""
    canon = json.dumps([d.to_dict() for d in deals], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode("ascii")).hexdigest()


def generate(name: str, seed: int, count: int, role: str = DEVELOPMENT) -> DealSet:
    """``count`` uniform deals from ``numpy.random.default_rng(seed)`` (dealers drawn too, R2.1)."""
    if role not in ROLES:
        raise DealSetError(f"unknown deal set role {role!r}; roles: {', '.join(ROLES)}")
    rng = np.random.default_rng(seed)
    deals = tuple(random_deal(rng) for _ in range(count))
    return DealSet(name, seed, deals, checksum_of(deals), role)


def save(deal_set: DealSet, path: str | os.PathLike[str]) -> None:
    """Write the set, one deal per line, atomically (temp file + rename)."""
    data = deal_set.to_json()
    head = {k: v for k, v in data.items() if k != "deals"}
    lines = [json.dumps(head, separators=(", ", ": "))[:-1] + ', "deals": [']
    body = [json.dumps(d, separators=(",", ":")) for d in data["deals"]]
    text = "\n".join(lines + [",\n".join(body), "]}"]) + "\n"
    write_text_atomic(path, text)


def load(path: str | os.PathLike[str] | Traversable) -> DealSet:
    """Read and verify a deal set file (a path, or a packaged file such as ``DEALS_DIR / "small.json"``).

    Raises:
        DealSetError: missing file, bad JSON, a bad deal (R2.4), or a checksum mismatch.
    """
    if isinstance(path, (str, os.PathLike)):
        path = Path(path)
    try:
        # a user's path is read with care (a FIFO, a device, a huge file); a packaged file is ours
        text = read_text_checked(path, "deal set file") if isinstance(path, Path) else path.read_text(encoding="utf-8")
        data = parse_json(text, f"deal set file {str(path)!r}")
    except InputFileError as e:
        raise DealSetError(str(e)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DealSetError(f"deal set file {str(path)!r} is not readable JSON: {e}") from None
    return from_json(data, str(path), path.name.removesuffix(".json"))


def from_json(data: Any, where: str, name: str) -> DealSet:
    """The deal set of a file's parsed JSON (``where``: the file, for the messages; ``name``: the
    set's name when the file gives none), verified as ``load`` does.

    Raises:
        DealSetError: not a deal set, a bad deal (R2.4), or a checksum mismatch.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("deals"), list):
        raise DealSetError(f"{where!r} is not a deal set of format {FORMAT}")
    try:
        deals = tuple(parse_deal(d) for d in data["deals"])
    except DealError as e:
        raise DealSetError(f"deal set {where!r} holds a bad deal: {e}") from None
    checksum = checksum_of(deals)
    if data.get("checksum") != checksum:
        raise DealSetError(
            f"deal set {where!r}: checksum {data.get('checksum')!r} does not match its deals ({checksum}); "
            "the file was edited or is corrupt"
        )
    return DealSet(str(data.get("name", name)), data.get("seed"), deals, checksum, role_of(deals))


def _test_deal_keys() -> frozenset[str]:
    """Canonical JSON of every deal of the committed test sets (read once, on first use)."""
    global _TEST_KEYS
    if _TEST_KEYS is None:
        keys: set[str] = set()
        for name, spec in STANDARD_SETS.items():
            if spec.role == TEST and (DEALS_DIR / f"{name}.json").is_file():
                data = json.loads((DEALS_DIR / f"{name}.json").read_text(encoding="utf-8"))
                keys.update(json.dumps(d, sort_keys=True, separators=(",", ":")) for d in data["deals"])
        _TEST_KEYS = frozenset(keys)
    return _TEST_KEYS


_TEST_KEYS: frozenset[str] | None = None


def role_of(deals: tuple[Deal, ...]) -> str:
    """``TEST`` when any deal belongs to a committed test set, else ``DEVELOPMENT``.

    Decided by the cards, not by a name, so that a copy, a renamed file or a subset of the test
    set is still the test set.
    """
    keys = _test_deal_keys()
    for d in deals:
        if json.dumps(d.to_dict(), sort_keys=True, separators=(",", ":")) in keys:
            return TEST
    return DEVELOPMENT


def load_named(name: str) -> DealSet:
    """A committed set by name (see ``STANDARD_SETS``) or a path to a deal set file."""
    if name in STANDARD_SETS:
        ds = load(DEALS_DIR / f"{name}.json")
        if ds.role != STANDARD_SETS[name].role:  # a development set that shares deals with the test set
            raise DealSetError(f"deal set {name!r} shares deals with the test set; regenerate it with a new seed")
        return ds
    if os.path.exists(name) or name.endswith(".json"):
        return load(name)
    raise DealSetError(f"unknown deal set {name!r}; known: {sorted(STANDARD_SETS)}, or a path to a deal set file")


def require_development(deal_set: DealSet | str, purpose: str) -> DealSet:
    """The deal set, if it may be used for ``purpose`` (a choice); else ``DealSetRoleError``.

    Promotion, tuning and ablations choose between policies or recipes; a choice made on the
    test set would make every later figure on it optimistic, so they refuse it.
    """
    ds = load_named(deal_set) if isinstance(deal_set, str) else deal_set
    if ds.role == TEST:
        dev = sorted(n for n, s in STANDARD_SETS.items() if s.role == DEVELOPMENT)
        raise DealSetRoleError(
            f"deal set {ds.name!r} is the test set, kept for final reports; {purpose} must use a development set "
            f"({', '.join(dev)} or a file of your own)"
        )
    return ds


def main() -> None:
    """Regenerate the committed sets: ``python -m eval.deals`` (in a source checkout)."""
    out = Path(__file__).resolve().parent / "deals"  # the source tree: these files are committed
    out.mkdir(exist_ok=True)
    for name, spec in STANDARD_SETS.items():
        ds = generate(name, spec.seed, spec.count, spec.role)
        save(ds, out / f"{name}.json")
        print(f"{name}: {spec.count} deals, seed {spec.seed}, {spec.role}, sha256 {ds.checksum}")


if __name__ == "__main__":
    main()
