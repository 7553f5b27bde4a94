"""Duplicate deal sets: fixed lists of R2.4 deals, generated from a seed and committed.

A deal set file is JSON::

    {"format": "baloot-deal-set-1", "name": "standard960", "seed": 960, "count": 960,
     "checksum": "<sha256>", "deals": [{"dealer": 0, "hands": [[...] x 4], "turned": c, "stock": [...]}, ...]}

The checksum is the SHA-256 of the canonical JSON of the ``deals`` list alone (card ids, keys
sorted, no spaces), so it names the cards and nothing else; reports cite it. Loading checks
every deal (R2.4) and the checksum, so an edited or corrupt file is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from baloot_env.atomic import write_text_atomic
from baloot_env.deal import Deal, parse_deal, random_deal
from baloot_env.errors import DealError

FORMAT = "baloot-deal-set-1"
DEALS_DIR = Path(__file__).resolve().parent / "deals"
# The committed sets: name -> (seed, count).
# dev960 is for choices made during training (promotion), so that standard960 stays an unbiased test.
STANDARD_SETS = {"small": (64, 64), "standard960": (960, 960), "dev960": (9601, 960)}
DEFAULT_SET = "standard960"


class DealSetError(ValueError):
    """A deal set that is missing, corrupt or does not match its checksum."""


@dataclass(frozen=True)
class DealSet:
    """A named, checksummed list of deals (R2.4)."""

    name: str
    seed: int | None
    deals: tuple[Deal, ...]
    checksum: str

    def __len__(self) -> int:
        return len(self.deals)

    def head(self, n: int) -> DealSet:
        """The first ``n`` deals, as a set of its own (with its own checksum)."""
        if not 1 <= n <= len(self.deals):
            raise DealSetError(f"deal set {self.name!r} has {len(self.deals)} deals; cannot take {n}")
        if n == len(self.deals):
            return self
        deals = self.deals[:n]
        return DealSet(f"{self.name}[:{n}]", self.seed, deals, checksum_of(deals))

    def to_json(self) -> dict:
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


def generate(name: str, seed: int, count: int) -> DealSet:
    """``count`` uniform deals from ``numpy.random.default_rng(seed)`` (dealers drawn too, R2.1)."""
    rng = np.random.default_rng(seed)
    deals = tuple(random_deal(rng) for _ in range(count))
    return DealSet(name, seed, deals, checksum_of(deals))


def save(deal_set: DealSet, path: str | os.PathLike) -> None:
    """Write the set, one deal per line, atomically (temp file + rename)."""
    data = deal_set.to_json()
    head = {k: v for k, v in data.items() if k != "deals"}
    lines = [json.dumps(head, separators=(", ", ": "))[:-1] + ', "deals": [']
    body = [json.dumps(d, separators=(",", ":")) for d in data["deals"]]
    text = "\n".join(lines + [",\n".join(body), "]}"]) + "\n"
    write_text_atomic(path, text)


def load(path: str | os.PathLike) -> DealSet:
    """Read and verify a deal set file.

    Raises:
        DealSetError: missing file, bad JSON, a bad deal (R2.4), or a checksum mismatch.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DealSetError(f"deal set file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DealSetError(f"deal set file {str(path)!r} is not readable JSON: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("deals"), list):
        raise DealSetError(f"{str(path)!r} is not a deal set of format {FORMAT}")
    try:
        deals = tuple(parse_deal(d) for d in data["deals"])
    except DealError as e:
        raise DealSetError(f"deal set {str(path)!r} holds a bad deal: {e}") from None
    checksum = checksum_of(deals)
    if data.get("checksum") != checksum:
        raise DealSetError(
            f"deal set {str(path)!r}: checksum {data.get('checksum')!r} does not match its deals ({checksum}); "
            "the file was edited or is corrupt"
        )
    return DealSet(str(data.get("name", path.stem)), data.get("seed"), deals, checksum)


def load_named(name: str) -> DealSet:
    """A committed set by name (``small``, ``standard960``, ``dev960``) or a path to a deal set file."""
    if name in STANDARD_SETS:
        return load(DEALS_DIR / f"{name}.json")
    if os.path.exists(name) or name.endswith(".json"):
        return load(name)
    raise DealSetError(f"unknown deal set {name!r}; known: {sorted(STANDARD_SETS)}, or a path to a deal set file")


def main() -> None:
    """Regenerate the committed sets: ``python -m eval.deals``."""
    DEALS_DIR.mkdir(exist_ok=True)
    for name, (seed, count) in STANDARD_SETS.items():
        ds = generate(name, seed, count)
        save(ds, DEALS_DIR / f"{name}.json")
        print(f"{name}: {count} deals, seed {seed}, sha256 {ds.checksum}")


if __name__ == "__main__":
    main()
