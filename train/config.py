"""Typed training configuration: frozen dataclasses filled from YAML, overridable on the command line.

``load_config(path, overrides)`` reads ``configs/*.yaml``; unknown keys are an error naming the
key and the section; ``--set section.key=value`` overrides parse as YAML scalars. The resolved
config is saved with every run (``config.yaml`` in the run directory).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

import yaml


class ConfigError(ValueError):
    """A config file or override that does not fit the schema."""


@dataclass(frozen=True)
class NetConfig:
    """The policy network: shared trunk, card-play head, bidding head, value head."""

    trunk: tuple[int, ...] = (256, 256)
    head_hidden: int = 128
    value_hidden: tuple[int, ...] = (128,)
    privileged_critic: bool = False  # the value head also sees all four hands (training only)


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO hyper-parameters (sb3-contrib names)."""

    n_envs: int = 32
    n_steps: int = 128
    batch_size: int = 512
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    total_steps: int = 300_000  # learner decisions


@dataclass(frozen=True)
class EnvConfig:
    """The games the learner plays."""

    episode: str = "hand"  # "hand" or "match"
    reward_scale: float = 44.0  # hand score difference / scale, as in baloot_v0
    match_bonus: float = 1.0  # match episodes: + winner / - loser at the end
    rules: dict = field(default_factory=dict)  # RuleConfig fields; empty = RULES.md defaults


@dataclass(frozen=True)
class OpponentConfig:
    """Mixing weights of the opponent pool and how it is refreshed."""

    self_weight: float = 0.5  # recent snapshots of the learner
    champion_weight: float = 0.1  # past champions
    heuristic_weight: float = 0.3
    random_weight: float = 0.1
    snapshot_every: int = 20_000  # learner decisions between snapshots
    pool_size: int = 8  # recent snapshots kept


@dataclass(frozen=True)
class EvalConfig:
    """Periodic duplicate evaluation and promotion."""

    every: int = 100_000  # learner decisions between evaluations (0: only at the end)
    deal_set: str = "small"
    deals: int = 64
    final_deal_set: str = "standard960"
    final_deals: int = 960
    workers: int = 1
    promote: bool = True
    # The false-promotion rate the whole run spends over all its promotion tests (each test gets
    # a share, so that the chance of any false promotion in the run stays at most this); in (0, 0.5).
    promotion_alpha: float = 0.025


@dataclass(frozen=True)
class PretrainConfig:
    """Behaviour-cloning warm start from a teacher agent (``train.pretrain``); ``positions: 0`` is off."""

    positions: int = 200_000
    epochs: int = 4
    batch_size: int = 512
    learning_rate: float = 1e-3
    value_weight: float = 0.5
    random_share: float = 0.1  # share of moves played at random while collecting
    teacher: str = "heuristic"  # the agent imitated (an agent spec: "heuristic", "search", a file)
    workers: int = 1  # processes labelling positions (a search teacher is slow)
    soft_temperature: float = 0.0  # > 0: searched card choices teach softmax(value / T), T in game points
    augment: bool = False  # rename the suits of each position at random (train.augment; R1 is suit-symmetric)


@dataclass(frozen=True)
class TrainConfig:
    """Everything ``python -m train`` needs; one seed drives every random choice."""

    seed: int = 0
    run_dir: str = "runs/default"
    torch_threads: int = 1  # measured faster than 2 on this 2-core machine (docs/BENCHMARKS.md)
    checkpoint_every: int = 50_000  # learner decisions
    log_every: int = 10_000
    init_from: str = ""  # a policy bundle whose weights start the network (same architecture); "" = fresh
    net: NetConfig = field(default_factory=NetConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    env: EnvConfig = field(default_factory=EnvConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)


def _coerce(value: Any, typ: Any, where: str) -> Any:
    origin = getattr(typ, "__origin__", None)
    if dataclasses.is_dataclass(typ):
        return _build(typ, value, where)
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where} must be a list, got {value!r}")
        return tuple(_coerce(v, typ.__args__[0], where) for v in value)
    if typ is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, got {value!r}")
        return value
    if typ is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise ConfigError(f"{where} must be an integer, got {value!r}")
        return value
    if typ is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where} must be a number, got {value!r}")
        return float(value)
    if typ is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, got {value!r}")
        return value
    if typ is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where} must be a mapping, got {value!r}")
        return dict(value)
    return value


def _build(cls: type, data: Any, where: str) -> Any:
    if isinstance(data, cls):
        return data
    if not isinstance(data, dict):
        raise ConfigError(f"{where or 'config'} must be a mapping, got {type(data).__name__}")
    hints = get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} in {where or 'config'}; known: {sorted(names)}")
    kwargs = {k: _coerce(v, hints[k], f"{where}.{k}" if where else k) for k, v in data.items()}
    return cls(**kwargs)


