"""Agents by name: ``make_agent("random" | "heuristic" | PATH, seed)``.

A PATH names either a trained *policy bundle* folder (``agents.neural.bundle``: verified before it is
used) or an *agent spec file*, JSON ``{"agent": "heuristic", "params": {...}}`` (the params of
that agent, e.g. ``HeuristicConfig`` fields). ``policies/NAME`` also finds a bundle shipped in
the package (``agents/policies/NAME``) when no such folder exists here.
Every failure raises ``AgentSpecError`` with a message saying what is wrong.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.rule_based.heuristic import HeuristicAgent, HeuristicConfig
from agents.shipped import packaged_bundle
from baloot_env.errors import ConfigError
from baloot_env.hand import PLAY
from baloot_env.view import PlayerView
from baloot_io.reading import InputFileError, parse_json, read_text_checked

MAX_SPEC_DEPTH = 4  # agent spec files naming spec files: deeper is a loop (a file naming itself)


class AgentSpecError(ValueError):
    """An agent name or file that cannot be turned into an agent."""


def _make_random(seed: int, params: dict[str, Any]) -> Agent:
    if params:
        raise AgentSpecError(f"agent 'random' takes no params, got {sorted(params)}")
    return RandomAgent(seed)


def _make_heuristic(seed: int, params: dict[str, Any]) -> Agent:
    try:
        return HeuristicAgent(seed, HeuristicConfig.from_dict(params))
    except ConfigError as e:
        raise AgentSpecError(str(e)) from None


def _make_search(seed: int, params: dict[str, Any]) -> Agent:
    # imported here: the search stack (numba kernels, their cache guard) loads only when named
    from agents.search_player.player import SearchAgent, SearchConfig

    try:
        return SearchAgent(seed, SearchConfig.from_dict(params))
    except ConfigError as e:
        raise AgentSpecError(str(e)) from None


def _make_netsearch(seed: int, params: dict[str, Any], rollout: Agent | None = None) -> Agent:
    # imported here: the search stack (numba kernels, their cache guard) loads only when named
    from agents.search_player.netsearch import NetSearchAgent, NetSearchConfig

    try:
        config = NetSearchConfig.from_dict(params)
    except ValueError as e:  # ConfigError
        raise AgentSpecError(str(e)) from None
    for key in ("policy", "rollout"):
        value = getattr(config, key)
        if value and resolve_spec(value)["agent"] != "policy":
            raise AgentSpecError(f"netsearch param {key} must be a policy bundle folder, got {value!r}")
    if rollout is not None and config.leaves != "policy":
        raise AgentSpecError(f"netsearch with leaves {config.leaves!r} has no network playouts for a rollout agent")
    if rollout is None and config.rollout:
        rollout = make_agent(config.rollout, seed)
    return NetSearchAgent(seed, config, make_agent(config.policy, seed), rollout)


class SplitAgent(Agent):
    """Calls (bidding R3, doubling R4) by one agent, card play (R5) by another.

    A diagnostic: playing ``{"bidding": "heuristic", "play": BUNDLE}`` against ``heuristic``
    (and the other way round) shows which of a policy's two heads costs it points.
    """

    def __init__(self, seed: int, bidding: Agent, play: Agent):
        super().__init__(seed)
        self.bidding, self.play = bidding, play
        self.name = f"split({bidding.name}+{play.name})"

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.bidding.reset(seed)
        self.play.reset(seed)

    def act(self, view: PlayerView) -> int:
        return (self.play if view.phase == PLAY else self.bidding).act(view)

    def describe(self) -> dict[str, Any]:
        return {"agent": "split", "bidding": self.bidding.describe(), "play": self.play.describe()}


def _make_split(seed: int, params: dict[str, Any]) -> Agent:
    if set(params) != {"bidding", "play"}:
        raise AgentSpecError(f"agent 'split' takes params 'bidding' and 'play' (agent specs), got {sorted(params)}")
    return SplitAgent(seed, make_agent(params["bidding"], seed), make_agent(params["play"], seed))


def _make_ismcts(seed: int, params: dict[str, Any]) -> Agent:
    try:
        # needs open-spiel (the openspiel extra): imported only when named
        from agents.ismcts import make_ismcts
    except ImportError:
        raise AgentSpecError("agent 'ismcts' needs open-spiel: pip install -e '.[openspiel]'") from None
    try:
        return make_ismcts(seed, params)
    except ValueError as e:  # ConfigError too
        raise AgentSpecError(str(e)) from None


AGENTS: dict[str, Callable[[int, dict[str, Any]], Agent]] = {
    "random": _make_random,
    "heuristic": _make_heuristic,
    "search": _make_search,
    "split": _make_split,
    "netsearch": _make_netsearch,
    "ismcts": _make_ismcts,
}


# The params that name other agents (agent specs), by agent.
SPEC_PARAMS: dict[str, tuple[str, ...]] = {"split": ("bidding", "play"), "netsearch": ("policy", "rollout")}


def known_agents() -> list[str]:
    """Names accepted by ``make_agent`` besides paths."""
    return sorted(AGENTS)


def load_spec_file(path: str) -> dict[str, Any]:
    """Read and check an agent spec file; returns ``{"agent": name, "params": {...}}``."""
    if os.path.isdir(path):
        raise AgentSpecError(f"{path!r} is a directory, not an agent spec file (policy bundles: agents.load_policy)")
    try:
        data = parse_json(read_text_checked(path, "agent file"), f"agent file {path!r}")
    except InputFileError as e:
        raise AgentSpecError(str(e)) from None
    except json.JSONDecodeError as e:
        raise AgentSpecError(f"agent file {path!r} is not valid JSON (corrupt?): {e}") from None
    if not isinstance(data, dict) or "agent" not in data:
        raise AgentSpecError(f'agent file {path!r} must be a JSON object {{"agent": NAME, "params": {{...}}}}')
    extra = sorted(set(data) - {"agent", "params", "comment"})
    if extra:
        raise AgentSpecError(f"agent file {path!r} has unknown keys {extra}")
    name, params = data["agent"], data.get("params", {})
    if name not in AGENTS:
        raise AgentSpecError(f"agent file {path!r} names unknown agent {name!r}; known: {known_agents()}")
    if not isinstance(params, dict):
        raise AgentSpecError(f"agent file {path!r}: params must be an object")
    return {"agent": name, "params": params}


SB3_PREFIX = "sb3:"  # sb3:PATH, a Stable-Baselines3 model zip (agents.neural.sb3)
FACTORY = re.compile(r"(?P<module>[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*):(?P<factory>[A-Za-z_][\w]*)")


def resolve_spec(spec: str) -> dict[str, Any]:
    """``{"agent": name, "params": {...}}`` for a name, a spec file path, a policy bundle
    (``{"agent": "policy", "path": ...}``), ``sb3:PATH`` (``{"agent": "sb3", "path": ...}``: a
    Stable-Baselines3 model zip, read without unpickling, ``agents.neural.sb3``) or
    ``module:factory`` (``{"agent": "python", ...}``: a Python callable, imported from an
    installed or current-folder module, that returns an Agent given a seed; your own code, run
    as you ask, as ``python -c`` would)."""
    if not isinstance(spec, str) or not spec:
        raise AgentSpecError(f"an agent is a name {known_agents()} or a path, got {spec!r}")
    if spec in AGENTS:
        return {"agent": spec, "params": {}}
    if spec.startswith(SB3_PREFIX):  # a Stable-Baselines3 model: read and checked now, as a bundle is
        # needs torch (the train extra): imported only when a network is used
        from agents.neural.sb3 import Sb3Error, check_sb3

        try:
            check_sb3(spec[len(SB3_PREFIX) :])
        except Sb3Error as e:
            raise AgentSpecError(str(e)) from None
        return {"agent": "sb3", "path": spec[len(SB3_PREFIX) :], "params": {}}
    factory = FACTORY.fullmatch(spec)
    if factory and not os.path.exists(spec):
        return {"agent": "python", "module": factory["module"], "factory": factory["factory"], "params": {}}
    if spec.endswith(".zip") and os.path.isfile(spec):
        raise AgentSpecError(
            f"{spec!r} is a zip file, not an agent file: a Stable-Baselines3 model is named sb3:{spec}"
        )
    spec = packaged_bundle(spec) or spec
    if os.path.isdir(spec):  # a trained policy bundle: verify it now, before any worker starts
        # needs torch (the train extra): imported only when a network is used
        from agents.neural.bundle import BundleError, read_manifest

        try:
            read_manifest(spec)
        except BundleError as e:
            raise AgentSpecError(str(e)) from None
        return {"agent": "policy", "path": spec, "params": {}}
    looks_like_path = os.sep in spec or spec.endswith(".json") or os.path.exists(spec)
    if not looks_like_path:
        raise AgentSpecError(f"unknown agent {spec!r}; known agents: {known_agents()}, or a path to an agent file")
    return load_spec_file(spec)


def policy_bundles(spec: str) -> list[str]:
    """The policy bundle folders that ``spec``'s agent plays with, in the order found: the bundle
    itself, the bundles its params name (split's ``bidding`` and ``play``), and netsearch's
    ``policy`` (its default when not given). Each is named once.

    Raises:
        AgentSpecError: ``spec`` is unknown, or its file or a bundle it names missing or corrupt.
    """
    found: list[str] = []

    def walk(s: str, depth: int) -> None:
        resolved = resolve_spec(s)
        if resolved["agent"] == "policy":
            if resolved["path"] not in found:
                found.append(resolved["path"])
            return
        params = dict(resolved["params"])
        if resolved["agent"] == "netsearch" and "policy" not in params:
            # imported here: the search stack (numba kernels) loads only when a netsearch is named
            from agents.search_player.netsearch import DEFAULT_POLICY

            params["policy"] = DEFAULT_POLICY
        for key in SPEC_PARAMS.get(resolved["agent"], ()):
            value = params.get(key)
            if isinstance(value, str) and value and depth < MAX_SPEC_DEPTH:
                walk(value, depth + 1)

    walk(spec, 0)
    return found


def make_agent(spec: str, seed: int = 0, rollout: Agent | None = None) -> Agent:
    """An agent from a name (``random``, ``heuristic``) or an agent spec file path.

    ``rollout``: for a netsearch with ``leaves: "policy"``, the policy agent that plays its
    playouts (instead of its ``rollout`` param's bundle): expert iteration's learner guiding
    the search that teaches it (``agents.teacher``).

    Raises:
        AgentSpecError: unknown name, missing or corrupt file, or bad params; a ``rollout`` for
            anything but a netsearch with network playouts.
    """
    depth = _DEPTH.get()
    if depth >= MAX_SPEC_DEPTH:  # a file naming itself, or two naming each other
        raise AgentSpecError(
            f"agent {spec!r} nests agent files more than {MAX_SPEC_DEPTH} deep (a file that names itself?)"
        )
    token = _DEPTH.set(depth + 1)
    try:
        return _make(spec, seed, rollout)
    finally:
        _DEPTH.reset(token)


_DEPTH: ContextVar[int] = ContextVar("agent_spec_depth", default=0)  # make_agent's nesting of agent files


def _from_factory(module: str, name: str, seed: int) -> Agent:
    """The agent ``module:name(seed)`` returns (``resolve_spec``)."""
    try:
        factory = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise AgentSpecError(f"agent {module}:{name}: {type(e).__name__}: {e}") from None
    agent = factory(seed)
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"agent {module}:{name} returned a {type(agent).__name__}, not an agents.Agent")
    return agent


def _make(spec: str, seed: int, rollout: Agent | None) -> Agent:
    resolved = resolve_spec(spec)
    if resolved["agent"] == "python":
        return _from_factory(resolved["module"], resolved["factory"], seed)
    if rollout is not None:
        if resolved["agent"] != "netsearch":
            raise AgentSpecError(f"only a netsearch agent takes a rollout network, {spec!r} is {resolved['agent']!r}")
        agent = _make_netsearch(seed, resolved["params"], rollout)
        agent.name = os.path.splitext(os.path.basename(spec))[0] if spec not in AGENTS else agent.name
        return agent
    if resolved["agent"] == "sb3":
        # needs torch (the train extra): imported only when a network is used
        from agents.neural.sb3 import Sb3Agent

        return Sb3Agent(resolved["path"], seed)
    if resolved["agent"] == "policy":
        # needs torch (the train extra): imported only when a network is used
        from agents.neural.bundle import BundleError, load_policy

        try:
            return load_policy(resolved["path"], seed=seed)
        except BundleError as e:
            raise AgentSpecError(str(e)) from None
    agent = AGENTS[resolved["agent"]](seed, resolved["params"])
    if spec not in AGENTS:
        agent.name = os.path.splitext(os.path.basename(spec))[0] or agent.name
    return agent
