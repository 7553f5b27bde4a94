"""Expert iteration: a lookahead teacher labels the positions the learner reaches.

One round (``expert_round``):

1. **Play** (DAgger): hands of the current network against itself on the game driver
   (``baloot_env.driver.Table``), moves sampled from its policy (``learner_share``; the rest by
   the teacher, and ``random_share`` at random), so the positions are the ones the learner
   reaches, not the teacher's.
2. **Label**: at every decision the teacher (an agent spec that judges its choices, ``agents.teacher``: ``search``) gives its
   action and, for a searched choice, every legal action's value (mean game points of the hand,
   own team minus the other, R7): the cards of a card choice, and the calls when the teacher
   searches them (``calls: searched``). The value target is the hand's reward for the acting
   team under the learner's own play (what the value head estimates).
3. **Fit** the network on the labels: policy to the targets (``Labels.targets``: by default the
   policy-improvement step ``pi(a) * exp((value(a) - best) / temperature)``, which keeps the
   learner's preference among actions the teacher scores alike; or the teacher's action, or
   ``softmax(value / temperature)``), value to the outcome (``train.fitting.fit_labelled``, in
   ``workers`` processes on the CPU).

With ``aggregate`` > 0 a round fits its own labels together with those of the ``aggregate``
rounds before it (DAgger's dataset aggregation: the positions of earlier policies stay in the
training set, so a round cannot forget them), kept as ``.npz`` files in the run folder.

Steps 1 and 2 are ``train.labels`` (the same labelling the warm start uses, with the learner
playing). In a training run (``train.trainer.Trainer.expert_rounds``) each round is followed by
the promotion test on ``eval.deal_set`` and a checkpoint, and PPO may follow the last round.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.neural.bundle import BUNDLE_FILES, BundleError, bundle_rules, load_net, save_bundle
from agents.neural.network import BalootNet
from agents.neural.precision import PRECISIONS
from agents.shipped import shipped_policies
from baloot_cli import (
    MAX_WORKERS,
    InputError,
    OneLineParser,
    check_output,
    check_range,
    config_flags,
    memory_need,
    one_line,
)
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from train.config import EnvConfig, ExpertConfig, agent_spec, config_from_dict
from train.fitting import fit_labelled, fit_processes
from train.labels import (
    TARGETS,
    LabelJob,
    Labels,
    label_parallel,
    position_bytes,
    set_agreement,
    tensors,
    value_unit,
)

# The ExpertConfig fields that ``python -m train expert label`` and ``fit`` take as flags.
LABEL_FIELDS = ("positions", "teacher", "learner_share", "random_share", "workers", "guide")
FIT_FIELDS = (
    "targets",
    "temperature",
    "epochs",
    "learning_rate",
    "consistency",
    "self_agreement",
    "workers",
    "precision",
)
EXPERT_LABELS = "expert_labels"  # the run folder's kept rounds of labels (expert.aggregate)
EXPERT_SEED_OFFSET = 1_000_003  # round k labels from seed + k * this (apart from the warm start's chunk seeds)


def label_round(net: BalootNet, cfg: ExpertConfig, seed: int, rules: RuleConfig, reward: Reward, quiet: bool) -> Labels:
    """Steps 1 and 2 of a round: ``cfg.positions`` positions of ``net``'s games (a CPU copy of
    its weights plays in each worker) labelled by ``cfg.teacher`` (``train.labels``)."""
    player = (net.spec.to_dict(), {k: v.detach().cpu() for k, v in net.state_dict().items()})
    job = LabelJob(
        cfg.positions,
        seed,
        rules,
        reward,
        agent_spec(cfg.teacher),
        player,
        net.spec.privileged_critic,
        cfg.learner_share,
        cfg.random_share,
        cfg.guide,
    )
    return label_parallel(job, cfg.workers, quiet=quiet)


def expert_round(
    net: BalootNet,
    cfg: ExpertConfig,
    seed: int,
    rules: RuleConfig,
    reward: Reward,
    quiet: bool = False,
    device: torch.device | None = None,
    earlier: Sequence[Labels] = (),
) -> tuple[dict[str, Any], Labels]:
    """One round (module docstring) on ``net`` in place; returns its figures for the log and
    its labels. The games are played by CPU copies of the network; the fit runs on ``device``
    (default: where ``net`` is), on the round's labels after the ``earlier`` rounds' ones
    (``expert.aggregate``)."""
    t0 = time.perf_counter()
    labels = label_round(net, cfg, seed, rules, reward, quiet)
    t_label = time.perf_counter() - t0
    if device is not None:
        net.to(device)
    stats: dict[str, Any] = {"positions": len(labels), **labels.figures()}
    fitted = Labels.join([*earlier, labels]) if earlier else labels
    stats["fitted"] = len(fitted)

    def after_epoch(epoch: int, means: dict[str, float]) -> None:
        stats.update(means)
        if not quiet:
            tie = f", consistency loss {means['consistency_loss']:.4f}" if "consistency_loss" in means else ""
            print(
                f"[expert] epoch {epoch + 1}/{cfg.epochs}: agreement with the teacher {means['train_accuracy']:.1%}, "
                f"policy loss {means['policy_loss']:.3f}, value loss {means['value_loss']:.3f}{tie}",
                file=sys.stderr,
                flush=True,
            )

    data = fit_tensors(fitted, cfg, reward)
    fit_labelled(net, data, cfg, seed, after_epoch, fit_processes(cfg, net), cfg.consistency)
    stats.update(agreement(net, labels, cfg.self_agreement, quiet))
    stats["label_seconds"] = t_label
    stats["seconds"] = time.perf_counter() - t0
    return stats, labels


def fit_tensors(labels: Labels, cfg: ExpertConfig, reward: Reward) -> tuple[torch.Tensor, ...]:
    """The labels as a fit takes them (``train.labels.tensors``) under ``cfg``'s targets, with the
    teacher's values in the units of ``reward`` when the fit has a consistency loss."""
    unit = value_unit(reward) if cfg.consistency > 0 else None
    return tensors(labels, cfg.temperature, cfg.targets, unit)


