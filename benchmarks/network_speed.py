"""The policy network's own speed: a training step, and the opponents' stacked pass (issue 24).

Two figures that bound what PPO can do on this machine, without games or SB3 around them:

- a training step of ``BalootNet`` (the default architecture with the privileged critic):
  forward, a policy and a value loss, backward and a fused Adam step, on ``--rows`` rows, in
  fp32 and in bf16 autocast, rows per second on one core; then the same in two processes at
  once (``--pair``), which shows whether the machine's two cores do matrix work side by side;
- the opponents' forward (``agents.neural.network.StackedNets``): ``--nets`` networks of one
  architecture on ``--opponent-rows`` rows spread over them, one forward a net against one
  stacked pass in fp32 and in bf16 (``train.opponents.OpponentPool.act_nets``).

Run: ``.venv/bin/python benchmarks/network_speed.py [--rows 512] [--seconds 6] [--pair]``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import torch

from agents.neural.network import BalootNet, NetSpec, StackedNets


def train_rate(precision: str, rows: int, seconds: float) -> float:
    """Rows per second of training steps (see the module docstring), one torch thread."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    spec = NetSpec(privileged_critic=True)
    net = BalootNet(spec)
    opt = torch.optim.Adam(net.parameters(), 1e-4, fused=True)
    x = (torch.rand(rows, spec.obs_size + 128) < 0.2).float()
    mask = torch.rand(rows, 42) < 0.4
    mask[:, 0] = True

    def step() -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
            logits, value = net(x, mask)
        loss = -torch.log_softmax(logits.float(), -1)[:, 0].mean() + (value.float() ** 2).mean()
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()

    for _ in range(20):
        step()
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        step()
        n += 1
    return n * rows / (time.perf_counter() - start)


def _in_child(args: tuple[str, int, float]) -> float:
    return train_rate(*args)


def stacked_ms(nets: int, rows: int, repeats: int = 300) -> dict[str, float]:
    """Milliseconds a call: a forward a net, the stacked pass in fp32, in bf16."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    spec = NetSpec(privileged_critic=True)
    members = [BalootNet(spec) for _ in range(nets)]
    obs = (torch.rand(rows, spec.obs_size) < 0.2).float()
    mask = torch.rand(rows, 42) < 0.4
    mask[:, 0] = True
    which = torch.arange(rows) % nets
    out: dict[str, float] = {}
    with torch.inference_mode():
        for _ in range(20):
            for k in range(nets):
                members[k].policy_logits(obs[which == k], mask[which == k])
        start = time.perf_counter()
        for _ in range(repeats):
            for k in range(nets):
                members[k].policy_logits(obs[which == k], mask[which == k])
        out["a forward a net"] = (time.perf_counter() - start) / repeats * 1e3
    for name, dtype in (("stacked, fp32", torch.float32), ("stacked, bf16", torch.bfloat16)):
        stack = StackedNets(members, dtype)
        for _ in range(20):
            stack.policy_logits(obs, mask, which)
        start = time.perf_counter()
        for _ in range(repeats):
            stack.policy_logits(obs, mask, which)
        out[name] = (time.perf_counter() - start) / repeats * 1e3
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=512, help="rows of a training step")
    parser.add_argument("--seconds", type=float, default=6.0, help="time per training measurement")
    parser.add_argument("--pair", action="store_true", help="also run each training step in two processes at once")
    parser.add_argument(
        "--nets", type=int, default=9, help="networks in the stack (the pool's 8 snapshots and a champion)"
    )
    parser.add_argument(
        "--opponent-rows", type=int, default=24, help="opponent rows a call (a process's games at a step)"
    )
    args = parser.parse_args()
    if args.rows < 1 or args.seconds <= 0 or args.nets < 1 or args.opponent_rows < 1:
        parser.error("--rows, --nets and --opponent-rows must be positive, --seconds above 0")
    for precision in ("fp32", "bf16"):
        rate = train_rate(precision, args.rows, args.seconds)
        print(f"training step, {precision}, {args.rows} rows, one process: {rate:,.0f} rows/s", flush=True)
        if args.pair:
            with mp.get_context("spawn").Pool(2) as pool:
                rates = pool.map(_in_child, [(precision, args.rows, args.seconds)] * 2)
            print(
                f"training step, {precision}, {args.rows} rows, two processes at once: "
                f"{rates[0]:,.0f} + {rates[1]:,.0f} rows/s",
                flush=True,
            )
    for name, ms in stacked_ms(args.nets, args.opponent_rows).items():
        print(f"opponents, {args.nets} nets, {args.opponent_rows} rows: {name} {ms:.2f} ms a call", flush=True)


if __name__ == "__main__":
    main()
