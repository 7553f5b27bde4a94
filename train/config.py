"""Typed training configuration: frozen dataclasses filled from YAML, overridable on the command line.

The dataclass defaults *are* the main job's recipe, ``configs/default.yaml`` (a test holds them
equal field by field), so ``load_config(None)`` or a partial YAML file gets that recipe. Every
field carries its meaning (``metadata["help"]``); ``python -m train --help`` lists every key with
its default and meaning from there (``config_help``), so the help, the dataclasses and the YAML
cannot drift apart.

``load_config(path, overrides)`` reads a YAML file (``configs/default.yaml`` and
``configs/strong.yaml`` also ship inside the package, ``train/configs/``, and are found there when
the relative path does not exist); unknown keys are an error naming the key and the section;
``--set section.key=value`` overrides parse as YAML scalars. The resolved config is saved with
every run (``config.yaml`` in the run directory).
"""

from __future__ import annotations

import dataclasses
import math
import os
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, get_type_hints

import torch
import yaml

from agents.neural.bundle import BundleError, load_net
from agents.neural.network import BalootNet, NetSpec
from agents.neural.precision import PRECISIONS
from agents.neural.widen import widens
from agents.registry import AgentSpecError, make_agent
from agents.search_player.player import MAX_WORLDS
from agents.teacher import guided
from baloot_cli import MAX_WORKERS, memory_need, parse_yaml
from baloot_env.config import from_mapping
from baloot_env.errors import ConfigError
from baloot_env.observation import OBS_SIZE
from baloot_env.rewards import REWARD_MODES, REWARD_SCALE, Reward
from baloot_env.rules import RuleConfig
from baloot_io.atomic import write_text_atomic
from baloot_io.reading import InputFileError, read_text_checked
from eval.deals import DealSetError, load_named, require_development
from eval.games import PERSON, GamesError, load_games
from eval.promote import DEFAULT_LOOKS
from train.hardware import DEVICES, resolve_device
from train.labels import TARGETS, position_bytes


def _f(default: Any, help: str) -> Any:  # noqa: A002 - argparse's word for it
    """A dataclass field with its default and its meaning (read by ``config_help``)."""
    return field(default=default, metadata={"help": help})


MAX_PROCESSES = MAX_WORKERS  # learner processes of one run (ppo.processes, train.learners)
CONFIG_KEY = "config key"  # what one key is called in the messages of from_mapping


