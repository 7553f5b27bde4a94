"""Command line: ``python -m eval`` (duplicate run), ``promote``, ``league`` and ``export`` (ONNX).

Examples::

    python -m eval --a heuristic --b random --deals 960 --workers 2 --json runs/hr.json
    python -m eval promote --candidate runs/cand.json --champion runs/champion.json --workers 2
    python -m eval league --agents random heuristic runs/cand.json --deal-set small --plot runs/ladder.png
    python -m eval export --policy policies/champion --out champion.onnx --time 2000
    python -m eval --a policies/champion --b heuristic --ray auto    # the deals as tasks on a Ray cluster

Every input (agents, deal set and count, workers, threads, output paths) is checked before any
deal is played; a bad one ends the command with exit code 2 and one line ``error: ...`` on
stderr (the helpers of ``baloot_cli``).
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import resources
from pathlib import Path

from agents.registry import AgentSpecError, known_agents, make_agent
from agents.shipped import shipped_policies
from baloot_cli import (
    CONFIG_HELP,
    MAX_WORKERS,
    RULES_HELP,
    InputError,
    OneLineParser,
    check_database,
    check_distinct,
    check_output,
    check_output_dir,
    check_output_path,
    check_png_path,
    check_range,
    one_line,
    rules_arg,
    settings_file,
)
from baloot_io.atomic import write_json_atomic
from eval.deals import DEFAULT_SET, STANDARD_SETS, DealSet, DealSetError, load_named
from eval.duplicate import AgentError
from eval.export import export_main as run_export
from eval.league import DEFAULT_TIME_POSITIONS, format_league, league
from eval.league_plot import plot_league
from eval.promote import (
    DEFAULT_LOOKS,
    PromotionConfig,
    PromotionError,
    check_history,
    promote,
    read_pointer,
    resolve_champion,
)
from eval.ray_runner import check_ray_address
from eval.replays import save_eval_hands
from eval.report import format_table, plot, summarize
from eval.runner import DEFAULT_TORCH_THREADS, check_rules, run_duplicate
from eval.stats import ALPHA

AGENT_HELP = f"an agent: {', '.join(known_agents())}, or a path to an agent file"
SET_HELP = f"deal set: {', '.join(sorted(STANDARD_SETS))} or a path (default {DEFAULT_SET})"


def protected_folders() -> list[str]:
    """What no evaluation output may overwrite: the shipped bundles and the committed deal sets."""
    return [shipped_policies(), str(resources.files("eval") / "deals")]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deal-set", default=DEFAULT_SET, help=SET_HELP)
    p.add_argument("--deals", type=int, default=None, help="play only the first N deals of the set (1 to its size)")
    p.add_argument("--seed", type=int, default=0, help="seed of every hand's agent randomness (>= 0, default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes, >= 1 (results do not depend on it)")
    p.add_argument(
        "--torch-threads",
        type=int,
        default=DEFAULT_TORCH_THREADS,
        metavar="N",
        help="torch threads per evaluating process (default 1: identical results, and "
        "workers do not fight for the cores; benchmarks/eval_threads.py)",
    )
    p.add_argument("--rules", nargs="+", default=None, metavar="KEY=VALUE", help=RULES_HELP)
    p.add_argument(
        "--other-rules",
        action="store_true",
        help="let a policy bundle play under rules other than those its manifest says it was trained under",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _check_common(args: argparse.Namespace) -> tuple[DealSet, DealSet]:
    """Check the shared flags (``args.rules`` becomes a ``RuleConfig``); returns (the full deal
    set, the deals to play)."""
    args.rules = rules_arg(args.rules)
    check_range("--seed", args.seed, 0)
    check_range("--workers", args.workers, 1, MAX_WORKERS)
    check_range("--torch-threads", args.torch_threads, 1)
    full = load_named(args.deal_set)
    if args.deals is not None:
        check_range("--deals", args.deals, 1, len(full), f" (the deals of {full.name})")
    ds = full.head(args.deals) if args.deals is not None else full
    return full, ds


def _check_agents(specs: list[str], flag: str) -> None:
    """Each agent built once here, a bundle's weights and net spec verified, before any work."""
    for spec in specs:
        try:
            make_agent(spec)
        except AgentSpecError as e:
            raise InputError(f"{flag} {spec}: {one_line(e)}") from None


