"""``python -m train``: PPO self-play training (see docs/training.md).

Examples:
    python -m train --config configs/default.yaml
    python -m train --config configs/strong.yaml --set ppo.total_steps=2000000 --set seed=3
    python -m train --resume runs/default          # continue a killed run
    python -m train --backend rllib --config configs/rllib.yaml [--address auto|HOST:PORT]   # RLlib, Ray
    python -m train curve runs/expert_s0 runs/expert_s1 --png runs/curve.png   # evaluations by round

The subcommands ``calls``, ``distill``, ``expert``, ``curve`` and ``noise`` have their own ``--help``.

Every input is checked before any work starts (the config and every file and deal set it names,
``train.config.validate``; the run folder; for ``--resume`` the saved config and a checkpoint):
a bad one ends the command with exit code 2 and one line ``error: ...`` on stderr, and no run
folder is created.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from baloot_cli import InputError, OneLineParser, one_line
from baloot_env.errors import ConfigError
from eval.ray_runner import check_ray_address
from train.call_iteration import main as calls_main
from train.checkpoint import CheckpointError, latest_checkpoint, load_checkpoint
from train.config import TrainConfig, config_help
from train.curve import main as curve_main
from train.distill import main as distill_main
from train.expert import main as expert_main
from train.rllib import SCALE_HINT, ray_available
from train.rllib import checkpoint as rllib_checkpoint
from train.rllib.config import is_rllib_config, load_rllib_config, rllib_config_help
from train.run import load_run_config, run_training
from train.skeleton import check_run_dir
from train.teacher_noise import main as noise_main

DEFAULT_CONFIG = "configs/default.yaml"
DEFAULT_RLLIB_CONFIG = "configs/rllib.yaml"
BACKENDS = ("sb3", "rllib")
RESUME_HELP = (
    "continue the run in RUN_DIR from its latest checkpoint, with the config saved in RUN_DIR/config.yaml "
    "(so --config, --set and --run-dir are refused with it)"
)


def resume_backend(resume: str) -> str:
    """The backend that wrote the run folder ``resume`` (its saved config has ``rllib:`` or not)."""
    return "rllib" if is_rllib_config(Path(resume) / "config.yaml") else "sb3"


def check_inputs(config: str | None, overrides: list[str], resume: str | None) -> TrainConfig:
    """Everything ``run_training`` will read, checked up front; returns the run's config (read
    and validated once, ``train.run.load_run_config``).

    Raises:
        ConfigError, CheckpointError, InputError: naming the input and the problem.
    """
    if resume:
        run_dir = Path(resume)
        if not run_dir.is_dir():
            raise InputError(f"--resume {resume}: no such run folder")
        if not (run_dir / "config.yaml").is_file():
            raise InputError(f"--resume {resume}: no config.yaml in it (not a run folder of python -m train)")
        load_checkpoint(latest_checkpoint(run_dir))  # CheckpointError: none, corrupt, or forged counters
        return load_run_config(None, overrides, resume)
    cfg = load_run_config(config, overrides, None)
    check_run_dir(cfg.run_dir)
    return cfg


def _check_rllib_inputs(config: str | None, overrides: list[str], resume: str | None) -> None:
    if not ray_available():
        raise InputError(f"--backend rllib: Ray is not installed; {SCALE_HINT}")
    if resume:
        run_dir = Path(resume)
        try:
            rllib_checkpoint.read_state(rllib_checkpoint.latest_checkpoint(run_dir))  # and its counters
        except CheckpointError as e:
            raise InputError(f"--resume {resume}: {e}") from None
        load_rllib_config(run_dir / "config.yaml", [*overrides, f"run_dir={resume}"], fresh=False)
        return
    cfg = load_rllib_config(config, overrides)
    check_run_dir(cfg.run_dir)


SUBCOMMANDS = {
    "calls": calls_main,
    "distill": distill_main,
    "expert": expert_main,
    "curve": curve_main,
    "noise": noise_main,
}


def parser() -> OneLineParser:
    """The command line of a training run."""
    p = OneLineParser(
        prog="python -m train",
        description="PPO self-play for Baloot.",
        epilog=config_help() + "\n" + rllib_config_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--config",
        default=None,
        help=f"YAML config ({DEFAULT_CONFIG} if omitted; keys it leaves out take the defaults below)",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value, e.g. --set ppo.total_steps=50000 (repeatable)",
    )
    p.add_argument("--resume", metavar="RUN_DIR", help=RESUME_HELP)
    p.add_argument("--run-dir", help="shorthand for --set run_dir=...")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default=None,
        help="sb3 (default: stable-baselines3 on this machine) or rllib (Ray RLlib, the scale "
        "extra); --resume takes the backend of the run folder",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="auto|HOST:PORT",
        help="--backend rllib: the Ray cluster to join (default: a private local Ray)",
    )
    return p


def check_flags(args: argparse.Namespace, backend: str) -> None:
    """The flags agree with each other and with the run folder (``--run-dir`` joins the overrides).

    Raises:
        InputError: naming the flags and why they cannot go together.
    """
    if args.resume and args.backend and args.backend != resume_backend(args.resume):
        raise InputError(
            f"--resume {args.resume} is a {resume_backend(args.resume)} run; --backend {args.backend} cannot continue it"
        )
    if backend == "sb3" and args.config and is_rllib_config(args.config):
        raise InputError(f"{args.config} has an rllib: section, a config of the RLlib backend: add --backend rllib")
    if args.address is not None:
        if backend != "rllib":
            raise InputError("--address joins a Ray cluster; it needs --backend rllib")
        check_ray_address(args.address, "--address")
    if args.resume is not None:
        given = (("--config", args.config), ("--set", args.overrides), ("--run-dir", args.run_dir is not None))
        refused = [flag for flag, value in given if value]
        if refused:
            raise InputError(
                f"--resume continues the run with the config saved in {args.resume}/config.yaml; "
                f"{' and '.join(refused)} cannot change it (start a new run instead)"
            )
    if args.run_dir is not None:
        if not args.run_dir.strip():
            raise InputError(f"--run-dir must be a folder path, got {args.run_dir!r}")
        args.overrides.append(f"run_dir={args.run_dir}")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    args = parser().parse_args(argv)
    backend = args.backend or (resume_backend(args.resume) if args.resume else "sb3")
    config = args.config
    if config is None and not args.resume:
        config = DEFAULT_RLLIB_CONFIG if backend == "rllib" else DEFAULT_CONFIG
    try:
        check_flags(args, backend)
        if backend == "rllib":
            _check_rllib_inputs(config, args.overrides, args.resume)
            # needs ray (the scale extra): only with --backend rllib
            from train.rllib.backend import run_rllib_training

            run_rllib_training(config, args.overrides, args.resume, quiet=args.quiet, address=args.address)
        else:
            cfg = check_inputs(config, args.overrides, args.resume)
            run_training(cfg, resume=args.resume is not None, quiet=args.quiet)
    except (ConfigError, CheckpointError, InputError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