@dataclass(frozen=True)
class NetConfig:
    """The policy network: shared trunk, card-play head, bidding head, value head."""

    trunk: tuple[int, ...] = _f((256, 256), "widths of the shared trunk's hidden layers")
    head_hidden: int = _f(128, "width of the hidden layer of the card-play head and of the bidding head")
    value_hidden: tuple[int, ...] = _f((128,), "widths of the value head's hidden layers")
    privileged_critic: bool = _f(True, "the value head also sees all four hands (training only; the policy never does)")

    def spec(self) -> NetSpec:
        """The network's architecture over this observation version's inputs."""
        return NetSpec(
            trunk=tuple(self.trunk),
            head_hidden=self.head_hidden,
            value_hidden=tuple(self.value_hidden),
            privileged_critic=self.privileged_critic,
            obs_size=OBS_SIZE,
        )


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO hyper-parameters (sb3-contrib names)."""

    n_envs: int = _f(128, "self-play games stepped together")
    n_steps: int = _f(32, "learner decisions per game per rollout (a rollout is n_envs * n_steps)")
    batch_size: int = _f(1024, "minibatch size of a PPO update, in [2, n_envs * n_steps]")
    n_epochs: int = _f(4, "passes over each rollout")
    learning_rate: float = _f(5e-5, "Adam step size")
    gamma: float = _f(1.0, "discount per learner decision")
    gae_lambda: float = _f(0.95, "GAE lambda")
    clip_range: float = _f(0.2, "PPO clipping of the probability ratio")
    ent_coef: float = _f(0.003, "weight of the entropy bonus")
    vf_coef: float = _f(0.5, "weight of the value loss")
    max_grad_norm: float = _f(0.5, "gradients are clipped to this norm")
    total_steps: int = _f(2_000_000, "learner decisions of PPO (0: warm start and evaluation only)")
    precision: str = _f(
        "auto",
        "number format of the update's matrix work: 'fp32', 'bf16' (autocast, train.policy.BalootPolicy), "
        "or 'auto': bf16 where the processor has hardware bf16, else fp32 (train.hardware)",
    )
    processes: int = _f(
        2,
        "learner processes (one a core): each plays n_envs / processes of the games and takes batch_size / "
        "processes of each minibatch, and their gradients are averaged, so the update is the whole batch's (train.learners)",
    )


@dataclass(frozen=True)
class EnvConfig:
    """The games the learner plays."""

    episode: str = _f("hand", "'hand' (one deal a game) or 'match' (R8, to 152)")
    reward: str = _f("diff", "'diff': hand score difference / reward_scale; 'points': unscaled; 'win': +-1 at the end")
    reward_scale: float = _f(REWARD_SCALE, "hand score differences are divided by this (44 = a Sun kaboot, R7.6)")
    match_bonus: float = _f(1.0, "match episodes: added for the winner, subtracted for the loser at the end")
    rules: RuleConfig = field(
        default_factory=RuleConfig,
        metadata={
            "help": "the rule variants V1-V9 (RuleConfig fields) of every game the run plays, "
            "evaluations included; {} = the RULES.md defaults"
        },
    )

    def as_reward(self) -> Reward:
        """How the run's games pay the teams (the training reward the value head learns), as a ``Reward``
        (the field ``reward`` is its mode, so the method takes another name)."""
        return Reward(self.reward, self.reward_scale, self.match_bonus)


@dataclass(frozen=True)
class OpponentConfig:
    """Mixing weights of the opponent pool and how it is refreshed."""

    self_weight: float = _f(0.3, "weight of recent snapshots of the learner")
    champion_weight: float = _f(0.1, "weight of past champions")
    heuristic_weight: float = _f(0.5, "weight of the rule-based heuristic agent")
    random_weight: float = _f(0.1, "weight of the random agent")
    snapshot_every: int = _f(50_000, "learner decisions between snapshots of the learner")
    pool_size: int = _f(8, "recent snapshots kept")


@dataclass(frozen=True)
class EvalConfig:
    """Periodic duplicate evaluation and promotion."""

    every: int = _f(2_000_000, "learner decisions between evaluations (0: only the final one)")
    deal_set: str = _f("dev960", "deal set of the periodic evaluations and promotion tests (a development set)")
    deals: int = _f(192, "deals of deal_set played per periodic evaluation")
    final_deal_set: str = _f("test960", "deal set of the final report")
    final_deals: int = _f(960, "deals of final_deal_set played in the final report")
    workers: int = _f(2, "processes playing evaluation games")
    opponents: tuple[str, ...] = _f(
        ("heuristic",),
        "agents (names or spec files) every evaluation plays beside the champion, e.g. [heuristic, search]",
    )
    promote: bool = _f(True, "test the policy against the champion at each evaluation and promote it when better")
    # Each test gets a share, so the chance of any false promotion in the run stays at most this.
    promotion_alpha: float = _f(0.025, "the false-promotion rate a whole run spends over its tests, in (0, 0.5)")


@dataclass(frozen=True)
class PretrainConfig:
    """Behaviour-cloning warm start from a teacher agent (``train.pretrain``); ``positions: 0`` is off."""

    positions: int = _f(1_500_000, "positions of teacher self-play imitated (0: no warm start)")
    epochs: int = _f(5, "passes over the positions")
    batch_size: int = _f(512, "minibatch size")
    learning_rate: float = _f(1e-3, "Adam step size")
    value_weight: float = _f(0.5, "weight of the value loss (hand outcomes) beside the imitation loss")
    random_share: float = _f(0.1, "share of moves played at random while collecting")
    teacher: str = _f(
        "policies/champion", "the agent imitated (an agent spec: 'heuristic', 'search', a file, or a policy bundle)"
    )
    workers: int = _f(2, "processes labelling the positions and, on the CPU, fitting them (train.supervised)")
    soft_temperature: float = _f(
        1.0, "> 0: searched choices teach softmax(value / T), T in game points; a bundle its probabilities at T"
    )
    augment: bool = _f(True, "rename the suits of each position at random (train.augment; R1 is suit-symmetric)")
    precision: str = _f(
        "auto",
        "number format of the fit's matrix work: 'fp32', 'bf16' (autocast, train.supervised), "
        "or 'auto': bf16 where the processor has hardware bf16, else fp32 (train.hardware)",
    )
    backend: str = _f(
        "core",
        "where 'heuristic' or a policy bundle labels its self-play: 'core' (the batched core, with "
        "the numba twin of the heuristic or one forward pass a step) or 'python' (the driver); other "
        "teachers always play on the driver",
    )
    games: str = _f(
        "",
        "a file of people's games (python -m table export): every move a person made there, under "
        "the run's rules, is imitated beside the teacher's positions (with positions: 0, alone)",
    )

    @property
    def on(self) -> bool:
        """Whether there is a warm start: the teacher's positions, people's games, or both."""
        return self.positions > 0 or bool(self.games)

    def describe(self) -> str:
        """What the warm start imitates, for the log."""
        what = [f"{self.teacher} on {self.positions:,} positions"] if self.positions > 0 else []
        if self.games:
            what.append(f"the people's moves in {self.games}")
        return "imitating " + " and ".join(what)


@dataclass(frozen=True)
class CallsConfig:
    """After PPO, one step of policy iteration on the calls (``train.call_iteration``): the
    searched calls of sampled deals teach the policy's bid head; ``positions: 0`` is off."""

    positions: int = _f(0, "call decisions (bidding, doubling) labelled by searched calls (0: no call step)")
    worlds: int = _f(128, "sampled deals per searched call")
    condition: bool = _f(True, "keep only deals in which the heuristic makes the calls so far")
    heuristic_share: float = _f(0.5, "share of the labelled hands whose other team is heuristic (else the policy)")
    epochs: int = _f(20, "passes over the labelled calls")
    batch_size: int = _f(256, "minibatch size")
    learning_rate: float = _f(1e-3, "Adam step size of the bid head (the rest of the network is frozen)")