def _run_parser() -> OneLineParser:
    """The command line of ``python -m eval`` (A against B)."""
    p = OneLineParser(prog="python -m eval", description="Seat-rotated duplicate evaluation of A vs B.")
    p.add_argument("--a", required=True, help=AGENT_HELP)
    p.add_argument("--b", required=True, help=AGENT_HELP)
    _common(p)
    p.add_argument("--json", default=None, help="write the report here (atomically)")
    p.add_argument("--png", default=None, help="write the plot here (default: the --json path with .png)")
    p.add_argument("--no-matches", action="store_true", help="skip the matches to 152")
    p.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the deals as Ray tasks (the scale extra): on the cluster at ADDRESS (auto or "
        "HOST:PORT), or without ADDRESS on a private local Ray with --workers CPUs; the "
        "report is the local run's (eval/ray_runner.py)",
    )
    p.add_argument(
        "--save-hands",
        default=None,
        metavar="DB",
        help="store the hands in this SQLite file for the replay viewer (python -m table --db DB, page /replay)",
    )
    p.add_argument(
        "--save-worst",
        type=int,
        default=None,
        metavar="N",
        help="with --save-hands: only the N deals where A lost most",
    )
    return p


def _check_run_outputs(args: argparse.Namespace, png: str | None) -> None:
    """The report, plot and hands database can be written and destroy no input (``InputError``)."""
    if args.json:
        check_output_path(args.json, "--json")
    if png:
        check_png_path(png, "--png")
    if args.save_worst is not None and (args.save_hands is None or args.save_worst < 1):
        raise InputError(f"--save-worst needs --save-hands and a count of at least 1, got {args.save_worst}")
    if args.save_hands:
        check_database(args.save_hands, "--save-hands")
    if args.ray is not None:
        check_ray_address(args.ray, "--ray")
    check_distinct(
        {"--a": args.a, "--b": args.b, "--deal-set": args.deal_set},
        {"--json": args.json, "--png": png, "--save-hands": args.save_hands},
    )
    inputs = [("--a", args.a), ("--b", args.b), ("--deal-set", args.deal_set)]
    for flag, out in (("--json", args.json), ("--png", png), ("--save-hands", args.save_hands)):
        if out:
            check_output(out, flag, inputs, protected_folders())


def run_main(argv: list[str]) -> int:
    p = _run_parser()
    args = p.parse_args(argv)
    _check_agents([args.a], "--a")
    _check_agents([args.b], "--b")
    full, ds = _check_common(args)
    check_rules([args.a, args.b], args.rules, args.other_rules)
    png = args.png or (str(Path(args.json).with_suffix(".png")) if args.json else None)
    _check_run_outputs(args, png)
    run = run_duplicate(
        args.a,
        args.b,
        ds,
        seed=args.seed,
        workers=args.workers,
        matches=not args.no_matches,
        progress=not args.quiet,
        rules=args.rules,
        other_rules=args.other_rules,
        torch_threads=args.torch_threads,
        ray=args.ray,
    )
    report = summarize(run, args.a, args.b, ds, full, args.seed, args.rules.to_dict())
    print(format_table(report))
    if args.json:
        write_json_atomic(args.json, report)
        print(f"\nreport: {args.json}")
    if png:
        print(f"plot: {png}" if plot(report, png) else "plot: skipped (matplotlib is not installed)")
    if args.save_hands:
        n = save_eval_hands(
            args.save_hands, args.a, args.b, ds, run.records, seed=args.seed, worst=args.save_worst, rules=args.rules
        )
        print(f"hands: {n} stored in {args.save_hands} (python -m table --db {args.save_hands}, then /replay)")
    return 0


PROMOTE_EXIT = (
    "Exit status: 0 promoted (the pointer now names the candidate), 1 not promoted (the pointer is"
    " not written), 2 bad input (one line, before any deal is played)."
)


def _promote_parser() -> OneLineParser:
    """The command line of ``python -m eval promote``."""
    p = OneLineParser(
        prog="python -m eval promote",
        description="Promote the candidate if it beats the champion in duplicate (lower 95% bound above 0).",
        epilog=PROMOTE_EXIT,
    )
    p.add_argument("--config", default=None, metavar="FILE", help=CONFIG_HELP)
    p.add_argument("--candidate", required=True, help=AGENT_HELP)
    p.add_argument("--champion", required=True, help="the champion pointer file, or the champion agent itself")
    p.add_argument("--pointer", default=None, help="where to write the pointer (default: see eval.promote)")
    p.add_argument("--history", default=None, help="JSON-lines history (default promotions.jsonl beside the pointer)")
    p.add_argument(
        "--looks",
        type=int,
        default=DEFAULT_LOOKS,
        help=f"sequential looks, 1 to the deals (1 = fixed sample; default {DEFAULT_LOOKS})",
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=ALPHA,
        help=f"one-sided chance of promoting a candidate no better (default {ALPHA})",
    )
    _common(p)
    return p


def _check_promotion_files(args: argparse.Namespace, champion: str, pointer: str, history: str) -> None:
    """The agents, and the pointer and history the promotion writes (``InputError``)."""
    _check_agents([args.candidate], "--candidate")
    _check_agents([champion], "--champion")
    check_rules([args.candidate, champion], args.rules, args.other_rules)
    check_output_path(pointer, "--pointer")
    check_output_path(history, "--history")
    if os.path.lexists(pointer) and read_pointer(pointer) is None:
        raise InputError(f"--pointer {pointer!r} is a file that is not a champion pointer; it is left as it is")
    for flag, out in (("--pointer", pointer), ("--history", history)):
        check_output(out, flag, [("--candidate", args.candidate), ("--deal-set", args.deal_set)], protected_folders())
    check_distinct(
        {"--candidate": args.candidate, "--deal-set": args.deal_set},  # the champion file may be the pointer
        {"--pointer": pointer, "--history": history},
    )
    check_history(history)


