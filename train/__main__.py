"""``python -m train``: PPO self-play training (see README "Training").

Examples:
    python -m train --config configs/default.yaml
    python -m train --config configs/strong.yaml --set ppo.total_steps=2000000 --set seed=3
    python -m train --resume runs/default          # continue a killed run
"""

from __future__ import annotations

import argparse
import sys

from train.checkpoint import CheckpointError
from train.config import ConfigError


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "distill":
        from train.distill import main as distill_main

        return distill_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m train", description="PPO self-play for Baloot.")
    parser.add_argument("--config", help="YAML config (configs/default.yaml if omitted)", default=None)
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. --set ppo.total_steps=50000 (repeatable)")  # fmt: skip
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its latest checkpoint")
    parser.add_argument("--run-dir", help="shorthand for --set run_dir=...")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    if args.run_dir:
        args.overrides.append(f"run_dir={args.run_dir}")
    config = args.config
    if config is None and not args.resume:
        config = "configs/default.yaml"
    from train.run import run_training

    try:
        run_training(config, args.overrides, args.resume, quiet=args.quiet)
    except (ConfigError, CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