@dataclass(frozen=True)
class ExpertConfig:
    """Expert iteration after the warm start, before PPO (``train.expert``): each round the
    learner's own games are labelled by a lookahead teacher and fitted, then tested for
    promotion on ``eval.deal_set``; ``rounds: 0`` is off."""

    rounds: int = _f(1, "rounds of play, label, fit and promotion test (0: no expert iteration)")
    positions: int = _f(50_000, "positions of the learner's games labelled per round")
    teacher: str = _f(
        "configs/teacher_w128.json",
        "the lookahead teacher: an agent spec whose judgement values the cards (agents.teacher), and the calls if it searches them ('search', a file)",
    )
    learner_share: float = _f(
        1.0, "share of the other moves played by the learner's sampled policy (the rest by the teacher)"
    )
    random_share: float = _f(0.03, "share of moves played at random")
    targets: str = _f(
        "matched",
        "'improve': the learner's policy times exp(value / temperature) on searched choices (train.labels); "
        "'teacher': the teacher's action, or softmax(value / temperature) with temperature > 0; "
        "'matched': the learner's policy times exp(-gap / its standard error), unchanged where the teacher "
        "cannot tell the cards apart (the temperature unused)",
    )
    temperature: float = _f(0.05, "of the targets, in game points of the teacher's values")
    epochs: int = _f(8, "passes over each round's positions")
    batch_size: int = _f(512, "minibatch size")
    learning_rate: float = _f(3e-4, "Adam step size")
    value_weight: float = _f(0.5, "weight of the value loss (the learner's hand outcomes)")
    consistency: float = _f(
        0.0,
        "weight of the consistency loss from the second epoch: (V.detach() - the policy's mean of the teacher's "
        "values, in reward units)^2 on searched choices (train.fitting; 0: off)",
    )
    augment: bool = _f(True, "rename the suits of each position at random (train.augment)")
    precision: str = _f("auto", "number format of the fit's matrix work (as pretrain.precision)")
    workers: int = _f(2, "processes labelling the positions and, on the CPU, fitting them")
    aggregate: int = _f(
        0,
        "earlier rounds whose labels each round fits again beside its own (DAgger's aggregation; "
        "kept in RUN_DIR/expert_labels); 0: the round's own labels only",
    )
    guide: bool = _f(
        False,
        "with a netsearch teacher of leaves 'policy': the round's learner plays its playouts "
        "(the network guides the search that teaches it), not the teacher's rollout bundle",
    )
    self_agreement: float = _f(
        0.0,
        "the teacher's own agreement on its equally good cards (python -m train noise, docs/RESULTS.md); "
        "each fit prints the student's agreement as a share of it (0: unknown)",
    )