def greedy_actions(net: BalootNet, obs: np.ndarray, masks: np.ndarray, batch: int = 4096) -> np.ndarray:
    """The network's greedy action at each position (observations, legal masks)."""
    device = next(net.parameters()).device
    out = []
    with torch.no_grad():
        for lo in range(0, len(obs), batch):
            o = torch.from_numpy(np.ascontiguousarray(obs[lo : lo + batch, : net.spec.obs_size])).to(device)
            m = torch.from_numpy(np.ascontiguousarray(masks[lo : lo + batch])).to(device)
            out.append(net(o, m)[0].argmax(dim=1).cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def agreement(net: BalootNet, labels: Labels, self_agreement: float, quiet: bool) -> dict[str, float]:
    """How often the fitted student's greedy card is among the teacher's equally good cards
    (``train.labels.set_agreement``) on the round's searched decisions (the positions it was fitted
    on), and that as a share of the teacher's own set agreement (``self_agreement``, measured by
    ``python -m train noise``; 0: not known), the ceiling share. Nothing for labels without
    errors."""
    try:
        share, n = set_agreement(labels, greedy_actions(net, labels.obs, labels.masks))
    except ValueError:  # labels without the teacher's errors: no equally good set to compare with
        return {}
    out = {"set_agreement": share}
    if self_agreement > 0:
        out["ceiling_share"] = share / self_agreement
    if not quiet:
        ceiling = (
            f"; the teacher agrees with itself on the set in {self_agreement:.1%}: {share / self_agreement:.1%} of its ceiling"
            if self_agreement > 0
            else " (the teacher's self-agreement not given: expert.self_agreement)"
        )
        print(
            f"[expert] the student's card is among the teacher's equally good cards in {share:.1%} of {n:,} "
            f"searched decisions{ceiling}",
            file=sys.stderr,
            flush=True,
        )
    return out


def _parser() -> OneLineParser:
    """The command line of ``python -m train expert``: ExpertConfig's fields as flags."""
    d = ExpertConfig()
    p = OneLineParser(prog="python -m train expert", description=(main.__doc__ or "").splitlines()[0])
    sub = p.add_subparsers(dest="action", required=True)
    lab = sub.add_parser("label", help="label a bundle's own games with the teacher into --out (.npz)")
    lab.add_argument("--policy", default="policies/champion", help="the learner's policy bundle")
    config_flags(lab, ExpertConfig, LABEL_FIELDS, d)
    lab.add_argument("--out", required=True, help="the labels file (.npz)")
    fit_p = sub.add_parser("fit", help="fit a bundle to a labels file and write the new bundle to --out")
    fit_p.add_argument("--labels", required=True, nargs="+", help="labels files (joined in order)")
    fit_p.add_argument("--policy", default="policies/champion", help="the bundle that starts the fit")
    config_flags(fit_p, ExpertConfig, FIT_FIELDS, d, choices={"targets": TARGETS, "precision": PRECISIONS})
    fit_p.add_argument(
        "--call-values",
        default="use",
        choices=("use", "drop"),
        help="'drop': fit as if the teacher had not searched the calls (the learner's own policy there)",
    )
    fit_p.add_argument("--out", required=True, help="the new bundle's folder")
    for q in (lab, fit_p):
        q.add_argument("--seed", type=int, default=0)
        q.add_argument("--quiet", action="store_true")
    return p


def _checked_config(a: Any, net: BalootNet) -> ExpertConfig:
    """The command's ExpertConfig, every input and the output checked (``InputError``,
    ``ConfigError``: one line, exit code 2, before any work)."""
    check_range("--workers", a.workers, 1, MAX_WORKERS)
    check_range("--seed", a.seed, 0)
    if a.action == "label":
        check_range("--positions", a.positions, 1)
        why = memory_need(f"--positions {a.positions:,}", a.positions, position_bytes(net.spec.privileged_critic))
        if why is not None:
            raise InputError(why)
        check_output(a.out, "--out", [("--policy", a.policy), ("--teacher", a.teacher)], [shipped_policies()])
        fields: tuple[str, ...] = LABEL_FIELDS
    else:
        check_range("--epochs", a.epochs, 1)
        inputs = [("--policy", a.policy), *(("--labels", f) for f in a.labels)]
        check_output(a.out, "--out", inputs, [shipped_policies()], folder_of=BUNDLE_FILES)
        fields = FIT_FIELDS
    cfg = replace(ExpertConfig(), **{name: getattr(a, name) for name in fields})
    config_from_dict({"expert": asdict(cfg)})  # the expert section's checks (ranges, the teacher)
    return cfg


def main(argv: list[str] | None = None) -> int:
    """``python -m train expert label|fit``: one round's two halves by hand, for research.

    ``label`` plays a bundle's games and labels them (``train.labels``) into a ``.npz`` file;
    ``fit`` fits a bundle to such a file under a target rule and writes the new bundle, so that
    several target rules can be compared on one labelling job. Bad input: one line, exit code 2,
    before any work.
    """
    a = _parser().parse_args(argv)
    torch.set_num_threads(1)
    reward = EnvConfig().as_reward()  # the training reward of the default config: the value targets
    try:
        net, manifest = load_net(a.policy)
        rules = bundle_rules(manifest)
        cfg = _checked_config(a, net)
        if a.action == "fit":
            labels = Labels.join([Labels.load(f) for f in a.labels])
            if a.call_values == "drop":
                labels = labels.without_call_values()
            targets = fit_tensors(labels, cfg, reward)  # refuses improve without a policy
    except (ValueError, BundleError, OSError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    if a.action == "label":
        labels = label_round(net, cfg, a.seed, rules, reward, a.quiet)
        labels.save(a.out)
        print(f"{len(labels):,} positions labelled by {cfg.teacher} -> {a.out}: {labels.figures()}")
        return 0

    def after_epoch(epoch: int, means: dict[str, float]) -> None:
        if not a.quiet:
            print(f"[expert] epoch {epoch + 1}/{cfg.epochs}: {means}", file=sys.stderr, flush=True)

    fit_labelled(net, targets, cfg, a.seed, after_epoch, fit_processes(cfg, net), cfg.consistency)
    agreement(net, labels, cfg.self_agreement, False)
    training = {"expert_fit": {"labels": a.labels, "policy": a.policy, "call_values": a.call_values, **asdict(cfg)}}
    save_bundle(a.out, net, name=Path(a.out).name, rules=rules, training=training)
    print(f"fitted {a.policy} to {len(labels):,} positions ({cfg.targets}, T {cfg.temperature}) -> {a.out}")
    return 0
