"""``python -m train``: PPO self-play training (see README "Training").

Examples:
    python -m train --config configs/default.yaml
    python -m train --config configs/strong.yaml --set ppo.total_steps=2000000 --set seed=3
    python -m train --resume runs/default          # continue a killed run

Every input is checked before any work starts (the config and every file and deal set it names,
``train.config.validate``; the run folder; for ``--resume`` the saved config and a checkpoint):
a bad one ends the command with exit code 2 and one line ``error: ...`` on stderr, and no run
folder is created.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eval.__main__ import InputError, OneLineParser, check_output_dir, one_line
from train.checkpoint import CheckpointError, latest_checkpoint
from train.config import ConfigError, config_help, load_config

DEFAULT_CONFIG = "configs/default.yaml"
RESUME_HELP = (
    "continue the run in RUN_DIR from its latest checkpoint, with the config saved in RUN_DIR/config.yaml "
    "(so --config, --set and --run-dir are refused with it)"
)


def check_inputs(config: str | None, overrides: list[str], resume: str | None) -> None:
    """Everything ``run_training`` will read, checked up front.

    Raises:
        ConfigError, CheckpointError, InputError: naming the input and the problem.
    """
    if resume:
        run_dir = Path(resume)
        if not run_dir.is_dir():
            raise InputError(f"--resume {resume}: no such run folder")
        if not (run_dir / "config.yaml").is_file():
            raise InputError(f"--resume {resume}: no config.yaml in it (not a run folder of python -m train)")
        latest_checkpoint(run_dir)  # CheckpointError when there is none
        # fresh=False: init_from served the run's start and is not read again
        load_config(run_dir / "config.yaml", [*overrides, f"run_dir={resume}"], fresh=False)
        return
    cfg = load_config(config, overrides)
    check_output_dir(cfg.run_dir, "run_dir")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "distill":
        from train.distill import main as distill_main

        return distill_main(argv[1:])
    parser = OneLineParser(prog="python -m train", description="PPO self-play for Baloot.", epilog=config_help(),
                           formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--config", default=None,
                        help=f"YAML config ({DEFAULT_CONFIG} if omitted; keys it leaves out take the defaults below)")  # fmt: skip
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. --set ppo.total_steps=50000 (repeatable)")  # fmt: skip
    parser.add_argument("--resume", metavar="RUN_DIR", help=RESUME_HELP)
    parser.add_argument("--run-dir", help="shorthand for --set run_dir=...")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    if args.resume is not None:
        refused = [flag for flag, given in (("--config", args.config), ("--set", args.overrides),
                                            ("--run-dir", args.run_dir)) if given]  # fmt: skip
        if refused:
            print(
                f"error: --resume continues the run with the config saved in {args.resume}/config.yaml; "
                f"{' and '.join(refused)} cannot change it (start a new run instead)",
                file=sys.stderr,
            )
            return 2
    if args.run_dir:
        args.overrides.append(f"run_dir={args.run_dir}")
    config = args.config
    if config is None and not args.resume:
        config = DEFAULT_CONFIG
    try:
        check_inputs(config, args.overrides, args.resume)
    except (ConfigError, CheckpointError, InputError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    from train.run import run_training

    try:
        run_training(config, args.overrides, args.resume, quiet=args.quiet)
    except (ConfigError, CheckpointError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
