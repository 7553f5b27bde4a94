"""Duplicate evaluation and promotion of a policy bundle during and after training.

The *promotion state* of a run is its champion pointer ``champion.json``, its history
``promotions.jsonl`` and the folders ``champions/step_<N>`` the pointer may name. Every
checkpoint records it (``promotion_state``) and resuming puts it back (``restore_promotion_state``),
so a promotion made after the last checkpoint by a run that was then killed is undone and made
again, exactly, by the resumed run.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.neural.bundle import BundleError, read_manifest
from baloot_env.rules import RuleConfig
from baloot_io.atomic import write_json_atomic, write_text_atomic
from eval.deals import TEST, load_named
from eval.promote import PromotionConfig, PromotionError, promote, read_pointer
from eval.report import summarize
from eval.runner import run_duplicate
from eval.stats import ALPHA
from train.checkpoint import CheckpointError
from train.config import TrainConfig

POINTER, HISTORY, CHAMPIONS = "champion.json", "promotions.jsonl", "champions"


EVAL_TAG = "eval"


def eval_section(deal_set: str, final: bool) -> str:
    """Where an evaluation's figures go in tensorboard: ``eval/dev`` for the evaluations during
    training (promotion tests and duplicates on a development set), ``eval/test`` for the final
    evaluation on a test set, ``eval/dev_final`` for a final evaluation on a development set
    (smoke runs), so that no tag mixes the two roles (``eval.deals``)."""

    if load_named(deal_set).role == TEST:
        return f"{EVAL_TAG}/test"
    return f"{EVAL_TAG}/dev_final" if final else f"{EVAL_TAG}/dev"


def evaluate_bundle(
    bundle: Path,
    opponent: str,
    deal_set: str,
    deals: int,
    seed: int,
    workers: int,
    rules: RuleConfig,
    matches: bool = False,
) -> dict[str, Any]:
    """Duplicate of ``bundle`` (A) against ``opponent`` (B) on the first ``deals`` of a deal set,
    every hand under ``rules`` (the run's).

    Returns the evaluation record kept in manifests: opponent, deal set and checksum, deals,
    mean, sd and 95% interval of d (game points per deal), date, and the rules when they are
    not RULES.md's.
    """
    full = load_named(deal_set)
    ds = full.head(min(deals, len(full)))
    run = run_duplicate(str(bundle), opponent, ds, seed=seed, workers=workers, matches=matches, rules=rules)
    rep = summarize(run, str(bundle), opponent, ds, full, seed, rules.to_dict())
    out = {
        "opponent": opponent,
        "deal_set": full.name,
        "checksum": full.checksum,
        "deals": rep["deals"],
        "mean": rep["mean"],
        "sd": rep["sd"],
        "ci95": rep["ci95"],
        "share_won": rep["share_a_won"],
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    if rules.changes():
        out["rules"] = rules.changes()
    if matches and "matches" in rep:
        out["matches"] = rep["matches"]
    return out


def ensure_pointer(run_dir: Path, initial: str = "heuristic") -> Path:
    """The run's champion pointer, created to name ``initial`` when the run has none."""
    pointer = run_dir / POINTER
    if read_pointer(pointer) is None:
        write_json_atomic(pointer, {"format": "baloot-champion-1", "champion": initial, "since": None})
    return pointer


def _champion_of(pointer: Path) -> str:
    """The ``champion`` entry of the run's pointer file (``ensure_pointer`` made it)."""
    data = read_pointer(pointer)
    if data is None:
        raise PromotionError(f"{pointer} is not a champion pointer file")
    return str(data["champion"])


def run_champion_spec(run_dir: Path) -> str:
    """The agent spec of the run's champion (``ensure_pointer``): ``heuristic``/``random`` as named,
    otherwise the resolved path of its bundle, relative to the pointer."""
    pointer = ensure_pointer(run_dir)
    champion = _champion_of(pointer)
    return champion if champion in ("heuristic", "random") else str((pointer.parent / champion).resolve())


def planned_evaluations(total_steps: int, rollout: int, every: int) -> int:
    """How many periodic evaluations a run makes: the trainer's schedule, replayed.

    PPO stops at the first whole rollout at or past ``total_steps``; after each update an
    evaluation is due when the decisions so far reach ``next_eval``, which then moves on by
    ``every`` (``Trainer._after_update``).
    """
    if every <= 0 or total_steps <= 0:
        return 0
    updates = -(-total_steps // rollout)  # ceil
    count, next_eval = 0, every
    for k in range(1, updates + 1):
        if k * rollout >= next_eval:
            count += 1
            next_eval += every
    return count


def promotion_alpha_per_test(run_alpha: float, planned: int) -> float:
    """The share of the run's false-promotion rate that each of its ``planned`` tests may spend.

    Bonferroni: with ``run_alpha / k`` per test, the chance that any of the k tests promotes a
    candidate no better than the champion is at most ``run_alpha``.
    """
    return run_alpha / max(planned, 1)


def planned_tests(cfg: TrainConfig) -> int:
    """The promotion tests a run makes: one after each expert-iteration round (``expert.rounds``,
    0 on the RLlib backend) and the PPO schedule's (``planned_evaluations``)."""
    return cfg.expert.rounds + planned_evaluations(
        cfg.ppo.total_steps, cfg.ppo.n_envs * cfg.ppo.n_steps, cfg.eval.every
    )


def try_promotion(
    candidate: Path,
    run_dir: Path,
    stamp: str,
    deal_set: str,
    deals: int,
    seed: int,
    workers: int,
    rules: RuleConfig,
    alpha: float = ALPHA,
) -> dict[str, Any]:
    """Run the promotion rule (``eval.promote``) for a checkpoint's bundle at error rate ``alpha``,
    every hand under ``rules`` (the run's).

    The candidate is first copied to ``run_dir/champions/<stamp>`` (``step_<N>``, or
    ``expert_<K>`` for an expert-iteration round) so that the pointer names a folder that will
    not change. Returns the history entry (``promoted`` tells the outcome).
    """
    pointer = ensure_pointer(run_dir)
    stable = run_dir / CHAMPIONS / stamp
    if (pointer.parent / _champion_of(pointer)).resolve() == stable.resolve():
        raise PromotionError(f"{stable} is the run's champion already ({pointer}); it is not tested against itself")
    if stable.exists():
        shutil.rmtree(stable)
    shutil.copytree(candidate, stable)
    try:
        entry = promote(
            PromotionConfig(
                candidate=str(stable),
                champion=str(pointer),
                deal_set=deal_set,
                deals=deals,
                seed=seed,
                workers=workers,
                alpha=alpha,
                rules=rules,
            )
        )
    except PromotionError:
        shutil.rmtree(stable, ignore_errors=True)
        raise
    if not entry["promoted"]:
        shutil.rmtree(stable, ignore_errors=True)
    return entry


def promotion_counts(run_dir: Path) -> dict[str, int]:
    """How many promotion tests the run made (its history's entries) and how many promoted."""
    path = Path(run_dir) / HISTORY
    entries = (
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if path.is_file()
        else []
    )
    return {"tests": len(entries), "promoted": sum(bool(e.get("promoted")) for e in entries)}


def promotion_state(run_dir: Path) -> dict[str, Any]:
    """The promotion state as a checkpoint records it: the pointer's and the history's text
    (None when there is no such file) and the names of the ``champions/`` folders."""
    run_dir = Path(run_dir)

    def text(p: Path) -> str | None:
        return p.read_text(encoding="utf-8") if p.is_file() else None

    folder = run_dir / CHAMPIONS
    names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    return {"pointer": text(run_dir / POINTER), "history": text(run_dir / HISTORY), "champions": names}


def restore_promotion_state(run_dir: Path, state: dict[str, Any]) -> None:
    """Put back the promotion state a checkpoint recorded: the pointer and history files as they
    were (removed when there were none) and no ``champions/`` folder the checkpoint did not know.

    Raises:
        CheckpointError: a malformed record, or a champion folder it names that is missing.
    """
    run_dir = Path(run_dir)
    ok = (
        isinstance(state, dict)
        and all(state.get(k) is None or isinstance(state.get(k), str) for k in ("pointer", "history"))
        and isinstance(state.get("champions"), list)
        and all(isinstance(n, str) for n in state["champions"])
    )
    if not ok:
        raise CheckpointError(f"the checkpoint's promotion record is malformed: {str(state)[:120]}")
    for name, key in ((POINTER, "pointer"), (HISTORY, "history")):
        path, want = run_dir / name, state[key]
        if want is None:
            path.unlink(missing_ok=True)
        elif not path.is_file() or path.read_text(encoding="utf-8") != want:
            write_text_atomic(path, want)
    keep = set(state["champions"])
    folder = run_dir / CHAMPIONS
    if folder.is_dir():
        for p in folder.iterdir():
            if p.name not in keep:  # made after the checkpoint by the run that was killed
                shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
    missing = sorted(n for n in keep if not (folder / n).exists())
    if missing:
        raise CheckpointError(f"{folder} lacks {missing}, which the checkpoint's promotion record names")


def same_weights(bundle: Path, other: str) -> bool:
    """True when the bundle folder ``other`` holds exactly the weights of ``bundle``."""

    try:
        out: bool = read_manifest(bundle)["weights_sha256"] == read_manifest(other)["weights_sha256"]
        return out
    except BundleError:  # a rule agent's name or an unreadable folder: not the same policy
        return False


@dataclass(frozen=True)
class RunEvaluation:
    """What one evaluation of a run found (``evaluate_run``), for the run's frame to act on."""

    results: list[dict[str, Any]]  # in the order they were made
    scalars: list[tuple[str, float]]  # (tag, figure) to record at the run's step, in order
    promoted: Path | None  # the candidate bundle that the promotion test made the run's champion


@dataclass
class _Found:
    """An evaluation's results as they are made: each stamped with the step (and the expert
    round), its figures under ``eval_section``'s tags, and a line for ``log``."""

    steps: int
    expert_round: int | None
    final: bool
    opponents: tuple[str, ...]
    log: Callable[[str], None] | None
    results: list[dict[str, Any]] = field(default_factory=list)
    scalars: list[tuple[str, float]] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.steps:,}" if self.expert_round is None else f"expert round {self.expert_round}"

    def record(self, res: dict[str, Any], opp: str, ds: str) -> None:
        res["step"] = self.steps
        if self.expert_round is not None:
            res["expert_round"] = self.expert_round
        self.results.append(res)
        tag = Path(opp).stem if opp in self.opponents else "champion"  # "heuristic", "search", a spec file's name
        section = eval_section(ds, self.final)
        self.scalars += [(f"{section}/mean_vs_{tag}", res["mean"]), (f"{section}/ci95_low_vs_{tag}", res["ci95"][0])]
        if self.log is not None:
            self.log(
                f"eval at {self.where}: vs {tag} on {res['deals']} deals: {res['mean']:+.2f} "
                f"[{res['ci95'][0]:+.2f}, {res['ci95'][1]:+.2f}] game points per deal"
            )


def _promotion_test(cfg: TrainConfig, run_dir: Path, bundle: Path, stamp: str, deals: int) -> dict[str, Any]:
    """The promotion test of ``bundle`` against the run's champion (``try_promotion``), at the
    run's share of ``eval.promotion_alpha``: the run spends it over all its tests, so that it
    stays the error rate of the run."""
    e = cfg.eval
    alpha = promotion_alpha_per_test(e.promotion_alpha, planned_tests(cfg))
    return try_promotion(bundle, run_dir, stamp, e.deal_set, deals, cfg.seed, e.workers, cfg.env.rules, alpha)


def _promotion_result(cfg: TrainConfig, entry: dict[str, Any], champion_spec: str) -> dict[str, Any]:
    """A promotion test's history entry as a result against the champion."""
    rules = {"rules": cfg.env.rules.changes()} if cfg.env.rules.changes() else {}
    kept = {k: entry[k] for k in ("deals", "mean", "sd", "ci95", "deal_set", "checksum")}
    return kept | {"opponent": champion_spec, "date": entry["when"]} | rules


def evaluate_run(
    cfg: TrainConfig,
    run_dir: Path,
    steps: int,
    bundle: Path,
    deals: int,
    *,
    final: bool,
    deal_set: str | None,
    log: Callable[[str], None] | None,
    expert_round: int | None = None,
) -> RunEvaluation:
    """One evaluation of a training run's current policy (``bundle``), for either backend.

    Unless ``final``, the promotion test against the run's champion on ``cfg.eval.deal_set``
    (with the run's share of ``eval.promotion_alpha``), then duplicates against
    ``eval.opponents`` and the champion (not the champion when the promotion test already played
    it, or when it is this very policy) on ``deal_set`` (default the promotion set). Each result
    is stamped with ``steps`` (and ``expert_round``, the round of expert iteration it follows,
    when given), and its figures go under ``eval/dev``, ``eval/test`` or ``eval/dev_final``
    (``eval_section``); ``log`` (None: quiet) gets a line per result as it is made.
    """

    e = cfg.eval
    champion_spec = run_champion_spec(run_dir)
    found = _Found(steps, expert_round, final, e.opponents, log)
    promoted: Path | None = None
    promoting = e.promote and not final
    if promoting:  # the promotion match is also the evaluation against the champion
        stamp = f"step_{steps:09d}" if expert_round is None else f"expert_{expert_round:03d}"
        entry = _promotion_test(cfg, run_dir, bundle, stamp, deals)
        found.record(_promotion_result(cfg, entry, champion_spec), champion_spec, e.deal_set)
        found.scalars.append((f"{EVAL_TAG}/dev/promoted", float(entry["promoted"])))
        if entry["promoted"]:
            promoted = Path(entry["candidate"])
        if log is not None:
            verdict = "promoted to champion" if entry["promoted"] else "not promoted"
            log(f"promotion at {found.where}: {verdict} (champion was {Path(champion_spec).name})")
    for opp in [*e.opponents] + ([champion_spec] if champion_spec not in e.opponents else []):
        if promoting and opp == champion_spec:
            continue
        if opp == champion_spec and same_weights(bundle, champion_spec):
            continue  # the champion is this very policy (promoted at this step): d would be 0
        ds = deal_set or e.deal_set
        res = evaluate_bundle(bundle, opp, ds, deals, cfg.seed, e.workers, cfg.env.rules, matches=final)
        found.record(res, opp, ds)
    return RunEvaluation(found.results, found.scalars, promoted)
