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

import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.neural.bundle import BundleError, bundle_rules, load_net, save_bundle
from agents.neural.network import BalootNet
from agents.neural.policy import PolicyAgent
from agents.rule_based.heuristic import HeuristicAgent
from agents.search_player.player import SearchAgent, SearchConfig
from baloot_cli import CONFIG_HELP, InputError, OneLineParser, config_flags, one_line, settings_file
from baloot_env.cards import cards_of
from baloot_env.config import from_mapping
from baloot_env.driver import DealSource, Table
from baloot_env.errors import ConfigError
from baloot_env.hand import BIDDING, DOUBLING
from baloot_env.loop import play_hands
from baloot_env.rules import RuleConfig
from baloot_env.seats import team_of
from baloot_env.view import PlayerView
from train.config import CallsConfig, iter_fields, validate_calls
from train.supervised import Fit, fit

HELD_OUT = 0.05


COMMAND_POSITIONS = 20_000  # ``python -m train calls``'s positions when the trainer's default is off


@dataclass(frozen=True)
class CallIterationConfig:
    """One step on a bundle (``python -m train calls``): the policy, where to write, the seed, and
    the step's settings (``train.config.CallsConfig``, the trainer's ``calls`` section)."""

    policy: str = field(default="policies/champion", metadata={"help": "the policy bundle to improve"})
    out: str = field(default="runs/calls", metadata={"help": "output folder: bundle/ and summary.json"})
    seed: int = field(default=0, metadata={"help": "seeds the hands, the searches and the training"})
    calls: CallsConfig = field(
        default_factory=lambda: CallsConfig(positions=CallsConfig().positions or COMMAND_POSITIONS)
    )

    def __post_init__(self) -> None:
        if self.seed < 0:
            raise ConfigError(f"seed must be >= 0, got {self.seed!r}")
        validate_calls(self.calls)
        if self.calls.positions < 1:
            raise ConfigError(f"calls.positions must be >= 1 here, got {self.calls.positions}")

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

    def new_hand() -> Callable[[PlayerView], int]:
        other = heuristic if rng.random() < heuristic_share else policy
        teams: list[Agent] = [policy, other] if rng.random() < 0.5 else [other, policy]
        policy.reset(int(rng.integers(2**62)))
        return lambda view: teams[team_of(view.seat)].act(view)

    def calls_over(view: PlayerView) -> bool:
        return view.phase not in (BIDDING, DOUBLING)

    for turn in play_hands(table, new_hand, lambda: len(views) >= count, until=calls_over):
        if len(cards_of(turn.view.legal_mask)) > 1 and len(views) < count:
            views.append(turn.view)
    return views


def searched_labels(views: list[PlayerView], calls: CallsConfig, seed: int, quiet: bool) -> np.ndarray:
    """The searched call of every view (``SearchAgent.choose_call``, seeded per position)."""
    search_cfg = SearchConfig(worlds=calls.worlds, calls="searched", condition=calls.condition)
    labels = np.zeros(len(views), dtype=np.int64)
    t0 = time.perf_counter()
    for i, view in enumerate(views):
        labels[i] = SearchAgent(seed * 1_000_003 + i, search_cfg).choose_call(view)
        if (i + 1) % 1000 == 0:
            rate = (i + 1) / (time.perf_counter() - t0)
            _log(f"labelled {i + 1:,}/{len(views):,} ({rate:.0f}/s)", quiet)
    return labels


def _agreement(net: BalootNet, obs: torch.Tensor, masks: torch.Tensor, labels: torch.Tensor) -> float:
    with torch.no_grad():
        logits, _ = net(obs, masks)
    return float((logits.argmax(dim=1) == labels).float().mean())


