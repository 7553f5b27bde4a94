"""Learner decisions per second: the RLlib backend in several layouts against the SB3 backend, on
the same recipe, and where the RLlib backend's time goes.

Same recipe for both: ``configs/default.yaml``'s PPO (128 games, rollouts of 4,096 learner
decisions, minibatch 1,024, 4 epochs, trunk 256-256, the privileged critic, ``ppo.precision``
auto), no warm start, no evaluations, the same opponent pool, one torch thread per process.
The SB3 backend runs as the main job does (``ppo.processes``: 2, the default; ``--set
ppo.processes=1`` for one; the RLlib layouts always take 1). Each RLlib layout
``R:L`` (R EnvRunners, 0: sampling in the driver; L Learner actors, 0: the learner in the
driver) builds its trainer (not timed), runs two PPO iterations to warm up (the core's compile,
the first snapshot), then times whole iterations (collection + update) until ``--steps``
learner decisions, one layout after another on a private Ray with 2 CPUs. Per iteration it
prints the time of sampling (the EnvRunners, in parallel: how fast they collect), of the
learners' update, and the rest (weight sync, metrics); with ``--profile``, a cProfile of the
``0:0`` layout split into our games, the network's forward pass, RLlib's connectors and its
episode bookkeeping.

Run: ``python benchmarks/rllib_speed.py [--steps 32768] [--layouts 0:0 1:0 2:0 0:2] [--sb3]
[--profile]`` (needs the scale extra; run without ``taskset``: the layouts want both cores).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import tempfile
import time

import torch

BASE = [
    "pretrain.positions=0",
    "expert.rounds=0",
    "eval.every=0",
    "eval.promote=false",
    "checkpoint_every=100000000",
    "log_every=100000000",
    "torch_threads=1",
]


def measure_sb3(steps: int, overrides: list[str]) -> str:
    """The SB3 backend's learner decisions/s (``train.trainer.Trainer.train``, its processes), as a line."""
    from train.config import load_config
    from train.trainer import Trainer

    run_dir = tempfile.mkdtemp(prefix="baloot_sb3_speed_")
    try:
        cfg = load_config("configs/default.yaml", [*BASE, *overrides, f"run_dir={run_dir}", f"ppo.total_steps={steps}"])
        with Trainer(cfg, quiet=True) as trainer:
            start = time.perf_counter()
            trainer.train()
            rate = steps / (time.perf_counter() - start)
        return f"sb3, {cfg.ppo.processes} learner process(es): {rate:7,.0f} learner decisions/s"
    finally:
        _remove_run(run_dir)


