"""``python -m train calls``: improve a policy's calls by lookahead, then imitate the improved calls.

One step of policy iteration on the calls (R3 bidding, R4 doubling), the part of the game where
the searched calls of ``search`` (``agents.search_player.calls``) beat the heuristic's bars most:

1. **Positions**: seeded hands on the game driver, one team played by the policy (sampled from
   its policy, for variety), the other by the policy or by ``heuristic``; every call decision
   with more than one legal call is kept as the acting seat's ``PlayerView``.
2. **Improvement**: each position's call is chosen by the searched calls (``worlds`` sampled
   deals, conditioned on the calls so far, every legal call played to the hand's end). This is
   the lookahead: the hidden cards are sampled from what the seat knows, so the teacher sees no
   more than the student.
3. **Imitation**: the policy's bid head (the logits of actions 32-41) is trained on those calls
   by cross-entropy over the legal calls; the trunk, the card head and the value head are
   frozen, so the card play stays the policy's to the bit. 5% of the positions are held out to
   report how often the new head and the old one agree with the searched call.
4. **Bundle**: the new weights, with the base policy and this config in the manifest.

Whether the result plays better is measured afterwards by duplicate on development deals
(docs/RESULTS.md). Deterministic for a seed (one torch thread).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import PlayerView
from agents.neural.bundle import BundleError, load_net, save_bundle
from agents.neural.network import BalootNet
from agents.neural.policy import PolicyAgent
from agents.rule_based.heuristic import HeuristicAgent
from agents.search_player.player import SearchAgent, SearchConfig
from baloot_env.cards import cards_of
from baloot_env.driver import DealSource, Table
from baloot_env.hand import BIDDING, DOUBLING
from baloot_env.rules import RuleConfig
from baloot_env.seats import team_of

HELD_OUT = 0.05


@dataclass(frozen=True)
class CallIterationConfig:
    """Settings of one improvement step (every field is a command-line flag)."""

    policy: str = "policies/champion"
    out: str = "runs/calls"
    positions: int = 20_000
    worlds: int = 128
    condition: bool = True
    heuristic_share: float = 0.5
    epochs: int = 20
    batch_size: int = 256
    learning_rate: float = 1e-3
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("positions", "worlds", "epochs", "batch_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if not 0.0 <= self.heuristic_share <= 1.0:
            raise ValueError(f"heuristic_share must be in [0, 1], got {self.heuristic_share!r}")
        if not 0.0 < self.learning_rate < 1.0:
            raise ValueError(f"learning_rate must be in (0, 1), got {self.learning_rate!r}")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(f"[calls {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def collect_call_views(
    count: int, policy: PolicyAgent, heuristic_share: float, rules: RuleConfig, seed: int
) -> list[PlayerView]:
    """``count`` call decisions (bidding or doubling, more than one legal call) from seeded hands:
    team 0 or 1 (drawn) is the policy, the other the policy or, with ``heuristic_share``, ``heuristic``."""
    rng = np.random.default_rng(seed)
    table = Table(rules, "hand", DealSource(rng))
    heuristic = HeuristicAgent(0)
    views: list[PlayerView] = []
    while len(views) < count:
        table.reset()
        other = heuristic if rng.random() < heuristic_share else policy
        teams = [policy, other] if rng.random() < 0.5 else [other, policy]
        policy.reset(int(rng.integers(2**62)))
        while not table.over and table.hand.phase in (BIDDING, DOUBLING):
            view = PlayerView.from_table(table, table.to_act)
            if len(cards_of(view.legal_mask)) > 1 and len(views) < count:
                views.append(view)
            table.apply(teams[team_of(view.seat)].act(view))
    return views


def searched_labels(views: list[PlayerView], cfg: CallIterationConfig, quiet: bool) -> np.ndarray:
    """The searched call of every view (``SearchAgent.choose_call``, seeded per position)."""
    search_cfg = SearchConfig(worlds=cfg.worlds, calls="searched", condition=cfg.condition)
    labels = np.zeros(len(views), dtype=np.int64)
    t0 = time.perf_counter()
    for i, view in enumerate(views):
        labels[i] = SearchAgent(cfg.seed * 1_000_003 + i, search_cfg).choose_call(view)
        if (i + 1) % 1000 == 0:
            rate = (i + 1) / (time.perf_counter() - t0)
            _log(f"labelled {i + 1:,}/{len(views):,} ({rate:.0f}/s)", quiet)
    return labels


def _agreement(net: BalootNet, obs: torch.Tensor, masks: torch.Tensor, labels: torch.Tensor) -> float:
    with torch.no_grad():
        logits, _ = net(obs, masks)
    return float((logits.argmax(dim=1) == labels).float().mean())


def train_bid_head(
    net: BalootNet, obs: np.ndarray, masks: np.ndarray, labels: np.ndarray, cfg: CallIterationConfig, quiet: bool
) -> dict[str, float]:
    """Fit ``net.bid_head`` to ``labels`` (everything else frozen); returns the held-out agreement
    before and after."""
    gen = np.random.default_rng(cfg.seed)
    order = gen.permutation(len(labels))
    n_held = max(1, int(len(labels) * HELD_OUT))
    held, fit = order[:n_held], order[n_held:]
    o, m, y = torch.from_numpy(obs), torch.from_numpy(masks), torch.from_numpy(labels)
    before = _agreement(net, o[held], m[held], y[held])
    for p in net.parameters():
        p.requires_grad_(False)
    for p in net.bid_head.parameters():
        p.requires_grad_(True)
    opt = torch.optim.Adam(net.bid_head.parameters(), lr=cfg.learning_rate)
    for epoch in range(cfg.epochs):
        perm = fit[gen.permutation(len(fit))]
        total = 0.0
        for start in range(0, len(perm), cfg.batch_size):
            idx = torch.from_numpy(perm[start : start + cfg.batch_size])
            logits, _ = net(o[idx], m[idx])
            loss = torch.nn.functional.cross_entropy(logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        if epoch == cfg.epochs - 1 or (epoch + 1) % 5 == 0:
            acc = _agreement(net, o[held], m[held], y[held])
            _log(f"epoch {epoch + 1}/{cfg.epochs}: loss {total / len(perm):.3f}, held-out agreement {acc:.1%}", quiet)
    for p in net.parameters():
        p.requires_grad_(True)
    return {
        "held_out": n_held,
        "agreement_before": before,
        "agreement_after": _agreement(net, o[held], m[held], y[held]),
    }


def run(cfg: CallIterationConfig, quiet: bool = False) -> dict[str, Any]:
    """The whole step (module docstring); returns the summary written to ``out/summary.json``."""
    t_start = time.perf_counter()
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    net, manifest = load_net(cfg.policy)
    rules = RuleConfig.from_dict(manifest.get("rules") or {})
    policy = PolicyAgent(net, manifest, seed=cfg.seed, deterministic=False)
    views = collect_call_views(cfg.positions, policy, cfg.heuristic_share, rules, cfg.seed)
    _log(f"{len(views):,} call positions collected in {time.perf_counter() - t_start:.0f} s", quiet)
    labels = searched_labels(views, cfg, quiet)
    obs = np.stack([v.observation() for v in views]).astype(np.float32)
    masks = np.stack([v.action_mask() for v in views]).astype(np.int8)
    fit = train_bid_head(net, obs, masks, labels, cfg, quiet)
    base = {"name": manifest["name"], "path": cfg.policy, "weights_sha256": manifest["weights_sha256"]}
    bundle = save_bundle(
        Path(cfg.out) / "bundle", net, name=f"calls-{manifest['name']}", rules=manifest.get("rules") or {},
        training={"call_iteration": cfg.to_dict(), "fit": fit}, extra={"base_policy": base},
    )  # fmt: skip
    summary = {
        "bundle": str(bundle),
        "base_policy": base,
        "positions": len(views),
        "fit": fit,
        "seconds": time.perf_counter() - t_start,
        "config": cfg.to_dict(),
    }
    (Path(cfg.out) / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    _log(f"bundle {bundle}: held-out agreement with the searched calls {fit['agreement_before']:.1%} -> "
         f"{fit['agreement_after']:.1%} ({summary['seconds']:.0f} s)", quiet)  # fmt: skip
    return summary


_HELP = {
    "policy": "the policy bundle to improve",
    "out": "output folder: bundle/ and summary.json",
    "positions": "call decisions to label",
    "worlds": "sampled deals per searched call",
    "condition": "keep only deals in which the heuristic makes the calls so far (true/false)",
    "heuristic_share": "share of hands whose other team is heuristic (else the policy)",
    "epochs": "passes over the labelled positions",
    "batch_size": "positions per gradient step",
    "learning_rate": "Adam learning rate of the bid head",
    "seed": "seeds the hands, the searches and the training",
}


def _bool(text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return text.lower() == "true"


def main(argv: list[str] | None = None) -> int:
    """Command line: every ``CallIterationConfig`` field is a flag; bad input gives exit code 2
    and one line ``error: ...`` before any work."""
    from eval.__main__ import OneLineParser, one_line

    defaults = CallIterationConfig()
    p = OneLineParser(prog="python -m train calls", description=(__doc__ or "").splitlines()[0])
    for name, value in defaults.to_dict().items():
        kind = _bool if isinstance(value, bool) else type(value)
        p.add_argument("--" + name.replace("_", "-"), type=kind, default=value, help=f"{_HELP[name]} (default {value})")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    a = p.parse_args(argv)
    try:
        cfg = CallIterationConfig(**{k: getattr(a, k) for k in defaults.to_dict()})
        load_net(cfg.policy)
        Path(cfg.out).mkdir(parents=True, exist_ok=True)
    except (ValueError, BundleError, OSError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    run(cfg, a.quiet)
    return 0
