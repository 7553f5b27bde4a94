"""Train a policy with sb3-contrib's ``MaskablePPO`` on the public vector env ``BalootVecEnv``.

    python examples/train_maskable_ppo.py                       # a tiny run (about a minute)
    python examples/train_maskable_ppo.py --steps 1000000 --envs 64 --save runs/ppo_example

The learner plays both seats of one team (drawn per game), ``--opponents`` the other team; the
vector env batches the opponents' decisions across the games and gives ``MaskablePPO`` the legal
actions through ``action_masks()``. At the end the greedy policy plays ``--eval-episodes`` more
episodes on fresh deals and the mean reward per episode is printed ("diff": the hand's score
difference / 44, so 0 is level with the opponents). ``python -m train`` is the full recipe
(warm start, self-play pool, promotion tests); this is the shortest way in.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from baloot_env.vector import BalootVecEnv


def evaluate(model: MaskablePPO, venv: BalootVecEnv, episodes: int) -> float:
    """Mean reward per episode of the greedy policy (each game's episodes until ``episodes`` end)."""
    obs = venv.reset()
    returns: list[float] = []
    while len(returns) < episodes:
        actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
        obs, _, _, infos = venv.step(actions)
        returns += [info["episode"]["r"] for info in infos if "episode" in info]
    return float(np.mean(returns[:episodes]))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=4096, help="learner decisions to train, all games together")
    p.add_argument("--envs", type=int, default=16, help="games in lockstep")
    p.add_argument("--opponents", default="heuristic", help="random, heuristic, search or a policy bundle folder")
    p.add_argument("--learner", choices=["team", "seat"], default="team", help="one team or one seat")
    p.add_argument("--episode", choices=["hand", "match"], default="hand")
    p.add_argument("--eval-episodes", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", help="save the trained model here (SB3's zip)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)  # small networks: one thread is fastest, and leaves the other cores free

    def make_env(seed: int) -> BalootVecEnv:
        return BalootVecEnv(args.envs, learner=args.learner, opponents=args.opponents, episode=args.episode, seed=seed)

    venv = make_env(args.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, seed=args.seed, device="cpu")
    model.learn(total_timesteps=args.steps)
    mean = evaluate(model, make_env(args.seed + 1), args.eval_episodes)
    print(
        f"trained {model.num_timesteps:,} decisions; greedy policy vs {args.opponents}: "
        f"{mean:+.3f} mean reward per {args.episode} over {args.eval_episodes} episodes"
    )
    if args.save:
        model.save(args.save)
        print(f"saved {args.save if args.save.endswith('.zip') else args.save + '.zip'}")


if __name__ == "__main__":
    main()
