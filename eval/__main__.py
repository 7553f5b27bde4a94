"""Command line: ``python -m eval`` (duplicate run), ``promote``, ``league`` and ``export`` (ONNX).

Examples::

    python -m eval --a heuristic --b random --deals 960 --workers 2 --json runs/hr.json
    python -m eval promote --candidate runs/cand.json --champion runs/champion.json --workers 2
    python -m eval league --agents random heuristic runs/cand.json --deal-set small
    python -m eval export --policy policies/champion --out champion.onnx --time 2000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.registry import AgentSpecError, known_agents
from eval.deals import DEFAULT_SET, STANDARD_SETS, DealSetError, load_named
from eval.duplicate import AgentError
from eval.league import format_league, league
from eval.promote import PromotionConfig, PromotionError, promote
from eval.report import format_table, plot, summarize, write_json_atomic
from eval.runner import run_duplicate

AGENT_HELP = f"an agent: {', '.join(known_agents())}, or a path to an agent file"
SET_HELP = f"deal set: {', '.join(sorted(STANDARD_SETS))} or a path (default {DEFAULT_SET})"


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deal-set", default=DEFAULT_SET, help=SET_HELP)
    p.add_argument("--deals", type=int, default=None, help="play only the first N deals of the set")
    p.add_argument("--seed", type=int, default=0, help="seed of every hand's agent randomness (default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (results do not depend on it)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m eval", description="Seat-rotated duplicate evaluation of A vs B.")
    p.add_argument("--a", required=True, help=AGENT_HELP)
    p.add_argument("--b", required=True, help=AGENT_HELP)
    _common(p)
    p.add_argument("--json", default=None, help="write the report here (atomically)")
    p.add_argument("--png", default=None, help="write the plot here (default: the --json path with .png)")
    p.add_argument("--no-matches", action="store_true", help="skip the matches to 152")
    args = p.parse_args(argv)
    full = load_named(args.deal_set)
    ds = full.head(args.deals) if args.deals else full
    run = run_duplicate(
        args.a, args.b, ds, seed=args.seed, workers=args.workers, matches=not args.no_matches, progress=not args.quiet
    )
    report = summarize(run, args.a, args.b, ds, full, args.seed, run_rules())
    print(format_table(report))
    if args.json:
        write_json_atomic(args.json, report)
        print(f"\nreport: {args.json}")
    png = args.png or (str(Path(args.json).with_suffix(".png")) if args.json else None)
    if png:
        print(f"plot: {png}" if plot(report, png) else "plot: skipped (matplotlib is not installed)")
    return 0


def run_rules() -> dict:
    from baloot_env.rules import RuleConfig

    return RuleConfig().to_dict()


def promote_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="python -m eval promote",
        description="Promote the candidate if it beats the champion in duplicate (lower 95%% bound above 0).",
    )
    p.add_argument("--candidate", required=True, help=AGENT_HELP)
    p.add_argument("--champion", required=True, help="the champion pointer file, or the champion agent itself")
    p.add_argument("--pointer", default=None, help="where to write the pointer (default: see eval.promote)")
    p.add_argument("--history", default=None, help="JSON-lines history (default promotions.jsonl beside the pointer)")
    p.add_argument("--looks", type=int, default=4, help="sequential looks (1 = fixed sample; default 4)")
    _common(p)
    args = p.parse_args(argv)
    cfg = PromotionConfig(
        candidate=args.candidate, champion=args.champion, pointer=args.pointer, history=args.history,
        deal_set=args.deal_set, deals=args.deals, seed=args.seed, workers=args.workers, looks=args.looks,
        progress=not args.quiet,
    )  # fmt: skip
    entry = promote(cfg)
    lo, hi = entry["ci95"]
    verdict = "PROMOTED" if entry["promoted"] else "NOT PROMOTED (champion unchanged)"
    print(
        f"{verdict}: {entry['candidate']} vs {entry['champion']}: mean d {entry['mean']:+.3f}"
        f" [{lo:+.3f}, {hi:+.3f}] over {entry['deals']} deals (look {entry['look']}/{entry['looks']},"
        f" {entry['decision']}); deal set {entry['deal_set']} sha256 {entry['checksum'][:16]}..."
    )
    print(f"pointer: {entry['pointer']}\nhistory: {entry['history']}")
    return 0 if entry["promoted"] else 1


def league_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m eval league", description="Round-robin duplicate with Elo ratings.")
    p.add_argument("--agents", nargs="+", required=True, help=AGENT_HELP)
    p.add_argument("--json", default=None, help="write the league report here")
    _common(p)
    args = p.parse_args(argv)
    full = load_named(args.deal_set)
    ds = full.head(args.deals) if args.deals else full
    rep = league(args.agents, ds, full.checksum, seed=args.seed, workers=args.workers, progress=not args.quiet)
    print(format_league(rep))
    if args.json:
        write_json_atomic(args.json, rep)
        print(f"\nreport: {args.json}")
    return 0


def export_main(argv: list[str]) -> int:
    from eval.export import ExportError  # torch: imported only for export
    from eval.export import export_main as run_export

    try:
        return run_export(argv)
    except ExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = {"promote": promote_main, "league": league_main, "export": export_main}.get(argv[0] if argv else "", None)
    try:
        if command is not None:
            return command(argv[1:])
        return run_main(argv)
    except (AgentSpecError, DealSetError, PromotionError, AgentError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
