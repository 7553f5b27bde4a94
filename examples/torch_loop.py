"""A plain PyTorch loop on the public vector env: a small masked policy learns by REINFORCE.

    python examples/torch_loop.py                              # 20 iterations (about a minute)
    python examples/torch_loop.py --iterations 150             # vs random: mean reward from ~0 to ~+0.25
    python examples/torch_loop.py --iterations 1000 --opponents heuristic

No RL library: ``BalootVecEnv`` hands out numpy arrays (observations, legal-action masks,
rewards, dones) and takes a batch of action ids. Illegal actions get a logit of -1e9, so they
are never drawn. In hand episodes a hand's reward comes at the learner's last decision of the
hand, so every decision of the hand is credited with the hand's result (returns without
discount, minus the batch's mean as a baseline); decisions whose hand is still running when a
rollout ends are left out of that update, since their result is not known yet.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from torch import nn

from baloot_env.actions import NUM_ACTIONS
from baloot_env.observation import OBS_SIZE
from baloot_env.vector import BalootVecEnv


class Policy(nn.Module):
    """Observation -> 42 logits, illegal actions masked out."""

    def __init__(self, hidden: int = 128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.ReLU(), nn.Linear(hidden, NUM_ACTIONS))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        return torch.distributions.Categorical(logits=self.net(obs).masked_fill(~mask, -1e9))


def returns_to_go(rewards: np.ndarray, dones: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Undiscounted returns of a rollout (T x N) and which steps' episodes ended inside it."""
    returns, complete = np.zeros_like(rewards), np.zeros(dones.shape, bool)
    ret, ended = np.zeros(rewards.shape[1]), np.zeros(rewards.shape[1], bool)
    for t in reversed(range(len(rewards))):
        ret = rewards[t] + np.where(dones[t], 0.0, ret)  # a new episode starts after a done
        ended = dones[t] | ended
        returns[t], complete[t] = ret, ended
    return returns, complete


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--envs", type=int, default=32, help="games in lockstep")
    p.add_argument("--steps", type=int, default=64, help="learner decisions per game and iteration")
    p.add_argument("--opponents", default="random", help="random, heuristic, search or a policy bundle folder")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    venv = BalootVecEnv(args.envs, learner="team", opponents=args.opponents, seed=args.seed)
    policy = Policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)
    obs = venv.reset()
    for it in range(args.iterations):
        log_probs, rewards, dones, finished = [], [], [], []
        for _ in range(args.steps):
            dist = policy(torch.as_tensor(obs), torch.as_tensor(venv.action_masks()))
            actions = dist.sample()
            obs, reward, done, infos = venv.step(actions.numpy())
            log_probs.append(dist.log_prob(actions))
            rewards.append(reward)
            dones.append(done)
            finished += [info["episode"]["r"] for info in infos if "episode" in info]
        returns, complete = returns_to_go(np.array(rewards), np.array(dones))
        baseline = returns[complete].mean() if complete.any() else 0.0
        advantage = torch.as_tensor(returns - baseline, dtype=torch.float32)
        weight = torch.as_tensor(complete, dtype=torch.float32)
        loss = -(torch.stack(log_probs) * advantage * weight).sum() / weight.sum().clamp(min=1.0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"iteration {it + 1}: {len(finished)} episodes, mean reward {np.mean(finished):+.3f}")


if __name__ == "__main__":
    main()
