"""``python -m train.rllib bundle CHECKPOINT OUT``: an RLlib checkpoint's policy as a bundle.

CHECKPOINT is ``RUN_DIR/checkpoints/step_<N>`` (or ``RUN_DIR``: its latest checkpoint). The
bundle is what ``python -m eval``, ``python -m eval export`` and ``agents.load_policy`` read; its
manifest's ``training`` says ``backend: rllib``. Ray is not needed. Bad input: one line
``error: ...`` on stderr and exit code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agents.neural.bundle import BundleError
from baloot_cli import OneLineParser, check_output_dir, one_line
from train.checkpoint import CheckpointError
from train.rllib.checkpoint import CHECKPOINTS, checkpoint_to_bundle, latest_checkpoint


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m train.rllib", description="RLlib backend tools.")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bundle", help="turn an RLlib checkpoint into a policy bundle")
    b.add_argument("checkpoint", help="RUN_DIR/checkpoints/step_<N>, or RUN_DIR for its latest checkpoint")
    b.add_argument("out", help="the bundle folder to write")
    b.add_argument("--name", default=None, help="the bundle's name (default RUN@STEPS)")
    args = p.parse_args(argv)

    try:
        check_output_dir(args.out, "out")
        ckpt = Path(args.checkpoint)
        if (ckpt / CHECKPOINTS).is_dir():
            ckpt = latest_checkpoint(ckpt)
        out = checkpoint_to_bundle(ckpt, Path(args.out), name=args.name)
    except (CheckpointError, BundleError, ValueError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    print(f"bundle: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
