"""Typed training configuration: frozen dataclasses filled from YAML, overridable on the command line.

``load_config(path, overrides)`` reads ``configs/*.yaml``; unknown keys are an error naming the
key and the section; ``--set section.key=value`` overrides parse as YAML scalars. The resolved
config is saved with every run (``config.yaml`` in the run directory).
"""

from __future__ import annotations

import dataclasses
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


def config_from_dict(data: dict, overrides: list[str] | None = None) -> TrainConfig:
    """Build a TrainConfig from a dict plus ``key.path=value`` overrides."""
    data = yaml.safe_load(yaml.safe_dump(data or {}))  # deep copy with plain types
    for item in overrides or []:
        if "=" not in item:
            raise ConfigError(f"override {item!r} must look like section.key=value")
        key, raw = item.split("=", 1)
        _set_path(data, key.strip(), yaml.safe_load(raw))
    cfg = _build(TrainConfig, data, "")
    validate(cfg)
    return cfg


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config (or the defaults when ``path`` is None) and apply overrides."""
    data: dict = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"config file {p} does not exist")
        data = yaml.safe_load(p.read_text()) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"config file {p} must hold a mapping at the top level")
    return config_from_dict(data, overrides)


def validate(cfg: TrainConfig) -> None:
    """Cross-field checks with readable messages."""
    from baloot_env.rules import RuleConfig

    if cfg.env.episode not in ("hand", "match"):
        raise ConfigError(f"env.episode must be 'hand' or 'match', got {cfg.env.episode!r}")
    RuleConfig.from_dict(cfg.env.rules)
    if cfg.ppo.n_envs < 1 or cfg.ppo.n_steps < 1 or cfg.ppo.batch_size < 2:
        raise ConfigError("ppo.n_envs and ppo.n_steps must be >= 1 and ppo.batch_size >= 2")
    w = cfg.opponents
    weights = (w.self_weight, w.champion_weight, w.heuristic_weight, w.random_weight)
    if min(weights) < 0 or sum(weights) <= 0:
        raise ConfigError(f"opponent weights must be >= 0 with a positive sum, got {weights}")
    if not cfg.net.trunk:
        raise ConfigError("net.trunk needs at least one layer")
    if cfg.pretrain.soft_temperature < 0:
        raise ConfigError(f"pretrain.soft_temperature must be >= 0 (0: hard labels), got {cfg.pretrain.soft_temperature}")


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
