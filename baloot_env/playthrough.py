"""Golden playthroughs (after OpenSpiel): a whole seeded game printed step by step.

Each step shows the acting seat, its legal actions, the action taken, and every seat's view of
the public state (the non-zero observation pieces, by name), so a golden file in
``tests/baloot_env/golden/`` pins the rules, the observation layout and the rewards at once. A change that
alters any of them shows up as a readable diff; regenerate with
``python -m baloot_env.playthrough SEED > tests/baloot_env/golden/playthrough_SEED.txt`` after checking it.
"""

from __future__ import annotations

import random
import sys

import numpy as np

from baloot_env.actions import action_name
from baloot_env.aec import raw_env
from baloot_env.observation import PIECES, piece_slice
from baloot_env.render import render_hand


def _pieces(obs: np.ndarray) -> str:
    parts = []
    for p in PIECES:
        v = obs[piece_slice(p.name)]
        nz = np.flatnonzero(v)
        if len(nz):
            vals = ",".join(f"{i}" if v[i] == 1.0 else f"{i}={v[i]:.3f}" for i in nz)
            parts.append(f"{p.name}[{vals}]")
    return " ".join(parts)


def playthrough(seed: int, episode: str = "hand") -> str:
    """The text of one seeded game with seeded random legal moves."""
    e = raw_env(episode=episode)
    e.reset(seed=seed)
    rng = random.Random(seed)
    lines = [f"# baloot_v0 playthrough, seed {seed}, episode {episode}"]
    step = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            lines.append(f"end {agent}: reward {reward:+.4f}")
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        action = rng.choice(legal)
        lines.append(f"step {step} {agent} legal [{' '.join(action_name(a) for a in legal)}] -> {action_name(action)}")
        for other in e.possible_agents:
            lines.append(f"  view {other}: {_pieces(e.observe(other)['observation'])}")
        e.step(action)
        step += 1
        if "hand_result" in e.infos[agent]:
            lines.append(f"hand_result {e.infos[agent]['hand_result']}")
    lines.append(render_hand(e.unwrapped.hand))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(playthrough(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