@dataclass(frozen=True)
class TrainConfig:
    """Everything ``python -m train`` needs; one seed drives every random choice."""

    seed: int = _f(0, "the one seed behind every random choice of the run")
    run_dir: str = _f("runs/default", "folder of checkpoints, logs, bundles and the resolved config.yaml")
    torch_threads: int = _f(1, "torch threads (1 measured faster than 2 on a 2-core machine, docs/BENCHMARKS.md)")
    device: str = _f(
        "auto",
        "where the learner's network trains: 'cpu', 'cuda', or 'auto' (CUDA when torch sees a GPU; train.hardware)",
    )
    checkpoint_every: int = _f(100_000, "learner decisions between checkpoints")
    log_every: int = _f(20_000, "learner decisions between progress lines")
    init_from: str = _f(
        "",
        "a policy bundle whose weights start the network (its architecture, or one with the same layers each at most as wide: widened, agents.neural.widen); '' = fresh",
    )
    net: NetConfig = field(default_factory=NetConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    env: EnvConfig = field(default_factory=EnvConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    expert: ExpertConfig = field(default_factory=ExpertConfig)
    calls: CallsConfig = field(default_factory=CallsConfig)


def iter_fields(cls: type[Any] = TrainConfig, prefix: str = "") -> Iterator[tuple[str, Any, str]]:
    """``(dotted key, default, meaning)`` of every leaf field, in declaration order."""
    for f in dataclasses.fields(cls):
        key = f"{prefix}{f.name}"
        typ = get_type_hints(cls)[f.name]
        if isinstance(typ, type) and dataclasses.is_dataclass(typ) and typ is not RuleConfig:  # the rules are one value
            yield from iter_fields(typ, key + ".")
        else:
            default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
            yield key, default, f.metadata["help"]


def show_value(value: Any) -> str:
    """A default as it is written in YAML and in ``--set``: ``[256, 256]``, ``dev960``, ``''``;
    rules as the switches that differ from RULES.md (``{}`` for none)."""
    if isinstance(value, RuleConfig):
        value = value.changes()
    if isinstance(value, tuple):
        value = list(value)
    out: str = yaml.safe_dump(value, default_flow_style=True, width=1000).strip().removesuffix("\n...").strip()
    return out


_COLUMN = 40  # where the meanings start in config_help


def config_help(width: int = 100) -> str:
    """Every config key with its default and meaning, by section (the epilog of ``--help``)."""
    lines = ["config keys (--set KEY=VALUE; the defaults are configs/default.yaml):"]
    section = None
    for key, default, meaning in iter_fields():
        head = key.split(".")[0] if "." in key else None
        if head != section:
            section = head
            cls = get_type_hints(TrainConfig)[head or ""]
            lines.append(f" {head}: {cls.__doc__.splitlines()[0].replace('``', '')}")
        left = f"  {key} = {show_value(default)}"
        text = textwrap.wrap(meaning, width=max(30, width - _COLUMN)) or [""]
        if len(left) < _COLUMN:
            lines.append(f"{left:<{_COLUMN}}{text[0]}")
        else:
            lines.extend([left, " " * _COLUMN + text[0]])
        lines.extend(" " * _COLUMN + t for t in text[1:])
    return "\n".join(lines)


def config_reference_markdown() -> str:
    """Every config key with its default and meaning, by section, as markdown tables: the
    documentation's config reference (docs/config.md), from the same fields as ``config_help``."""
    lines: list[str] = []
    section: str | None = "-"
    for key, default, meaning in iter_fields():
        head = key.split(".")[0] if "." in key else None
        if head != section:
            section = head
            cls = get_type_hints(TrainConfig)[head or ""] if head else TrainConfig
            doc = (cls.__doc__ or "").splitlines()[0].replace("``", "`") if head else ""
            title = f"`{head}`: {doc}" if head else "Top-level keys"
            lines += ["" if lines else "", f"### {title}", "", "| key | default | meaning |", "|---|---|---|"]
        cell = meaning.replace("|", "\\|").replace("``", "`")
        lines.append(f"| `{key}` | `{show_value(default)}` | {cell} |")
    return "\n".join(lines).strip("\n")


def _set_path(data: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node = data
    for k in keys[:-1]:
        node = node.setdefault(k, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {dotted}: {k} is not a section")
    node[keys[-1]] = value


def apply_overrides(data: dict[str, Any] | None, overrides: list[str] | None) -> dict[str, Any]:
    """A plain deep copy of ``data`` with each ``section.key=value`` override (a YAML value) set."""
    data = yaml.safe_load(yaml.safe_dump(data or {}))  # deep copy with plain types
    for item in overrides or []:
        if "=" not in item:
            raise ConfigError(f"override {item!r} must look like section.key=value")
        key, raw = item.split("=", 1)
        try:
            value = parse_yaml(raw, f"override {key.strip()!r}")  # too deep, or a number too long: one line
        except yaml.YAMLError as e:
            raise ConfigError(f"override {item[:120]!r}: the value is not valid YAML: {_one_line(e)}") from None
        except InputFileError as e:
            raise ConfigError(str(e)) from None
        _set_path(data, key.strip(), value)
    return data


def config_from_dict(data: dict[str, Any], overrides: list[str] | None = None, *, fresh: bool = True) -> TrainConfig:
    """Build and validate a TrainConfig from a dict plus ``key.path=value`` overrides."""
    data = apply_overrides(data, overrides)
    cfg = from_mapping(TrainConfig, data, CONFIG_KEY)
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
    return config_from_dict(read_config_file(path), overrides, fresh=fresh)


def packaged_config(path: str | Path) -> Traversable | None:
    """The config shipped in the package (``train/configs/NAME.yaml``) that a relative path
    ``configs/NAME.yaml`` names, when no such file exists here (an installed wheel, another folder).
    """
    p = Path(path)
    if p.is_absolute() or p.exists() or len(p.parts) != 2 or p.parts[0] != "configs":
        return None
    shipped = resources.files("train") / "configs" / p.name
    return shipped if shipped.is_file() else None


def agent_spec(spec: str) -> str:
    """``spec`` as the agent registry reads it: ``configs/NAME.json`` (a teacher's spec, say
    ``expert.teacher``'s default) is the package's ``train/configs/NAME.json`` when no such file
    exists here (an installed wheel, another folder), as ``packaged_config`` finds a YAML config."""
    p = Path(spec)
    if p.suffix != ".json" or p.is_absolute() or p.exists() or len(p.parts) != 2 or p.parts[0] != "configs":
        return spec
    shipped = resources.files("train") / "configs" / p.name
    return str(shipped) if shipped.is_file() else spec


def read_config_file(path: str | Path | None) -> dict[str, Any]:
    """The mapping a YAML config file holds (``{}`` for None); ``configs/NAME.yaml`` is found in
    the package when no such file exists here. Shared by ``load_config`` and the RLlib backend's.

    Raises:
        ConfigError: a missing or unreadable file, bad YAML, or no mapping at the top level.
    """
    data: dict[str, Any] = {}
    if path is not None:
        p: Path | Traversable = Path(path)
        if not p.is_file():
            p = packaged_config(path) or p
        if not p.is_file() and not (isinstance(p, Path) and os.path.lexists(p)):
            raise ConfigError(f"config file {p} does not exist")
        try:
            text = read_text_checked(p, "config file") if isinstance(p, Path) else p.read_text(encoding="utf-8")
            data = parse_yaml(text, f"config file {p}") or {}
        except InputFileError as e:
            raise ConfigError(str(e)) from None
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"config file {p} cannot be read: {e}") from None
        except yaml.YAMLError as e:
            raise ConfigError(f"config file {p} is not valid YAML: {_one_line(e)}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"config file {p} must hold a mapping at the top level")
    return data


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


def _need(ok: bool, key: str, value: Any, what: str) -> None:
    if not ok:
        raise ConfigError(f"{key} must be {what}, got {value!r}")


def _number(
    key: str,
    value: float,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> None:
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

    Ranges of every number, the rules (a ``RuleConfig``, checked when built), the deal sets (they exist; the
    promotion set is a development set, since a promotion is a choice), the warm start's
    teacher (an agent spec), and, for a fresh run, ``init_from`` (a verified bundle of this
    architecture).
    """
    # --- top level
    _need(0 <= cfg.seed < 2**32, "seed", cfg.seed, "in [0, 2**32)")  # numpy's legacy seeding range
    _need(bool(cfg.run_dir.strip()), "run_dir", cfg.run_dir, "a folder path")
    _need(cfg.torch_threads >= 1, "torch_threads", cfg.torch_threads, ">= 1")
    _need(cfg.device in DEVICES, "device", cfg.device, " or ".join(repr(x) for x in DEVICES))
    _need(
        cfg.device != "cuda" or resolve_device("auto") == "cuda",
        "device",
        cfg.device,
        "a GPU torch sees ('auto' or 'cpu' here)",
    )
    _need(cfg.checkpoint_every >= 1, "checkpoint_every", cfg.checkpoint_every, ">= 1 (learner decisions)")
    _need(cfg.log_every >= 1, "log_every", cfg.log_every, ">= 1 (learner decisions)")

    # --- net
    try:
        cfg.net.spec()  # NetSpec's own checks: the widths a network can be built with
    except ValueError as err:
        raise ConfigError(str(err).replace("net ", "net.", 1)) from None
    _validate_ppo(cfg)
    _validate_env(cfg.env)
    _validate_opponents(cfg.opponents)
    _validate_eval(cfg.eval)
    _validate_pretrain(cfg)
    _validate_expert(cfg)
    validate_calls(cfg.calls)
    if fresh and cfg.init_from:
        init_bundle(cfg.init_from, cfg.net.spec())


def _validate_ppo(cfg: TrainConfig) -> None:
    p = cfg.ppo
    _need(p.n_envs >= 1, "ppo.n_envs", p.n_envs, ">= 1")
    _need(p.n_steps >= 1, "ppo.n_steps", p.n_steps, ">= 1")
    rollout = p.n_envs * p.n_steps
    _need(2 <= p.batch_size <= rollout, "ppo.batch_size", p.batch_size, f"in [2, ppo.n_envs * ppo.n_steps = {rollout}]")
    _need(p.n_epochs >= 1, "ppo.n_epochs", p.n_epochs, ">= 1")
    _number("ppo.learning_rate", p.learning_rate, 0, low_open=True)
    _number("ppo.gamma", p.gamma, 0, 1)
    _number("ppo.gae_lambda", p.gae_lambda, 0, 1)
    _number("ppo.clip_range", p.clip_range, 0, low_open=True)
    _number("ppo.ent_coef", p.ent_coef, 0)
    _number("ppo.vf_coef", p.vf_coef, 0)
    _number("ppo.max_grad_norm", p.max_grad_norm, 0, low_open=True)
    _need(p.total_steps >= 0, "ppo.total_steps", p.total_steps, ">= 0 (learner decisions)")
    _need(p.precision in PRECISIONS, "ppo.precision", p.precision, " or ".join(repr(x) for x in PRECISIONS))
    _need(1 <= p.processes <= MAX_PROCESSES, "ppo.processes", p.processes, f"in [1, {MAX_PROCESSES}]")
    for key, value in (("n_envs", p.n_envs), ("batch_size", p.batch_size)):
        _need(value % p.processes == 0, f"ppo.{key}", value, f"a multiple of ppo.processes = {p.processes}")

    _fits("ppo.n_envs * ppo.n_steps", f"a rollout of {rollout:,} decisions", rollout, cfg.net.privileged_critic)


def _validate_env(e: EnvConfig) -> None:
    _need(e.episode in ("hand", "match"), "env.episode", e.episode, "'hand' or 'match'")
    _need(e.reward in REWARD_MODES, "env.reward", e.reward, " or ".join(repr(r) for r in REWARD_MODES))
    _number("env.reward_scale", e.reward_scale, 0, low_open=True)
    _number("env.match_bonus", e.match_bonus, 0)
    _need(isinstance(e.rules, RuleConfig), "env.rules", e.rules, "a RuleConfig")


def _validate_opponents(o: OpponentConfig) -> None:
    weights = {
        "self_weight": o.self_weight,
        "champion_weight": o.champion_weight,
        "heuristic_weight": o.heuristic_weight,
        "random_weight": o.random_weight,
    }
    for name, w in weights.items():
        _number(f"opponents.{name}", w, 0)
    if sum(weights.values()) <= 0:
        raise ConfigError(f"opponents: the four weights must have a positive sum, got {weights}")
    _need(o.snapshot_every >= 1, "opponents.snapshot_every", o.snapshot_every, ">= 1 (learner decisions)")
    _need(o.pool_size >= 1, "opponents.pool_size", o.pool_size, ">= 1")


def _validate_pretrain(cfg: TrainConfig) -> None:
    t = cfg.pretrain
    _need(t.positions >= 0, "pretrain.positions", t.positions, ">= 0 (0: no warm start)")
    _fits("pretrain.positions", f"{t.positions:,} labelled positions", t.positions, cfg.net.privileged_critic)
    _need(t.epochs >= 1, "pretrain.epochs", t.epochs, ">= 1")
    _need(t.batch_size >= 1, "pretrain.batch_size", t.batch_size, ">= 1")
    _number("pretrain.learning_rate", t.learning_rate, 0, low_open=True)
    _number("pretrain.value_weight", t.value_weight, 0)
    _number("pretrain.random_share", t.random_share, 0, 1)
    _need(1 <= t.workers <= MAX_WORKERS, "pretrain.workers", t.workers, f"in [1, {MAX_WORKERS}]")
    _need(t.precision in PRECISIONS, "pretrain.precision", t.precision, " or ".join(repr(x) for x in PRECISIONS))
    if not (math.isfinite(t.soft_temperature) and t.soft_temperature >= 0):
        raise ConfigError(f"pretrain.soft_temperature must be >= 0 (0: hard labels), got {t.soft_temperature}")
    if t.backend not in ("core", "python"):
        raise ConfigError(f"pretrain.backend must be 'core' or 'python', got {t.backend!r}")

    check_agent(agent_spec(t.teacher), "pretrain.teacher")
    if t.games:
        check_games(t.games, cfg.env.rules)


def _validate_expert(cfg: TrainConfig) -> None:
    x = cfg.expert
    _need(x.rounds >= 0, "expert.rounds", x.rounds, ">= 0 (0: no expert iteration)")
    _need(x.positions >= 1, "expert.positions", x.positions, ">= 1")
    _number("expert.learner_share", x.learner_share, 0, 1)
    _number("expert.random_share", x.random_share, 0, 1)
    _need(x.targets in TARGETS, "expert.targets", x.targets, " or ".join(repr(t) for t in TARGETS))
    _number("expert.temperature", x.temperature, 0, low_open=x.targets == "improve")
    _need(x.epochs >= 1, "expert.epochs", x.epochs, ">= 1")
    _need(x.batch_size >= 1, "expert.batch_size", x.batch_size, ">= 1")
    _number("expert.learning_rate", x.learning_rate, 0, low_open=True)
    _number("expert.value_weight", x.value_weight, 0)
    _number("expert.consistency", x.consistency, 0)
    if x.consistency > 0 and cfg.env.reward == "win":
        raise ConfigError(
            "expert.consistency compares the value with the teacher's game points: it needs env.reward 'diff' or "
            "'points', not 'win'"
        )
    _need(1 <= x.workers <= MAX_WORKERS, "expert.workers", x.workers, f"in [1, {MAX_WORKERS}]")
    _need(0 <= x.aggregate <= 16, "expert.aggregate", x.aggregate, "in [0, 16] (earlier rounds)")
    _need(0 <= x.self_agreement <= 1, "expert.self_agreement", x.self_agreement, "in [0, 1] (a share)")
    held = x.positions * (1 + x.aggregate)
    what = f"{held:,} labelled positions (the round's and expert.aggregate's)"
    _fits("expert.positions", what, held, cfg.net.privileged_critic)
    _need(x.precision in PRECISIONS, "expert.precision", x.precision, " or ".join(repr(p) for p in PRECISIONS))
    check_agent(agent_spec(x.teacher), "expert.teacher")
    if x.guide:
        if not guided(agent_spec(x.teacher)):
            raise ConfigError(
                f"expert.guide needs a teacher whose playouts a network plays (netsearch, leaves 'policy'), got {x.teacher!r}"
            )


def validate_calls(c: CallsConfig) -> None:
    """The ``calls`` section's ranges (also checked by ``python -m train calls``)."""
    _need(c.positions >= 0, "calls.positions", c.positions, ">= 0 (0: no call step)")
    _fits("calls.positions", f"{c.positions:,} labelled call decisions", c.positions)
    _need(1 <= c.worlds <= MAX_WORLDS, "calls.worlds", c.worlds, f"in [1, {MAX_WORLDS:,}]")
    _number("calls.heuristic_share", c.heuristic_share, 0, 1)
    _need(c.epochs >= 1, "calls.epochs", c.epochs, ">= 1")
    _need(c.batch_size >= 1, "calls.batch_size", c.batch_size, ">= 1")
    _number("calls.learning_rate", c.learning_rate, 0, low_open=True)


def _fits(key: str, what: str, positions: int, privileged: bool = True) -> None:
    """``positions`` labelled positions (or rollout decisions) fit in this machine's memory."""
    why = memory_need(what, positions, position_bytes(privileged))
    if why is not None:
        raise ConfigError(f"{key}: {why}")


def check_agent(spec: str, where: str) -> None:
    """``spec`` builds into an agent, as every worker that plays it will build it: its file, params
    and bundles are checked here, before a run folder is touched (``ConfigError`` naming ``where``).
    Built under a forked torch generator: loading a bundle draws from torch's global one, and a
    check must not move the run's random stream."""
    try:
        with torch.random.fork_rng(devices=[]):
            make_agent(spec)
    except (AgentSpecError, ConfigError) as err:
        raise ConfigError(f"{where}: {_one_line(err)}") from None


def check_games(path: str, rules: RuleConfig) -> None:
    """``pretrain.games`` is a games file (``eval.games.load_games``: every game replays), of
    development deals (a warm start chooses the policy: not on the test set's deals), with at
    least one move of a person under the run's rules."""
    try:
        games = load_games(path)
        require_development(games.deal_set, "a warm start on people's games")
    except (GamesError, DealSetError) as err:
        raise ConfigError(f"pretrain.games: {_one_line(err)}") from None
    same = [g for g in games.games if RuleConfig.from_dict(g["rules"]) == rules]
    if not any(a[3] == PERSON for g in same for a in g["actions"]):
        raise ConfigError(
            f"pretrain.games: {path!r} holds no move of a person under the run's rules "
            f"({len(same)} of its {len(games)} games were played under them)"
        )


def _validate_eval(e: EvalConfig) -> None:
    _need(e.every >= 0, "eval.every", e.every, ">= 0 (0: only the final evaluation)")
    _need(1 <= e.workers <= MAX_WORKERS, "eval.workers", e.workers, f"in [1, {MAX_WORKERS}]")
    _number("eval.promotion_alpha", e.promotion_alpha, 0, 0.5, low_open=True, high_open=True)
    _need(len(set(e.opponents)) == len(e.opponents), "eval.opponents", list(e.opponents), "without repeats")
    for opp in e.opponents:
        check_agent(opp, "eval.opponents")
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
    looks = DEFAULT_LOOKS  # the promotion test's looks
    if e.promote:
        _need(e.deals >= looks, "eval.deals", e.deals, f">= {looks} when eval.promote is true (one per look)")


def init_bundle(path: str, spec: NetSpec) -> tuple[BalootNet, dict[str, Any]]:
    """The ``init_from`` bundle's network and manifest, verified, of architecture ``spec`` or one
    that ``spec`` widens (``agents.neural.widen``: the run grows it without changing its play).

    Loaded once: the config's validation loads it and the run frame takes the same network
    (kept for the bundle's files as they were then: their path, sizes and modification times).

    Raises:
        ConfigError: the bundle is missing or corrupt, or of another architecture.
    """
    folder = Path(path)
    stamp = (
        tuple((f.stat().st_size, f.stat().st_mtime_ns) for f in sorted(folder.glob("*")) if f.is_file())
        if folder.is_dir()
        else ()
    )
    key = (str(folder.resolve()), stamp)
    if _INIT_BUNDLE.get("key") != key:
        try:
            loaded = load_net(path)
        except BundleError as err:
            raise ConfigError(f"init_from: {_one_line(err)}") from None
        _INIT_BUNDLE.clear()
        _INIT_BUNDLE.update(key=key, loaded=loaded)
    net, manifest = _INIT_BUNDLE["loaded"]
    if net.spec != spec and not widens(net.spec, spec):
        raise ConfigError(
            f"init_from: bundle {path} has architecture {net.spec.to_dict()}, "
            f"but this run's net config gives {spec.to_dict()} (the same, or the same layers each at least as wide)"
        )
    return net, manifest


_INIT_BUNDLE: dict[str, Any] = {}  # init_bundle's last bundle: its key and (network, manifest)


def to_dict(cfg: TrainConfig) -> dict[str, Any]:
    """Plain nested dict (tuples as lists) for YAML and manifests."""
    out: dict[str, Any] = yaml.safe_load(yaml.safe_dump(_plain(dataclasses.asdict(cfg))))
    return out


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def save_config(cfg: TrainConfig, path: Path) -> None:
    write_text_atomic(path, yaml.safe_dump(to_dict(cfg), sort_keys=False))