def promote_main(argv: list[str]) -> int:
    p = _promote_parser()
    settings_file(p, argv)
    args = p.parse_args(argv)
    _, ds = _check_common(args)
    check_range("--looks", args.looks, 1, len(ds), " (the deals played)")
    cfg = PromotionConfig(
        candidate=args.candidate,
        champion=args.champion,
        pointer=args.pointer,
        history=args.history,
        deal_set=args.deal_set,
        deals=args.deals,
        seed=args.seed,
        workers=args.workers,
        looks=args.looks,
        alpha=args.alpha,
        progress=not args.quiet,
        torch_threads=args.torch_threads,
        rules=args.rules,
        other_rules=args.other_rules,
    )
    champion, pointer, history = resolve_champion(cfg)
    _check_promotion_files(args, champion, pointer, history)
    entry = promote(cfg)
    lo, hi = entry["ci95"]
    verdict = "PROMOTED" if entry["promoted"] else "NOT PROMOTED (champion unchanged)"
    print(
        f"{verdict}: {entry['candidate']} vs {entry['champion']}: mean d {entry['mean']:+.3f}"
        f" [{lo:+.3f}, {hi:+.3f}] over {entry['deals']} deals (look {entry['look']}/{entry['looks']},"
        f" {entry['decision']}); deal set {entry['deal_set']} sha256 {entry['checksum'][:16]}..."
    )
    moved = "moved to the candidate" if entry["promoted"] else "not written"
    print(f"pointer: {entry['pointer']} ({moved})\nhistory: {entry['history']} (the test appended)")
    return 0 if entry["promoted"] else 1


def _league_parser() -> OneLineParser:
    """The command line of ``python -m eval league``."""
    p = OneLineParser(
        prog="python -m eval league",
        description="Round-robin duplicate with Elo ratings, time per decision and network size: a strength ladder.",
    )
    p.add_argument("--agents", nargs="+", required=True, help=AGENT_HELP + " (two or more, all different)")
    p.add_argument("--json", default=None, help="write the league report here")
    p.add_argument(
        "--time-positions",
        type=int,
        default=DEFAULT_TIME_POSITIONS,
        metavar="N",
        help=f"time every agent on the same N decisions drawn from the deals (default "
        f"{DEFAULT_TIME_POSITIONS}; 0 skips the timing)",
    )
    p.add_argument(
        "--pairs-dir",
        default=None,
        metavar="DIR",
        help="save each finished pair here, and reuse the pairs saved by an earlier run with the "
        "same agents, deals and seed (a killed ladder resumes)",
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="PATH.png",
        help="write a PNG: the matrix of mean d as a heatmap and the Elo ratings as bars",
    )
    _common(p)
    return p


def league_main(argv: list[str]) -> int:
    args = _league_parser().parse_args(argv)
    if len(args.agents) < 2 or len(set(args.agents)) != len(args.agents):
        raise InputError(f"--agents needs at least two different agents, got {args.agents}")
    _check_agents(args.agents, "--agents")
    full, ds = _check_common(args)
    check_rules(args.agents, args.rules, args.other_rules)
    check_range("--time-positions", args.time_positions, 0)
    if args.json:
        check_output_path(args.json, "--json")
    if args.plot:
        check_output_path(args.plot, "--plot")
    if args.pairs_dir:
        check_output_dir(args.pairs_dir, "--pairs-dir")
    rep = league(
        args.agents,
        ds,
        full.checksum,
        seed=args.seed,
        workers=args.workers,
        progress=not args.quiet,
        torch_threads=args.torch_threads,
        time_positions=args.time_positions,
        pairs_dir=args.pairs_dir,
        rules=args.rules,
        other_rules=args.other_rules,
    )
    print(format_league(rep))
    if args.json:
        write_json_atomic(args.json, rep)
        print(f"\nreport: {args.json}")
    if args.plot:
        print(f"plot: {args.plot}" if plot_league(rep, args.plot) else "plot: skipped (matplotlib is not installed)")
    return 0


def export_main(argv: list[str]) -> int:
    # imported here: export needs torch and onnx, which the rest of evaluation does not load
    from agents.neural.export import ExportError

    try:
        return run_export(argv)
    except ExportError as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = {"promote": promote_main, "league": league_main, "export": export_main}.get(argv[0] if argv else "", None)
    try:
        if command is not None:
            return command(argv[1:])
        return run_main(argv)
    except (AgentSpecError, DealSetError, PromotionError, AgentError, ValueError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
