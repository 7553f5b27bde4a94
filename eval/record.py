"""Record duplicate reports in a policy bundle's manifest: ``python -m eval.record``.

A bundle's manifest carries its evaluations so that loading it can say how strong it is. This
turns reports written by ``python -m eval --json`` (with the bundle as side A) into manifest
entries, each marked with the role of its deal set (``test`` or ``development``, from
``eval.deals``), and renews the manifest checksum. Entries already there are kept; an entry for
the same opponent and deal-set checksum is replaced.

Example::

    python -m eval --a policies/champion --b heuristic --deal-set test960 --json runs/t/h.json
    python -m eval.record --bundle policies/champion runs/t/h.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from baloot_cli import InputError, check_output_path
from baloot_env.errors import ConfigError
from baloot_env.rules import RuleConfig
from baloot_io.reading import InputFileError, parse_json, read_text_checked
from eval.deals import STANDARD_SETS, DealSetError, load_named

REPORT_FORMAT = "baloot-duplicate-report-1"


class RecordError(ValueError):
    """A report that cannot be recorded: unreadable, of another format, or not about this bundle."""


def entry_from_report(report: dict[str, Any], bundle: str | Path, trained: RuleConfig) -> dict[str, Any]:
    """The manifest entry for one duplicate report whose side A is ``bundle``, played under the
    rules the bundle was ``trained`` under (a report under other rules says nothing of it)."""
    if not isinstance(report, dict) or report.get("format") != REPORT_FORMAT:
        raise RecordError(f"not a duplicate report of format {REPORT_FORMAT}")
    if Path(str(report.get("a"))).resolve() != Path(bundle).resolve():
        raise RecordError(f"the report's side A is {report.get('a')!r}, not the bundle {str(bundle)!r}")
    try:
        played = RuleConfig.from_dict(report.get("rules") or {})
    except ConfigError as e:
        raise RecordError(f"the report's rules are not a RuleConfig: {e}") from None
    if played != trained:
        raise RecordError(
            f"the report was played under {played.describe()}, but the bundle was trained under {trained.describe()}"
        )
    name = str(report["deal_set"])
    try:
        role = load_named(name).role if name.split("[")[0] in STANDARD_SETS else "development"
    except DealSetError as e:
        raise RecordError(str(e)) from None
    entry = {
        "opponent": str(report["b"]),
        "deal_set": name,
        "checksum": str(report["checksum"]),
        "role": role,
        "deals": int(report["deals"]),
        "mean": float(report["mean"]),
        "sd": float(report["sd"]),
        "ci95": [float(x) for x in report["ci95"]],
        "share_won": float(report["share_a_won"]),
        "seed": int(report["seed"]),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    if played.changes():
        entry["rules"] = played.changes()
    matches = report.get("matches")
    if isinstance(matches, dict) and matches.get("played"):
        entry["matches"] = matches
    return entry


def record(bundle: str | Path, reports: list[str | Path]) -> dict[str, Any]:
    """Add the reports' entries to the bundle's manifest (verified first); returns the manifest."""
    # needs torch (the train extra): imported only when a network is used
    from agents.neural.bundle import MANIFEST, bundle_rules, load_net, update_evaluations

    _, manifest = load_net(bundle)  # a corrupt or edited bundle is refused before anything is read
    try:  # the manifest is replaced at the end: a bundle that cannot take it is refused first
        check_output_path(Path(bundle) / MANIFEST, "--bundle")
    except InputError as e:
        raise RecordError(f"{e} (the bundle cannot take its new manifest)") from None
    new = []
    for path in reports:
        try:
            report = parse_json(read_text_checked(path, "report"), f"report {str(path)!r}")
        except InputFileError as e:
            raise RecordError(str(e)) from None
        except json.JSONDecodeError as e:
            raise RecordError(f"report {str(path)!r} is not readable JSON: {e}") from None
        try:
            new.append(entry_from_report(report, bundle, bundle_rules(manifest)))
        except (KeyError, TypeError, ValueError) as e:
            raise RecordError(f"report {str(path)!r}: {e}") from None
    replaced = {_entry_key(e) for e in new}
    old = [dict(e) for e in manifest.get("evaluations") or [] if _entry_key(e) not in replaced]
    for entry in old:  # entries from before deal sets had roles: the role of their set now
        spec = STANDARD_SETS.get(str(entry.get("deal_set")).split("[")[0])
        if "role" not in entry and spec is not None:
            entry["role"] = spec.role
    try:
        return update_evaluations(bundle, old + new)
    except OSError as e:  # the folder changed under us, or the disk is full: the old manifest stays
        raise RecordError(f"the manifest of {str(bundle)!r} cannot be replaced: {e.strerror or e}") from None


def _entry_key(entry: dict[str, Any]) -> tuple[Any, Any, str]:
    """What an entry is about: the opponent, the deal set's checksum and the rules."""
    return entry.get("opponent"), entry.get("checksum"), json.dumps(entry.get("rules") or {}, sort_keys=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.record", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", required=True, help="the policy bundle folder (side A of every report)")
    parser.add_argument("reports", nargs="+", help="JSON reports of python -m eval --json")
    args = parser.parse_args(argv)
    # needs torch (the train extra): imported only when a network is used
    from agents.neural.bundle import BundleError

    try:
        manifest = record(args.bundle, args.reports)
    except (RecordError, BundleError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{args.bundle}: {len(manifest['evaluations'])} evaluations recorded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
