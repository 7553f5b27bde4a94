"""How often a network's greedy card in bf16 is its card in fp32 (``netsearch`` param ``precision``).

The network (default the shipped champion) plays every legal-choice card decision of hands
against ``heuristic``; for each, its best legal card by the card head's logits in fp32 and in
bf16 (``policy_leaves.playout_net``) are compared, and one forward pass of 256 rows is timed in
each format on one core.

Run: ``python benchmarks/playout_precision.py [--policy policies/champion] [--positions 6000]``
"""

from __future__ import annotations

import argparse
import time

import torch

from agents.neural.bundle import load_net
from agents.neural.positions import collect_positions
from agents.registry import make_agent
from agents.search_player.policy_leaves import playout_net
from baloot_env.actions import NUM_CARD_ACTIONS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policy", default="policies/champion")
    ap.add_argument("--positions", type=int, default=6000)
    args = ap.parse_args()
    torch.set_num_threads(1)
    net, _ = load_net(args.policy)
    half = playout_net(net, "bf16")
    pos = collect_positions(args.positions, [make_agent(args.policy, 0), make_agent("heuristic", 1)], 5)
    obs = torch.from_numpy(pos.observations)
    legal = torch.from_numpy(pos.masks[:, :NUM_CARD_ACTIONS].astype(bool))
    choice = legal.sum(1) > 1
    obs, legal = obs[choice], legal[choice]
    with torch.inference_mode():
        full = net.card_logits(obs)
        low = half.card_logits(obs.bfloat16()).float()
    best = [torch.where(legal, x, torch.tensor(-torch.inf)).argmax(1) for x in (full, low)]
    same = float((best[0] == best[1]).float().mean())
    print(f"{len(obs):,} card decisions with a choice: the same greedy card in bf16 as in fp32 in {same:.1%}")
    rows = obs[:256]
    for name, model, x in (("fp32", net, rows), ("bf16", half, rows.bfloat16())):
        with torch.inference_mode():
            for _ in range(20):
                model.card_logits(x)
            t0 = time.perf_counter()
            for _ in range(200):
                model.card_logits(x)
        print(f"{name}: {(time.perf_counter() - t0) / 200 * 1e3:.2f} ms a forward pass of {len(x)} rows")


if __name__ == "__main__":
    main()