def _set_path(data: dict, dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node = data
    for k in keys[:-1]:
        node = node.setdefault(k, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {dotted}: {k} is not a section")
    node[keys[-1]] = value


def config_from_dict(data: dict, overrides: list[str] | None = None, *, fresh: bool = True) -> TrainConfig:
    """Build and validate a TrainConfig from a dict plus ``key.path=value`` overrides."""
    data = yaml.safe_load(yaml.safe_dump(data or {}))  # deep copy with plain types
    for item in overrides or []:
        if "=" not in item:
            raise ConfigError(f"override {item!r} must look like section.key=value")
        key, raw = item.split("=", 1)
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError as e:
            raise ConfigError(f"override {item!r}: the value is not valid YAML: {_one_line(e)}") from None
        _set_path(data, key.strip(), value)
    cfg = _build(TrainConfig, data, "")
    validate(cfg, fresh=fresh)
    return cfg


def load_config(path: str | Path | None, overrides: list[str] | None = None, *, fresh: bool = True) -> TrainConfig:
    """Read a YAML config (or the defaults when ``path`` is None), apply overrides, validate.

    Args:
        path: the YAML file, or None for the defaults.
        overrides: ``section.key=value`` strings (values parse as YAML).
        fresh: a fresh run (True) also checks the inputs only a fresh run reads: ``init_from``.

    Raises:
        ConfigError: a missing or unreadable file, bad YAML, or any field ``validate`` refuses;
            the message is one line naming the key and the problem.
    """
    data: dict = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"config file {p} does not exist")
        try:
            data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"config file {p} cannot be read: {e}") from None
        except yaml.YAMLError as e:
            raise ConfigError(f"config file {p} is not valid YAML: {_one_line(e)}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"config file {p} must hold a mapping at the top level")
    return config_from_dict(data, overrides, fresh=fresh)


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


def _need(ok: bool, key: str, value: Any, what: str) -> None:
    if not ok:
        raise ConfigError(f"{key} must be {what}, got {value!r}")


def _number(key: str, value: float, low: float | None = None, high: float | None = None,
            *, low_open: bool = False, high_open: bool = False) -> None:  # fmt: skip
    """``value`` finite and inside the interval; the message names it like ``(0, 0.5)`` or ``>= 0``."""
    if low is not None and high is not None:
        what = f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    elif low is not None:
        what = f"{'>' if low_open else '>='} {low:g}"
    else:
        what = f"{'<' if high_open else '<='} {high:g}"
    ok = math.isfinite(value)
    ok = ok and (low is None or (value > low if low_open else value >= low))
    ok = ok and (high is None or (value < high if high_open else value <= high))
    _need(ok, key, value, what)


def validate(cfg: TrainConfig, *, fresh: bool = True) -> None:
    """Check every field before any work starts; raise ``ConfigError`` naming the key.

    Ranges of every number, the rules (a ``RuleConfig``), the deal sets (they exist; the
    promotion set is a development set, since a promotion is a choice), the warm start's
    teacher (an agent spec), and, for a fresh run, ``init_from`` (a verified bundle of this
    architecture).
    """
    # --- top level
    _need(0 <= cfg.seed < 2**32, "seed", cfg.seed, "in [0, 2**32)")  # numpy's legacy seeding range
    _need(bool(cfg.run_dir.strip()), "run_dir", cfg.run_dir, "a folder path")
    _need(cfg.torch_threads >= 1, "torch_threads", cfg.torch_threads, ">= 1")
    _need(cfg.checkpoint_every >= 1, "checkpoint_every", cfg.checkpoint_every, ">= 1 (learner decisions)")
    _need(cfg.log_every >= 1, "log_every", cfg.log_every, ">= 1 (learner decisions)")

    # --- net
    n = cfg.net
    _need(len(n.trunk) >= 1 and min(n.trunk) >= 1, "net.trunk", list(n.trunk), "one or more layer widths >= 1")
    _need(n.head_hidden >= 1, "net.head_hidden", n.head_hidden, ">= 1")
    _need(all(w >= 1 for w in n.value_hidden), "net.value_hidden", list(n.value_hidden), "layer widths >= 1")

    # --- ppo
    p = cfg.ppo
    _need(p.n_envs >= 1, "ppo.n_envs", p.n_envs, ">= 1")
    _need(p.n_steps >= 1, "ppo.n_steps", p.n_steps, ">= 1")
    rollout = p.n_envs * p.n_steps
    _need(2 <= p.batch_size <= rollout, "ppo.batch_size", p.batch_size,
          f"in [2, ppo.n_envs * ppo.n_steps = {rollout}]")  # fmt: skip
    _need(p.n_epochs >= 1, "ppo.n_epochs", p.n_epochs, ">= 1")
    _number("ppo.learning_rate", p.learning_rate, 0, low_open=True)
    _number("ppo.gamma", p.gamma, 0, 1)
    _number("ppo.gae_lambda", p.gae_lambda, 0, 1)
    _number("ppo.clip_range", p.clip_range, 0, low_open=True)
    _number("ppo.ent_coef", p.ent_coef, 0)
    _number("ppo.vf_coef", p.vf_coef, 0)
    _number("ppo.max_grad_norm", p.max_grad_norm, 0, low_open=True)
    _need(p.total_steps >= 0, "ppo.total_steps", p.total_steps, ">= 0 (learner decisions)")

    # --- env
    e = cfg.env
    _need(e.episode in ("hand", "match"), "env.episode", e.episode, "'hand' or 'match'")
    _number("env.reward_scale", e.reward_scale, 0, low_open=True)
    _number("env.match_bonus", e.match_bonus, 0)
    from baloot_env.rules import RuleConfig

    try:
        RuleConfig.from_dict(e.rules)
    except (TypeError, ValueError) as err:  # RuleConfigError is a ValueError
        raise ConfigError(f"env.rules: {_one_line(err)}") from None

    # --- opponents
    o = cfg.opponents
    weights = {"self_weight": o.self_weight, "champion_weight": o.champion_weight,
               "heuristic_weight": o.heuristic_weight, "random_weight": o.random_weight}  # fmt: skip
    for name, w in weights.items():
        _number(f"opponents.{name}", w, 0)
    if sum(weights.values()) <= 0:
        raise ConfigError(f"opponents: the four weights must have a positive sum, got {weights}")
    _need(o.snapshot_every >= 1, "opponents.snapshot_every", o.snapshot_every, ">= 1 (learner decisions)")
    _need(o.pool_size >= 1, "opponents.pool_size", o.pool_size, ">= 1")

    # --- eval
    _validate_eval(cfg.eval)

    # --- pretrain
    t = cfg.pretrain
    _need(t.positions >= 0, "pretrain.positions", t.positions, ">= 0 (0: no warm start)")
    _need(t.epochs >= 1, "pretrain.epochs", t.epochs, ">= 1")
    _need(t.batch_size >= 1, "pretrain.batch_size", t.batch_size, ">= 1")
    _number("pretrain.learning_rate", t.learning_rate, 0, low_open=True)
    _number("pretrain.value_weight", t.value_weight, 0)
    _number("pretrain.random_share", t.random_share, 0, 1)
    _need(t.workers >= 1, "pretrain.workers", t.workers, ">= 1")
    if not (math.isfinite(t.soft_temperature) and t.soft_temperature >= 0):
        raise ConfigError(f"pretrain.soft_temperature must be >= 0 (0: hard labels), got {t.soft_temperature}")
    from agents.registry import AgentSpecError, resolve_spec

    try:
        resolve_spec(t.teacher)
    except AgentSpecError as err:
        raise ConfigError(f"pretrain.teacher: {_one_line(err)}") from None

    if fresh and cfg.init_from:
        _validate_init_from(cfg)


def _validate_eval(e: EvalConfig) -> None:
    from eval.deals import DealSetError, load_named, require_development
    from eval.promote import PromotionConfig

    _need(e.every >= 0, "eval.every", e.every, ">= 0 (0: only the final evaluation)")
    _need(e.workers >= 1, "eval.workers", e.workers, ">= 1")
    _number("eval.promotion_alpha", e.promotion_alpha, 0, 0.5, low_open=True, high_open=True)
    for key, name, deals in (
        ("eval.deal_set", e.deal_set, e.deals),
        ("eval.final_deal_set", e.final_deal_set, e.final_deals),
    ):
        try:
            ds = load_named(name)
            if key == "eval.deal_set" and e.promote:
                require_development(ds, "promotion during training")
        except DealSetError as err:
            raise ConfigError(f"{key}: {_one_line(err)}") from None
        count_key = "eval.deals" if key == "eval.deal_set" else "eval.final_deals"
        _need(1 <= deals <= len(ds), count_key, deals, f"in [1, {len(ds)}] (the deals of {name})")
    looks = PromotionConfig.__dataclass_fields__["looks"].default  # the promotion test's looks
    if e.promote:
        _need(e.deals >= looks, "eval.deals", e.deals, f">= {looks} when eval.promote is true (one per look)")


def _validate_init_from(cfg: TrainConfig) -> None:
    """``init_from`` is a verified bundle whose architecture is the one this config builds."""
    from agents.bundle import BundleError, load_net
    from agents.network import NetSpec
    from baloot_env.observation import OBS_SIZE

    try:
        net, _ = load_net(cfg.init_from)
    except BundleError as err:
        raise ConfigError(f"init_from: {_one_line(err)}") from None
    n = cfg.net
    want = NetSpec(trunk=tuple(n.trunk), head_hidden=n.head_hidden, value_hidden=tuple(n.value_hidden),
                   privileged_critic=n.privileged_critic, obs_size=OBS_SIZE)  # fmt: skip
    if net.spec != want:
        raise ConfigError(f"init_from: bundle {cfg.init_from} has architecture {net.spec.to_dict()}, "
                          f"but this run's net config gives {want.to_dict()}")  # fmt: skip


def to_dict(cfg: TrainConfig) -> dict:
    """Plain nested dict (tuples as lists) for YAML and manifests."""
    return yaml.safe_load(yaml.safe_dump(_plain(dataclasses.asdict(cfg))))


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def save_config(cfg: TrainConfig, path: Path) -> None:
    from baloot_env.atomic import write_text_atomic

    write_text_atomic(path, yaml.safe_dump(to_dict(cfg), sort_keys=False))
