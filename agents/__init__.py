"""Agents: the interface (``PlayerView``, ``Agent``), ``random``, ``heuristic`` and the registry."""

from agents.base import Agent, PlayerView, StaleViewError
from agents.heuristic import HeuristicAgent, HeuristicConfig
from agents.random_agent import RandomAgent
from agents.registry import AgentSpecError, known_agents, make_agent

__all__ = [
    "Agent", "AgentSpecError", "BundleError", "HeuristicAgent", "HeuristicConfig", "PlayerView", "RandomAgent",
    "StaleViewError", "known_agents", "load_policy", "make_agent",
]  # fmt: skip


def __getattr__(name: str):  # load_policy and BundleError need torch: imported on first use only
    if name in ("BundleError", "load_policy"):
        from agents import bundle

        return getattr(bundle, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
