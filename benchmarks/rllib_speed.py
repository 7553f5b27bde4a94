"""Learner decisions per second: the RLlib backend with 0, 1, 2 EnvRunners against the SB3 backend,
on the same config, and where the RLlib backend's time goes.

Same config for both: ``configs/default.yaml``'s PPO (128 games, rollouts of 4,096 learner
decisions, minibatch 1,024, 4 epochs, trunk 256-256, the privileged critic), no warm start, no
evaluations, the same opponent mix, one torch thread per process. Each measurement builds its
trainer first (not timed), then times whole PPO iterations (collection + update) until
``--steps`` learner decisions; one process after another on a private Ray with 2 CPUs.

For RLlib it also prints, per iteration, the time of sampling (the EnvRunners, in parallel), of
the learner's update, and the rest (weight sync, metrics); and with ``--profile``, a cProfile of sampling in the
driver (0 EnvRunners) split into our game (the env: driver, observations, the heuristic's
choices), the network's forward pass, RLlib's connectors, and RLlib's episode bookkeeping.

Run: ``python benchmarks/rllib_speed.py [--steps 16384] [--runners 0 1 2] [--sb3] [--profile]``
(needs the scale extra).
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
    "eval.every=0",
    "eval.promote=false",
    "checkpoint_every=100000000",
    "log_every=100000000",
    "torch_threads=1",
]


def measure_sb3(steps: int, overrides: list[str]) -> dict:
    from train.config import load_config
    from train.trainer import Trainer

    run_dir = tempfile.mkdtemp(prefix="baloot_sb3_speed_")
    try:
        cfg = load_config("configs/default.yaml", [*BASE, *overrides, f"run_dir={run_dir}", f"ppo.total_steps={steps}"])
        with Trainer(cfg, quiet=True) as trainer:
            start = time.perf_counter()
            trainer.model.learn(total_timesteps=steps)
            return {"rate": steps / (time.perf_counter() - start)}
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
        for leftover in (f"{run_dir}.lock", f"{run_dir}.lock.holder"):
            if os.path.exists(leftover):
                os.remove(leftover)


def measure_rllib(steps: int, runners: int, overrides: list[str], profile: bool = False) -> dict:
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
        cfg = load_rllib_config(
            "configs/rllib.yaml", [*BASE, *overrides, f"run_dir={run_dir}", f"rllib.num_env_runners={runners}"]
        )
        with RLlibTrainer(cfg, quiet=True) as trainer:
            group = trainer.algo.learner_group
            group.update = timed("learner update", group.update)
            spent.update({"sampling": 0.0, "learner update": 0.0})
            done, iterations, prof = 0, 0, cProfile.Profile() if profile else None
            start = time.perf_counter()
            while done < steps:
                if prof:
                    prof.enable()
                result = trainer.algo.train()
                if prof:
                    prof.disable()
                done += int(result["env_runners"]["num_module_steps_sampled"]["main"])
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
        shutil.rmtree(run_dir, ignore_errors=True)


def categories(prof: cProfile.Profile) -> dict[str, float]:
    """Cumulative seconds of the parts of an iteration (they overlap where noted)."""
    stats = pstats.Stats(prof).stats  # (file, line, name) -> (cc, nc, tottime, cumtime, callers)
    cum: dict[str, float] = {}

    def add(key: str, test) -> None:
        cum[key] = max((v[3] for k, v in stats.items() if test(k)), default=0.0)

    add("iteration", lambda k: k[2] == "training_step" and "ppo.py" in k[0])
    add("sampling", lambda k: k[2] == "_sample" and "multi_agent_env_runner" in k[0])
    add("env (our game)", lambda k: k[2] == "step" and "sync_vector_multi_agent_env" in k[0])
    add("module forward", lambda k: k[2] == "forward_exploration" and "torch_rl_module" in k[0])
    add("env-to-module connectors", lambda k: k[2] == "__call__" and "env_to_module_pipeline" in k[0])
    add("sampling actions", lambda k: k[2] == "__call__" and k[0].endswith("module_to_env/get_actions.py"))
    add("episodes: add steps", lambda k: k[2] == "add_env_step" and k[0].endswith("multi_agent_episode.py"))
    add("episodes: to numpy", lambda k: k[2] == "to_numpy" and k[0].endswith("multi_agent_episode.py"))
    add("metrics logging", lambda k: k[2] == "_increase_sampled_metrics" and "multi_agent_env_runner" in k[0])
    add("learner update", lambda k: k[2] == "update" and k[0].endswith("learner_group.py"))
    return cum


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=16384, help="learner decisions per measurement")
    parser.add_argument("--runners", type=int, nargs="*", default=[0, 1, 2], help="EnvRunner counts to measure")
    parser.add_argument("--sb3", action="store_true", help="also measure the SB3 backend")
    parser.add_argument("--profile", action="store_true", help="profile the 0-EnvRunner run (sampling in the driver)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="config overrides for both")
    args = parser.parse_args()
    torch.set_num_threads(1)
    load = os.getloadavg()
    print(f"load average before: {load[0]:.1f}, {os.cpu_count()} cores, torch {torch.__version__}")
    if args.sb3:
        r = measure_sb3(args.steps, args.overrides)
        print(f"sb3                 : {r['rate']:7,.0f} learner decisions/s")
    import ray

    from eval.ray_runner import start_local_ray

    for n in args.runners:
        start_local_ray(2, 256)
        try:
            r = measure_rllib(args.steps, n, args.overrides, profile=args.profile and n == 0)
        finally:
            ray.shutdown()
        per = r["decisions"] / r["iterations"]
        print(
            f"rllib {n} EnvRunner(s): {r['rate']:7,.0f} learner decisions/s; per iteration of {per:,.0f} decisions "
            f"({r['iterations']} of them): sampling {r['sampling']:.2f} s ({per / r['sampling']:,.0f}/s), learner "
            f"update {r['learner_update']:.2f} s ({per / r['learner_update']:,.0f}/s), rest {r['other']:.2f} s"
        )
        for part, s in r.get("profile", {}).items():
            print(f"    {part:<26} {s:7.2f} s")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.1f}")


if __name__ == "__main__":
    main()