def train_bid_head(
    net: BalootNet, obs: np.ndarray, masks: np.ndarray, labels: np.ndarray, calls: CallsConfig, seed: int, quiet: bool
) -> dict[str, float]:
    """Fit ``net.bid_head`` to ``labels`` (everything else frozen); returns the held-out agreement
    before and after."""
    cfg = calls
    gen = np.random.default_rng(seed)
    order = gen.permutation(len(labels))
    n_held = max(1, int(len(labels) * HELD_OUT))
    held, rows = order[:n_held], order[n_held:]
    o, m, y = torch.from_numpy(obs), torch.from_numpy(masks), torch.from_numpy(labels)
    before = _agreement(net, o[held], m[held], y[held])
    for p in net.parameters():
        p.requires_grad_(False)
    for p in net.bid_head.parameters():
        p.requires_grad_(True)

    def batch_loss(idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        logits, _ = net(o[idx], m[idx])
        loss = torch.nn.functional.cross_entropy(logits, y[idx])
        return loss, {"loss": float(loss.detach()) * len(idx)}

    def after_epoch(epoch: int, means: dict[str, float]) -> None:
        if epoch == cfg.epochs - 1 or (epoch + 1) % 5 == 0:
            acc = _agreement(net, o[held], m[held], y[held])
            _log(f"epoch {epoch + 1}/{cfg.epochs}: loss {means['loss']:.3f}, held-out agreement {acc:.1%}", quiet)

    how = Fit(cfg.epochs, cfg.batch_size, cfg.learning_rate)
    fit(
        net.bid_head.parameters(),
        how,
        lambda epoch: torch.from_numpy(rows[gen.permutation(len(rows))]),
        batch_loss,
        after_epoch,
    )
    for p in net.parameters():
        p.requires_grad_(True)
    return {
        "held_out": n_held,
        "agreement_before": before,
        "agreement_after": _agreement(net, o[held], m[held], y[held]),
    }


def improve_calls(net: BalootNet, rules: RuleConfig, calls: CallsConfig, seed: int, quiet: bool) -> dict[str, Any]:
    """Steps 1-3 of the module docstring on ``net`` in place (its bid head); returns the fit.

    The network samples its calls from its policy while the positions are collected (varied
    positions); torch's global generator is not drawn from, so a caller's run stays reproducible.
    """
    t0 = time.perf_counter()
    net.eval()
    policy = PolicyAgent(net, {"name": "policy"}, seed=seed, deterministic=False)
    views = collect_call_views(calls.positions, policy, calls.heuristic_share, rules, seed)
    _log(f"{len(views):,} call positions collected in {time.perf_counter() - t0:.0f} s", quiet)
    labels = searched_labels(views, calls, seed, quiet)
    obs = np.stack([v.observation() for v in views]).astype(np.float32)
    masks = np.stack([v.action_mask() for v in views]).astype(np.int8)
    fit = train_bid_head(net, obs, masks, labels, calls, seed, quiet)
    fit["positions"] = len(views)
    fit["seconds"] = time.perf_counter() - t0
    _log(
        f"held-out agreement with the searched calls {fit['agreement_before']:.1%} -> "
        f"{fit['agreement_after']:.1%} ({fit['seconds']:.0f} s)",
        quiet,
    )
    return fit


def run(cfg: CallIterationConfig, quiet: bool = False) -> dict[str, Any]:
    """The whole step on a bundle (module docstring); returns the summary written to ``out/summary.json``."""
    t_start = time.perf_counter()
    torch.set_num_threads(1)
    net, manifest = load_net(cfg.policy)
    rules = bundle_rules(manifest)
    fit = improve_calls(net, rules, cfg.calls, cfg.seed, quiet)
    base = {"name": manifest["name"], "path": cfg.policy, "weights_sha256": manifest["weights_sha256"]}
    bundle = save_bundle(
        Path(cfg.out) / "bundle",
        net,
        name=f"calls-{manifest['name']}",
        rules=rules,
        training={"call_iteration": cfg.to_dict(), "fit": fit},
        extra={"base_policy": base},
    )
    summary = {
        "bundle": str(bundle),
        "base_policy": base,
        "positions": fit["positions"],
        "fit": fit,
        "seconds": time.perf_counter() - t_start,
        "config": cfg.to_dict(),
    }
    (Path(cfg.out) / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    _log(f"bundle {bundle} ({summary['seconds']:.0f} s)", quiet)
    return summary


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--policy``, ``--out``, ``--seed`` and every ``CallsConfig`` field as a flag,
    or any of them from ``--config FILE`` (``CallIterationConfig``'s keys, the step's settings in
    its ``calls`` section); bad input gives exit code 2 and one line ``error: ...`` before any work."""

    d = CallIterationConfig()
    p = OneLineParser(prog="python -m train calls", description=(__doc__ or "").splitlines()[0])
    p.add_argument("--config", default=None, metavar="FILE", help=CONFIG_HELP)
    config_flags(p, CallIterationConfig, ("policy", "out", "seed"))
    config_flags(p, CallsConfig, [key for key, _, _ in iter_fields(CallsConfig)], d.calls)
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        settings_file(p, argv, nested=("calls",))
    except InputError as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    a = p.parse_args(argv)
    try:
        calls = {key: getattr(a, key) for key, _, _ in iter_fields(CallsConfig)}
        values = {"policy": a.policy, "out": a.out, "seed": a.seed, "calls": calls}
        cfg = from_mapping(CallIterationConfig, values, "calls setting")
        load_net(cfg.policy)
        Path(cfg.out).mkdir(parents=True, exist_ok=True)
    except (ValueError, BundleError, OSError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    run(cfg, a.quiet)
    return 0
