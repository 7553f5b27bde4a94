"""Checkpoint promotion: the candidate becomes champion only if it is shown better in duplicate.

``promote(PromotionConfig(candidate=..., champion=...))`` plays the candidate (A) against the
champion (B) on a development deal set (default ``dev960``; the test set is refused, since a
promotion is a choice) with a group-sequential
test (``stats.sequential_decision``, O'Brien-Fleming bounds at ``looks`` equally spaced looks):
it stops early on a clear result either way. The candidate is promoted only when the test says
so *and* the Student-t 95% interval of the mean of d on the deals played lies above 0.
Error rates (normal approximation): a candidate no better than the champion is promoted with
probability at most ``alpha`` (2.5% by default) *per test*. A training run that tests k times
spends its 2.5% over the run (``alpha = 0.025 / k`` per test, Bonferroni), so that the chance of
any false promotion in the whole run stays at most 2.5%; a clearly worse one is rejected early; power is that of a single
test at |z| >= 2.024 on all the deals (four looks), i.e. about 80% for a true mean of
2.86 standard errors (sd of d / sqrt(deals)).

The champion is named by a *pointer file*, JSON ``{"format": "baloot-champion-1", "champion":
SPEC, ...}`` where SPEC is an agent name or a path relative to the pointer's folder. Every
decision is appended to a JSON-lines *history* (when, who, score, interval, deal-set
checksum). Both files are written atomically (temp file + ``os.replace``); a refused candidate,
a missing or corrupt file or any error leaves the pointer untouched.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.registry import AgentSpecError, known_agents, resolve_spec
from baloot_env.rules import RuleConfig
from baloot_io.atomic import write_json_atomic, write_text_atomic
from baloot_io.reading import InputFileError, parse_json, read_text_checked
from eval.deals import DEFAULT_SET, DealSet, DealSetError, require_development
from eval.runner import RulesMismatchError, check_rules, run_duplicate
from eval.stats import ALPHA, SequentialDecision, ci95, mean_sd, sequential_decision

HISTORY_LIMIT = 64 << 20  # a promotion history of some 60,000 tests; larger is not one of ours
POINTER_FORMAT = "baloot-champion-1"


class PromotionError(RuntimeError):
    """Promotion could not be decided: a missing or corrupt file, a bad pointer, bad settings."""


DEFAULT_LOOKS = 4  # sequential looks of a promotion test (eval.stats.sequential_decision)


@dataclass(frozen=True)
class PromotionConfig:
    """Settings of one promotion.

    Attributes:
        candidate: agent spec of the candidate (name or path).
        champion: a champion pointer file, or the champion's agent spec itself.
        pointer: where the pointer is written; default the ``champion`` file when it is a
            pointer, else ``champion.json`` in the champion's folder.
        history: the JSON-lines history; default ``promotions.jsonl`` beside the pointer.
        deal_set: deal set name or path; deals: how many of its deals (default all).
        seed: hand seeds; workers: processes; looks: sequential looks (1 = fixed sample).
        alpha: the chance (one-sided) of promoting a candidate no better than the champion in
            this test; a training run that tests several times passes its share of 2.5%.
        rules: the rule variants of every hand (the run's, in training); other_rules: let a
            bundle play under rules other than its manifest's (``runner.check_rules``).
    """

    candidate: str
    champion: str
    pointer: str | None = None
    history: str | None = None
    deal_set: str = DEFAULT_SET
    deals: int | None = None
    seed: int = 0
    workers: int = 1
    looks: int = DEFAULT_LOOKS
    progress: bool = False
    alpha: float = ALPHA
    torch_threads: int | None = None  # per evaluating process; None: the runner's default (one)
    rules: RuleConfig = field(default_factory=RuleConfig)  # of every hand played
    other_rules: bool = False  # let a policy bundle play under rules other than its manifest's


def read_pointer(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The pointer dict when ``path`` is a champion pointer file, else None (an agent file)."""
    try:
        data = parse_json(read_text_checked(path, "champion pointer"), f"champion pointer {str(path)!r}")
    except (InputFileError, json.JSONDecodeError):
        return None  # not a pointer: read again, and refused or used, as an agent file
    if isinstance(data, dict) and data.get("format") == POINTER_FORMAT:
        if not isinstance(data.get("champion"), str):
            raise PromotionError(f"champion pointer {str(path)!r} has no 'champion' entry")
        return data
    return None


def _spec_from_pointer(pointer_path: str, value: str) -> str:
    if value in known_agents():
        return value
    return str(Path(pointer_path).resolve().parent / value)


def _spec_for_pointer(pointer_path: str, spec: str) -> str:
    if spec in known_agents():
        return spec
    return os.path.relpath(Path(spec).resolve(), Path(pointer_path).resolve().parent)


def resolve_champion(cfg: PromotionConfig) -> tuple[str, str, str]:
    """(champion agent spec, pointer path, history path)."""
    pointer = read_pointer(cfg.champion) if os.path.isfile(cfg.champion) else None
    if pointer is not None:
        spec = _spec_from_pointer(cfg.champion, pointer["champion"])
        pointer_path = cfg.pointer or cfg.champion
    else:
        spec = cfg.champion
        folder = Path(cfg.champion).resolve().parent if cfg.champion not in known_agents() else Path.cwd()
        pointer_path = cfg.pointer or str(folder / "champion.json")
    history = cfg.history or str(Path(pointer_path).resolve().parent / "promotions.jsonl")
    return spec, pointer_path, history


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def promote(cfg: PromotionConfig) -> dict[str, Any]:
    """Decide, and on success move the champion pointer; returns the history entry.

    Raises:
        PromotionError: a missing or corrupt agent, pointer or deal-set file, or bad settings;
            nothing is written then.
    """
    spec, pointer_path, history_path = resolve_champion(cfg)
    full, ds = _check_settings(cfg, spec)
    d, decision = _play_looks(cfg, spec, ds)
    mean, sd = mean_sd(d)
    interval = list(ci95(d))
    promoted = decision.decision == "promote" and interval[0] > 0
    entry = {
        "when": _now(),
        "candidate": cfg.candidate,
        "champion": spec,
        "promoted": promoted,
        "decision": decision.decision,
        "deals": len(d),
        "mean": mean,
        "sd": sd,
        "ci95": interval,
        "z": decision.z if abs(decision.z) != float("inf") else None,
        "bound": decision.bound,
        "look": decision.look,
        "looks": cfg.looks,
        "alpha": cfg.alpha,
        "deal_set": full.name,
        "checksum": full.checksum,
        "seed": cfg.seed,
        "rules": cfg.rules.to_dict(),
    }
    if promoted:
        write_json_atomic(
            pointer_path,
            {
                "format": POINTER_FORMAT,
                "champion": _spec_for_pointer(pointer_path, cfg.candidate),
                "since": entry["when"],
                "mean": mean,
                "ci95": interval,
                "deals": len(d),
                "deal_set": full.name,
                "checksum": full.checksum,
                "previous": _spec_for_pointer(pointer_path, spec),
            },
        )
    _append_line_atomic(history_path, json.dumps(entry, sort_keys=True))
    entry["pointer"] = pointer_path
    entry["history"] = history_path
    return entry


def _check_settings(cfg: PromotionConfig, spec: str) -> tuple[DealSet, DealSet]:
    """The two agents, the rules and the deals, checked before any deal is played; returns the
    development set and the deals played from it (``PromotionError`` naming what is wrong)."""
    for role, s in (("candidate", cfg.candidate), ("champion", spec)):
        try:
            resolve_spec(s)
            check_rules([s], cfg.rules, cfg.other_rules)
        except (AgentSpecError, RulesMismatchError) as e:
            raise PromotionError(f"{role}: {e}") from None
    try:
        full = require_development(cfg.deal_set, "promotion")
        ds = full.head(cfg.deals) if cfg.deals else full
    except DealSetError as e:
        raise PromotionError(str(e)) from None
    if cfg.looks < 1 or cfg.looks > len(ds):
        raise PromotionError(f"looks must be between 1 and the number of deals ({len(ds)}), got {cfg.looks}")
    if not 0 < cfg.alpha < 0.5:
        raise PromotionError(f"alpha must be in (0, 0.5), got {cfg.alpha}")
    return full, ds


def _play_looks(cfg: PromotionConfig, spec: str, ds: DealSet) -> tuple[list[float], SequentialDecision]:
    """The deals in ``cfg.looks`` equal looks, stopping at the first that decides; returns every
    deal's d and the last look's decision."""
    bounds = [round(k * len(ds) / cfg.looks) for k in range(cfg.looks + 1)]
    d: list[float] = []
    decision = None
    for k in range(1, cfg.looks + 1):
        run = run_duplicate(
            cfg.candidate,
            spec,
            ds,
            seed=cfg.seed,
            workers=cfg.workers,
            lo=bounds[k - 1],
            hi=bounds[k],
            matches=False,
            progress=cfg.progress,
            torch_threads=cfg.torch_threads,
            rules=cfg.rules,
            other_rules=True,
        )
        d += [r.d for r in run.records]
        decision = sequential_decision(d, k, cfg.looks, cfg.alpha)
        if decision.decision != "continue":
            break
    if decision is None:  # looks >= 1 was checked
        raise PromotionError("no deal was played")
    return d, decision


def check_history(path: str) -> None:
    """``path`` is a promotion history to append to: no file yet, or one whose every line is a
    test this module wrote (so ``--history`` cannot append to any other file).

    Raises:
        PromotionError: not a regular file, too big, or a line that is not a promotion test.
    """
    if not os.path.lexists(path):
        return
    try:
        text = read_text_checked(path, "promotion history", HISTORY_LIMIT)
    except InputFileError as e:
        raise PromotionError(str(e)) from None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = parse_json(line, f"promotion history {path!r} line {n}")
        except (InputFileError, json.JSONDecodeError):
            entry = None
        if not isinstance(entry, dict) or not {"candidate", "champion", "decision"} <= set(entry):
            raise PromotionError(f"--history {path!r} is not a promotion history (line {n}); it is left as it is")


def _append_line_atomic(path: str, line: str) -> None:
    """Append one line by rewriting the file atomically (history files are small)."""
    old = ""
    if os.path.lexists(path):
        try:
            old = read_text_checked(path, "promotion history", HISTORY_LIMIT)
        except InputFileError as e:
            raise PromotionError(str(e)) from None
        if old and not old.endswith("\n"):
            old += "\n"
    write_text_atomic(path, old + line + "\n")
