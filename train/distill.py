"""``python -m train distill``: a much smaller network that imitates a trained policy.

Why: a game server or a phone wants a policy that answers in microseconds and ships in a few
hundred kilobytes; the champion's trunk is mostly its first layer (697 inputs x 256), so a
student with a narrow trunk has about a tenth of its parameters.

How, in order:

1. Positions (``agents.neural.positions``): seeded hands on the engine, each team played by the teacher
   (sampled from its policy, for variety) or ``heuristic``, with a share ``epsilon`` of random
   legal moves. In later rounds (``rounds`` > 1) the student of the previous round plays too,
   so that the positions include those the student itself reaches (as in DAgger).
2. Labels: the teacher's policy on every position, a masked softmax at ``temperature`` (soft
   targets: exactly 0 on illegal actions), and its value.
3. Training: cross-entropy of the student's masked policy against the soft targets plus
   ``value_weight`` x the squared error to the teacher's value; Adam, minibatches; 5% of the
   positions held out to report the agreement (same greedy action) and the loss.
4. The bundle (``agents.neural.bundle``): its manifest names the teacher (name, SHA-256, parameters)
   and the distillation config; then a duplicate evaluation against the teacher and against
   ``heuristic`` (``train.evaluation.evaluate_bundle``) is written into it.

Deterministic for a seed (one torch thread; the initialisation comes from a forked torch RNG
seeded here, the shuffles from a ``numpy`` generator). Example::

    python -m train distill --teacher policies/champion --out runs/distill
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.neural.bundle import BundleError, bundle_rules, load_net, read_manifest, save_bundle, update_evaluations
from agents.neural.export import export_onnx, time_onnx_models
from agents.neural.network import BalootNet, NetSpec
from agents.neural.policy import PolicyAgent
from agents.neural.positions import collect_positions
from agents.rule_based.heuristic import HeuristicAgent
from agents.shipped import shipped_policies
from baloot_cli import (
    CONFIG_HELP,
    MAX_WORKERS,
    InputError,
    OneLineParser,
    check_output,
    check_range,
    config_flags,
    memory_need,
    one_line,
    settings_file,
)
from baloot_env.config import from_mapping
from baloot_env.rules import RuleConfig
from eval.deals import load_named
from train.evaluation import evaluate_bundle
from train.labels import position_bytes
from train.supervised import Fit, fit

HELD_OUT = 0.05


def _help(text: str) -> dict[str, str]:
    """A ``DistillConfig`` field's help: its flag's help text (``baloot_cli.config_flags``)."""
    return {"help": text}


@dataclass(frozen=True)
class DistillConfig:
    """Settings of one distillation run (every field is a command-line flag)."""

    teacher: str = field(metadata=_help("the teacher policy bundle (e.g. policies/champion)"))
    out: str = field(default="runs/distill", metadata=_help("output folder: bundle/, summary.json, onnx/"))
    positions: int = field(default=150_000, metadata=_help("positions in all rounds"))
    rounds: int = field(default=3, metadata=_help("collection rounds; more than 1 adds the student's own play"))
    epochs: int = field(default=5, metadata=_help("epochs per round"))
    batch_size: int = field(default=256, metadata=_help("positions per gradient step"))
    learning_rate: float = field(default=3e-3, metadata=_help("Adam's learning rate"))
    trunk: tuple[int, ...] = field(default=(40,), metadata=_help("the student's trunk widths, e.g. '40' or '64,64'"))
    head_hidden: int = field(default=32, metadata=_help("the student's head width"))
    value_hidden: tuple[int, ...] = field(default=(32,), metadata=_help("the student's value widths"))
    cards: str = field(
        default="flat",
        metadata=_help("how the student reads the card-set pieces: flat, cards or suits (agents.neural.card_inputs)"),
    )
    card_width: int = field(default=8, metadata=_help("the student's features per card (cards) or per suit (suits)"))
    temperature: float = field(default=1.0, metadata=_help("of the teacher's soft targets"))
    value_weight: float = field(default=0.5, metadata=_help("of the value loss"))
    epsilon: float = field(default=0.05, metadata=_help("share of random legal moves in collection"))
    eval_deal_set: str = field(default="standard960", metadata=_help("the deal set of the final evaluation"))
    eval_deals: int = field(default=256, metadata=_help("duplicate deals per opponent (0: skip)"))
    eval_workers: int = field(default=1, metadata=_help("evaluation worker processes"))
    onnx_timing: int = field(default=2000, metadata=_help("decisions to time in ONNX (0: skip)"))
    seed: int = field(default=0, metadata=_help("seeds the positions, the fit and the evaluation"))
    torch_threads: int = field(default=1, metadata=_help("torch threads of this process"))

    def __post_init__(self) -> None:
        problems = []
        if self.positions < 200:
            problems.append(f"positions must be >= 200, got {self.positions}")
        if not 1 <= self.rounds <= 10:
            problems.append(f"rounds must be 1-10, got {self.rounds}")
        if self.epochs < 1 or self.batch_size < 1 or self.learning_rate <= 0:
            problems.append("epochs, batch_size and learning_rate must be positive")
        if not self.trunk or min(self.trunk) < 1 or self.head_hidden < 1:
            problems.append(f"trunk and head_hidden need positive widths, got {self.trunk}, {self.head_hidden}")
        if self.temperature <= 0 or self.value_weight < 0 or not 0 <= self.epsilon <= 1:
            problems.append("temperature must be > 0, value_weight >= 0 and epsilon in [0, 1]")
        if problems:
            raise ValueError("distillation config: " + "; ".join(problems))
        self.spec()  # ValueError naming the field for an architecture that cannot be built

    def spec(self) -> NetSpec:
        """The student's architecture."""
        return NetSpec(
            trunk=self.trunk,
            head_hidden=self.head_hidden,
            value_hidden=self.value_hidden,
            cards=self.cards,
            card_width=self.card_width,
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def _log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(f"[distill] {msg}", file=sys.stderr, flush=True)


def count_parameters(net: torch.nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())


def teacher_targets(
    teacher: BalootNet, obs: np.ndarray, masks: np.ndarray, temperature: float
) -> tuple[np.ndarray, np.ndarray]:
    """The teacher's soft policy at ``temperature`` (0 on illegal actions) and its value, in batches."""
    probs, values = [], []
    with torch.no_grad():
        for lo in range(0, len(obs), 4096):
            o, m = torch.from_numpy(obs[lo : lo + 4096]), torch.from_numpy(masks[lo : lo + 4096])
            logits, value = teacher(o, m)
            p = torch.softmax(logits / temperature, dim=1) * m.bool()
            probs.append((p / p.sum(dim=1, keepdim=True)).numpy())
            values.append(value.numpy())
    return np.concatenate(probs).astype(np.float32), np.concatenate(values).astype(np.float32)


def _loss(
    student: BalootNet,
    o: torch.Tensor,
    m: torch.Tensor,
    p: torch.Tensor,
    v: torch.Tensor,
    value_weight: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    logits, value = student(o, m)
    logq = torch.log_softmax(logits, dim=1)
    policy_loss = -(p * torch.where(m.bool(), logq, torch.zeros_like(logq))).sum(dim=1).mean()
    value_loss = torch.mean((value - v) ** 2)
    agree = (logits.argmax(dim=1) == p.argmax(dim=1)).float().mean()
    return policy_loss + value_weight * value_loss, agree


def train_student(
    student: BalootNet,
    data: dict[str, np.ndarray],
    cfg: DistillConfig,
    rng: np.random.Generator,
    quiet: bool,
    label: str,
) -> dict[str, float]:
    """Minibatch Adam on the soft targets; returns the held-out loss and agreement of the last epoch.

    ``data`` holds ``obs``, ``masks``, ``probs`` (soft targets), ``values`` and ``held_out``
    (positions kept for validation only).
    """
    val, tr = np.flatnonzero(data["held_out"]), np.flatnonzero(~data["held_out"])
    data = {k: v for k, v in data.items() if k != "held_out"}
    t = {k: torch.from_numpy(v) for k, v in data.items()}
    out: dict[str, float] = {}

    def order(epoch: int) -> torch.Tensor:
        student.train()
        return torch.from_numpy(tr[rng.permutation(len(tr))])

    def batch_loss(idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        loss, _ = _loss(student, t["obs"][idx], t["masks"][idx], t["probs"][idx], t["values"][idx], cfg.value_weight)
        return loss, {"train_loss": float(loss.detach()) * len(idx)}

    def after_epoch(epoch: int, means: dict[str, float]) -> None:
        student.eval()
        with torch.no_grad():
            vi = torch.from_numpy(val)
            vloss, agree = _loss(
                student, t["obs"][vi], t["masks"][vi], t["probs"][vi], t["values"][vi], cfg.value_weight
            )
        out.update(train_loss=means["train_loss"], held_out_loss=float(vloss), held_out_agreement=float(agree))
        _log(
            f"{label} epoch {epoch + 1}/{cfg.epochs}: loss {out['train_loss']:.4f}, held out {out['held_out_loss']:.4f}, "
            f"same action as the teacher {out['held_out_agreement']:.1%}",
            quiet,
        )

    how = Fit(cfg.epochs, cfg.batch_size, cfg.learning_rate, cosine=True)
    fit(student.parameters(), how, order, batch_loss, after_epoch)
    return out


def distill(cfg: DistillConfig, quiet: bool = False) -> dict[str, Any]:
    """Run the distillation of the module docstring; returns the summary (also in ``out/summary.json``).

    Torch runs on ``cfg.torch_threads`` threads meanwhile (the previous setting is restored):
    small networks gain nothing from more, and one thread makes the result exactly repeatable.

    Raises:
        BundleError: the teacher bundle failed verification.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(cfg.torch_threads)
    try:
        return _distill(cfg, quiet)
    finally:
        torch.set_num_threads(threads)


def _rounds(
    student: BalootNet,
    teacher_net: BalootNet,
    teacher_agent: PolicyAgent,
    cfg: DistillConfig,
    rules: RuleConfig,
    rng: np.random.Generator,
    quiet: bool,
) -> tuple[dict[str, list[np.ndarray]], dict[str, float]]:
    """The rounds of positions (the teacher's, the heuristic's, from round 2 the student's) and
    fits; returns every round's positions and the last fit's figures."""
    data: dict[str, list[np.ndarray]] = {"obs": [], "masks": [], "probs": [], "values": [], "held_out": []}
    per_round = [cfg.positions // cfg.rounds + (r < cfg.positions % cfg.rounds) for r in range(cfg.rounds)]
    fit: dict[str, float] = {}
    for r, count in enumerate(per_round, start=1):
        pool = [teacher_agent, HeuristicAgent(0)]
        if r > 1:
            pool.append(PolicyAgent(student, {"name": "student"}, deterministic=False))
        t0 = time.perf_counter()
        pos = collect_positions(count, pool, seed=int(rng.integers(2**62)), epsilon=cfg.epsilon, rules=rules)
        probs, values = teacher_targets(teacher_net, pos.observations, pos.masks, cfg.temperature)
        held_out = np.zeros(len(pos), dtype=bool)  # drawn per round, so never trained on later
        held_out[rng.permutation(len(pos))[: max(1, int(len(pos) * HELD_OUT))]] = True
        for k, v in zip(data, (pos.observations, pos.masks, probs, values, held_out), strict=True):
            data[k].append(v)
        _log(
            f"round {r}/{cfg.rounds}: {len(pos):,} positions from {pos.hands:,} hands "
            f"({'teacher, heuristic' + (', student' if r > 1 else '')}) in {time.perf_counter() - t0:.0f} s",
            quiet,
        )
        fit = train_student(student, {k: np.concatenate(v) for k, v in data.items()}, cfg, rng, quiet, f"round {r}")
    return data, fit


def _distill(cfg: DistillConfig, quiet: bool) -> dict[str, Any]:
    t_start = time.perf_counter()
    teacher_net, teacher_manifest = load_net(cfg.teacher)
    rules = bundle_rules(teacher_manifest)
    out = Path(cfg.out)
    rng = np.random.default_rng(cfg.seed)
    with torch.random.fork_rng():
        torch.manual_seed(cfg.seed)
        student = BalootNet(cfg.spec())
    n_teacher, n_student = count_parameters(teacher_net), count_parameters(student)
    _log(
        f"teacher {teacher_manifest['name']} ({n_teacher:,} parameters) -> student trunk {list(cfg.trunk)}, cards "
        f"{cfg.cards if cfg.cards == 'flat' else f'{cfg.cards} x {cfg.card_width}'} "
        f"({n_student:,} parameters, {n_student / n_teacher:.1%})",
        quiet,
    )
    teacher_agent = PolicyAgent(teacher_net, teacher_manifest, deterministic=False)
    data, fit = _rounds(student, teacher_net, teacher_agent, cfg, rules, rng, quiet)
    name = f"distilled-{teacher_manifest['name']}"
    teacher_info = {
        "name": teacher_manifest["name"],
        "path": str(cfg.teacher),
        "weights_sha256": teacher_manifest["weights_sha256"],
        "parameters": n_teacher,
    }
    bundle = save_bundle(
        out / "bundle",
        student,
        name=name,
        rules=rules,
        training={"distillation": cfg.to_dict(), "fit": fit},
        extra={"teacher": teacher_info},
    )
    _log(f"bundle: {bundle} (training {time.perf_counter() - t_start:.0f} s); evaluating in duplicate", quiet)
    evaluations = evaluate(bundle, cfg, rules, quiet)
    if evaluations:
        update_evaluations(bundle, evaluations)
    summary = {
        "bundle": str(bundle),
        "teacher": teacher_info,
        "student_parameters": n_student,
        "parameter_ratio": n_student / n_teacher,
        "positions": sum(len(x) for x in data["obs"]),
        "fit": fit,
        "evaluations": evaluations,
        "teacher_vs_heuristic": teacher_reference(cfg, rules, quiet),
        "onnx_ms_per_decision": onnx_timing(
            cfg, bundle, np.concatenate(data["obs"]), np.concatenate(data["masks"]), quiet
        ),
        "seconds": time.perf_counter() - t_start,
        "config": cfg.to_dict(),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def evaluate(bundle: Path, cfg: DistillConfig, rules: RuleConfig, quiet: bool) -> list[dict[str, Any]]:
    """Duplicate of the student against the teacher and against ``heuristic`` under the teacher's
    rules (none if ``eval_deals`` is 0)."""
    if cfg.eval_deals <= 0:
        return []

    results = []
    teacher = str(Path(cfg.teacher).resolve())
    for label, opponent in (("teacher", teacher), ("heuristic", "heuristic")):
        t0 = time.perf_counter()
        res = evaluate_bundle(bundle, opponent, cfg.eval_deal_set, cfg.eval_deals, cfg.seed, cfg.eval_workers, rules)
        res["label"] = label
        if label == "teacher":
            res["opponent"] = cfg.teacher  # as given (a resolved path names this machine's folders)
        results.append(res)
        _log(
            f"student vs {label}: {res['mean']:+.2f} [{res['ci95'][0]:+.2f}, {res['ci95'][1]:+.2f}] "
            f"game points per deal on {res['deals']} deals ({time.perf_counter() - t0:.0f} s)",
            quiet,
        )
    return results


def teacher_reference(cfg: DistillConfig, rules: RuleConfig, quiet: bool) -> dict[str, Any] | None:
    """The teacher against ``heuristic`` on the same deals: the yardstick for the student's result."""
    if cfg.eval_deals <= 0:
        return None

    res = evaluate_bundle(
        Path(cfg.teacher), "heuristic", cfg.eval_deal_set, cfg.eval_deals, cfg.seed, cfg.eval_workers, rules
    )
    _log(f"teacher vs heuristic: {res['mean']:+.2f} [{res['ci95'][0]:+.2f}, {res['ci95'][1]:+.2f}]", quiet)
    return res


def onnx_timing(
    cfg: DistillConfig, bundle: Path, obs: np.ndarray, masks: np.ndarray, quiet: bool
) -> dict[str, Any] | None:
    """ONNX inference per decision on one core for the student and the teacher (None without onnxruntime)."""
    if cfg.onnx_timing <= 0:
        return None
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        _log("ONNX timing skipped: onnxruntime is not installed", quiet)
        return None

    n = min(cfg.onnx_timing, len(obs))
    models = {}
    for who, path in (("student", bundle), ("teacher", Path(cfg.teacher))):
        models[who] = Path(cfg.out) / "onnx" / f"{who}.onnx"
        export_onnx(path, models[who])
    out = time_onnx_models(models, obs[-n:], masks[-n:], repeats=3)
    for who, t in out.items():
        _log(
            f"ONNX {who}: median {t['median_ms']:.4f} ms per decision (one core, batch 1, {t['decisions']} timed); "
            f"{t['batched_ms']:.4f} ms in batches of 256",
            quiet,
        )
    return out


def format_summary(s: dict[str, Any]) -> str:
    """The readable summary printed at the end."""
    lines = [
        "distillation finished",
        f"  teacher           : {s['teacher']['name']} ({s['teacher']['parameters']:,} parameters)",
        f"  student           : {s['student_parameters']:,} parameters ({s['parameter_ratio']:.1%} of the teacher)",
        f"  positions         : {s['positions']:,}; held-out agreement with the teacher {s['fit']['held_out_agreement']:.1%}",
    ]
    for ev in s["evaluations"]:
        lines.append(
            f"  vs {ev.get('label', Path(ev['opponent']).name):<14}: {ev['mean']:+.2f} game points per deal, 95% CI "
            f"[{ev['ci95'][0]:+.2f}, {ev['ci95'][1]:+.2f}], {ev['deals']} deals of {ev['deal_set']} ({ev['checksum'][:12]}...)"
        )
    ref = s.get("teacher_vs_heuristic")
    if ref:
        lines.append(
            f"  (teacher vs heuristic: {ref['mean']:+.2f} [{ref['ci95'][0]:+.2f}, {ref['ci95'][1]:+.2f}] on the same deals)"
        )
    t = s.get("onnx_ms_per_decision")
    if t:
        lines.append(
            f"  ONNX, one core    : student {t['student']['median_ms']:.4f} ms, teacher {t['teacher']['median_ms']:.4f} ms per decision"
            f" (batches of 256: {t['student']['batched_ms']:.4f} vs {t['teacher']['batched_ms']:.4f})"
        )
    lines.append(f"  bundle            : {s['bundle']}")
    lines.append(f"  time              : {s['seconds']:.0f} s")
    return "\n".join(lines)


DISTILL_FILES = ("bundle", "summary.json", "onnx")  # what a distillation's folder holds


def check_inputs(cfg: DistillConfig) -> None:
    """The inputs that ``DistillConfig`` does not check, before any work starts.

    Raises:
        InputError, BundleError, DealSetError: naming the flag and the problem.
    """

    read_manifest(cfg.teacher)  # BundleError: missing, corrupt or for other versions (weights: checked at load)
    # what distillation writes: the student's bundle and the summary, in a folder of its own
    check_output(cfg.out, "--out", [("--teacher", str(cfg.teacher))], [shipped_policies()], DISTILL_FILES)
    deal_set = load_named(cfg.eval_deal_set)
    check_range("--eval-deals", cfg.eval_deals, 0, len(deal_set), f" (0: skip; the deals of {deal_set.name})")
    check_range("--eval-workers", cfg.eval_workers, 1, MAX_WORKERS)
    why = memory_need(f"--positions {cfg.positions:,}", cfg.positions, position_bytes(False))
    if why is not None:
        raise InputError(why)
    check_range("--onnx-timing", cfg.onnx_timing, 0)
    check_range("--seed", cfg.seed, 0)
    check_range("--torch-threads", cfg.torch_threads, 1)


def main(argv: list[str] | None = None) -> int:
    """``python -m train distill --teacher BUNDLE [--config FILE] [--out DIR] [--positions N] ...``.

    Every ``DistillConfig`` field is a flag and a key of ``--config``. Every input is checked
    before any work starts; a bad one gives exit code 2 and one line ``error: ...`` on stderr.
    """

    p = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        settings_file(p, argv)
    except InputError as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    a = p.parse_args(argv)
    try:
        values = {f.name: getattr(a, f.name) for f in fields(DistillConfig)}
        cfg = from_mapping(DistillConfig, values, "distill setting")
        check_inputs(cfg)
        summary = distill(cfg, quiet=a.quiet)
    except (BundleError, ValueError) as e:  # InputError, ConfigError and DealSetError are ValueErrors
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    print(format_summary(summary))
    return 0


def _parser() -> OneLineParser:
    """The command line of ``python -m train distill``: every ``DistillConfig`` field a flag."""
    p = OneLineParser(prog="python -m train distill", description="Distil a policy bundle into a small network.")
    p.add_argument("--config", default=None, metavar="FILE", help=CONFIG_HELP)
    config_flags(p, DistillConfig, [f.name for f in fields(DistillConfig)], aliases={"learning_rate": ["--lr"]})
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p
