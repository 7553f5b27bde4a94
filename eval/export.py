"""``python -m eval export``: the command line of the ONNX export.

The export itself lives beside the bundles it reads, in ``agents.neural.export``.
"""

from __future__ import annotations

import json
from pathlib import Path

from agents.neural.export import (
    MIN_OPSET,
    ExportError,
    export_onnx,
    manifest_path,
    max_opset,
    time_onnx,
    verify_export,
)
from agents.rule_based.heuristic import HeuristicAgent
from baloot_cli import OneLineParser, check_output_path, check_range
from baloot_io.atomic import write_text_atomic

SAMPLE_POSITIONS = 16  # what ``--positions`` writes: enough to see the picks, small enough to read


def write_positions(path: str, count: int) -> None:
    """``count`` decisions of ``heuristic`` self-play (seed 1) as ``{"observations": [[697
    floats], ...], "masks": [[42 ints], ...]}``, the input of ``examples/node/pick.js``."""
    # needs torch (the train extra): imported only when a network is used
    from agents.neural.positions import collect_positions

    pos = collect_positions(count, [HeuristicAgent(0)], seed=1)
    data = {"observations": pos.observations.tolist(), "masks": pos.masks.astype(int).tolist()}
    write_text_atomic(path, json.dumps(data) + "\n")


MAX_POSITIONS = 100_000  # positions played for --check or --time: about a minute; more proves no more


def _parser() -> OneLineParser:
    """The command line of ``python -m eval export``."""
    p = OneLineParser(prog="python -m eval export", description="Export a policy bundle to ONNX (manifest beside it).")
    p.add_argument("--policy", required=True, help="the policy bundle folder")
    p.add_argument("--out", required=True, help="the .onnx file to write; the manifest goes beside it (.manifest.json)")
    p.add_argument(
        "--opset", type=int, default=MIN_OPSET, help=f"ONNX opset ({MIN_OPSET} to {max_opset()}, default {MIN_OPSET})"
    )
    p.add_argument(
        "--check",
        type=int,
        default=1000,
        metavar="N",
        help=f"compare onnxruntime with torch on N real positions (0: skip; at most {MAX_POSITIONS:,}; default 1000)",
    )
    p.add_argument(
        "--time",
        type=int,
        default=0,
        metavar="N",
        help=f"also time N decisions on one core (at most {MAX_POSITIONS:,}; default 0)",
    )
    p.add_argument(
        "--positions",
        default=None,
        metavar="FILE",
        help=f"also write {SAMPLE_POSITIONS} real positions as JSON, the input of examples/node/pick.js",
    )
    return p


def export_main(argv: list[str]) -> int:
    """``python -m eval export --policy BUNDLE --out model.onnx [--opset 17] [--check N] [--time N] [--positions FILE]``.

    Every input (bundle, output paths, opset, counts) is checked before the export; a bad one
    raises a ``ValueError`` (``python -m eval`` prints it as one line and exits with 2).
    """

    # needs torch (the train extra): imported only when a network is used
    from agents.neural.bundle import read_manifest

    args = _parser().parse_args(argv)
    check_range("--opset", args.opset, MIN_OPSET, max_opset())
    check_range("--check", args.check, 0, MAX_POSITIONS)
    check_range("--time", args.time, 0, MAX_POSITIONS)
    read_manifest(args.policy)  # BundleError (a ValueError) for a missing or corrupt bundle
    check_output_path(args.out, "--out")
    check_output_path(manifest_path(args.out), "--out (its manifest)")
    if args.positions is not None:
        check_output_path(args.positions, "--positions")
        if Path(args.positions).resolve() in {Path(args.out).resolve(), Path(manifest_path(args.out)).resolve()}:
            raise ValueError(f"--positions {args.positions!r} is the model or its manifest")
    meta = export_onnx(args.policy, args.out, args.opset)
    print(
        f"exported {meta['name']} ({meta['parameters']:,} parameters) to {args.out} (opset {args.opset}, sha256 {meta['onnx']['sha256'][:16]}...)"
    )
    print(f"manifest: {manifest_path(args.out)}")
    if args.positions is not None:
        write_positions(args.positions, SAMPLE_POSITIONS)
        print(f"positions: {args.positions} ({SAMPLE_POSITIONS} decisions of heuristic self-play, seed 1)")
    if args.check or args.time:
        try:
            import onnxruntime  # noqa: F401
        except ImportError:
            print("check and timing skipped: onnxruntime is not installed (pip install onnxruntime)")
            return 0
    if args.check:
        par = verify_export(args.policy, args.out, args.check)
        print(
            f"parity on {par.positions} positions: argmax agrees on {par.argmax_agree}, largest logit difference "
            f"{par.max_logit_diff:.2e} (tolerance {par.logit_tolerance:.1e}), value {par.max_value_diff:.2e}: "
            f"{'OK' if par.ok else 'MISMATCH'}"
        )
        if not par.ok:
            raise ExportError(f"the exported model disagrees with torch: {par}")
    if args.time:
        # needs torch (the train extra): imported only when a network is used
        from agents.neural.positions import collect_positions

        pos = collect_positions(args.time, [HeuristicAgent(0)], seed=1)
        t = time_onnx(args.out, pos.observations, pos.masks)
        print(
            f"onnxruntime, one core: batch 1 median {t['median_ms']:.4f} ms, p90 {t['p90_ms']:.4f} ms per decision "
            f"({t['decisions']} decisions); batches of 256: {t['batched_ms']:.4f} ms per decision"
        )
    return 0