def measure_rllib(steps: int, runners: int, learners: int, overrides: list[str], profile: bool = False) -> dict:
    import ray.rllib.algorithms.ppo.ppo as ppo_module

    from train.rllib.backend import RLlibTrainer
    from train.rllib.config import load_rllib_config

    spent = {"sampling": 0.0, "learner update": 0.0}

    def timed(part: str, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[part] += time.perf_counter() - t0

        return wrapper

    run_dir = tempfile.mkdtemp(prefix="baloot_rllib_speed_")
    original_sample = ppo_module.synchronous_parallel_sample
    ppo_module.synchronous_parallel_sample = timed("sampling", original_sample)  # PPO's training_step calls it
    try:
        layout = [f"rllib.num_env_runners={runners}", f"rllib.num_learners={learners}"]
        cfg = load_rllib_config(
            "configs/default.yaml", [*BASE, *overrides, *layout, f"run_dir={run_dir}", "ppo.processes=1"]
        )
        with RLlibTrainer(cfg, quiet=True) as trainer:
            group = trainer.algo.learner_group
            group.update = timed("learner update", group.update)

            def iteration() -> int:
                trainer.members.sync(trainer.algo.env_runner_group)
                return int(trainer.algo.train()["env_runners"]["num_env_steps_sampled"])

            for _ in range(2):  # warm-up: the core's compile, the first snapshot reaching the runners
                iteration()
            spent.update({"sampling": 0.0, "learner update": 0.0})
            done, iterations, prof = 0, 0, cProfile.Profile() if profile else None
            start = time.perf_counter()
            while done < steps:
                if prof:
                    prof.enable()
                done += iteration()
                if prof:
                    prof.disable()
                iterations += 1
            seconds = time.perf_counter() - start
            out = {"rate": done / seconds, "iterations": iterations, "decisions": done, "seconds": seconds}
            out.update({k.replace(" ", "_"): v / iterations for k, v in spent.items()})
            out["other"] = seconds / iterations - out["sampling"] - out["learner_update"]
            if prof:
                out["profile"] = categories(prof)
            return out
    finally:
        ppo_module.synchronous_parallel_sample = original_sample
        _remove_run(run_dir)


def _remove_run(run_dir: str) -> None:
    shutil.rmtree(run_dir, ignore_errors=True)
    for leftover in (f"{run_dir}.lock", f"{run_dir}.lock.holder"):
        if os.path.exists(leftover):
            os.remove(leftover)


def categories(prof: cProfile.Profile) -> dict[str, float]:
    """Cumulative seconds of the parts of the profiled iterations (they overlap where nested)."""
    stats = pstats.Stats(prof).stats  # (file, line, name) -> (cc, nc, tottime, cumtime, callers)
    cum: dict[str, float] = {}

    def add(key: str, test) -> None:
        cum[key] = max((v[3] for k, v in stats.items() if test(k)), default=0.0)

    add("iterations", lambda k: k[2] == "training_step" and "ppo.py" in k[0])
    add("sampling", lambda k: k[2] == "_sample" and "single_agent_env_runner" in k[0])
    add("  the games (SelfPlayVectorEnv.step)", lambda k: k[2] == "step" and k[0].endswith("vector_env.py"))
    add("  module forward", lambda k: k[2] == "forward_exploration" and "torch_rl_module" in k[0])
    add("  env-to-module connectors", lambda k: k[2] == "__call__" and "env_to_module_pipeline" in k[0])
    add("  sampling actions", lambda k: k[2] == "__call__" and k[0].endswith("module_to_env/get_actions.py"))
    add("  episodes: add steps", lambda k: k[2] == "add_env_step" and k[0].endswith("single_agent_episode.py"))
    add("  episodes: to numpy", lambda k: k[2] == "to_numpy" and k[0].endswith("single_agent_episode.py"))
    add("learner update", lambda k: k[2] == "update" and k[0].endswith("learner_group.py"))
    add("  learner connectors (batch, GAE)", lambda k: k[2] == "__call__" and "learner_connector_pipeline" in k[0])
    return cum


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=32768, help="learner decisions per measurement")
    parser.add_argument(
        "--layouts",
        nargs="*",
        default=["0:0", "1:0", "2:0", "0:2"],
        metavar="RUNNERS:LEARNERS",
        help="RLlib layouts to measure, in this order (EnvRunners:Learner actors)",
    )
    parser.add_argument("--sb3", action="store_true", help="also measure the SB3 backend (first and last)")
    parser.add_argument("--profile", action="store_true", help="profile the 0:0 layout (sampling in the driver)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="config overrides for both")
    args = parser.parse_args()
    try:
        layouts = [tuple(int(x) for x in lay.split(":")) for lay in args.layouts]
        assert all(len(lay) == 2 and min(lay) >= 0 for lay in layouts)
    except (ValueError, AssertionError):
        parser.error(f"--layouts takes RUNNERS:LEARNERS, e.g. 1:0; got {args.layouts}")
    torch.set_num_threads(1)
    load = os.getloadavg()
    print(f"load average before: {load[0]:.1f}, {os.cpu_count()} cores, torch {torch.__version__}", flush=True)
    if args.sb3:
        print(measure_sb3(args.steps, args.overrides), flush=True)
    import ray

    from eval.ray_runner import start_local_ray

    for runners, learners in layouts:
        start_local_ray(max(2, runners + learners), 256)
        try:
            r = measure_rllib(args.steps, runners, learners, args.overrides, profile=args.profile and runners == 0)
        finally:
            ray.shutdown()
        per = r["decisions"] / r["iterations"]
        print(
            f"rllib {runners} EnvRunner(s), {learners} Learner actor(s): {r['rate']:7,.0f} learner decisions/s; per "
            f"iteration of {per:,.0f} decisions ({r['iterations']}): sampling {r['sampling']:.2f} s "
            f"({per / r['sampling']:,.0f}/s), learner update {r['learner_update']:.2f} s "
            f"({per / r['learner_update']:,.0f}/s), rest {r['other']:.2f} s",
            flush=True,
        )
        for part, s in r.get("profile", {}).items():
            print(f"    {part:<40} {s:7.2f} s")
    if args.sb3:
        print(measure_sb3(args.steps, args.overrides), flush=True)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.1f}")


if __name__ == "__main__":
    main()
