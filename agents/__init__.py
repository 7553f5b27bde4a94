"""Agents: the interface (``PlayerView``, ``Agent``), ``random``, ``heuristic`` and the registry."""

from agents.base import Agent, PlayerView, StaleViewError
from agents.heuristic import HeuristicAgent, HeuristicConfig
from agents.random_agent import RandomAgent
from agents.registry import AgentSpecError, known_agents, make_agent

__all__ = [
    "Agent", "AgentSpecError", "HeuristicAgent", "HeuristicConfig", "PlayerView", "RandomAgent",
    "StaleViewError", "known_agents", "make_agent",
]  # fmt: skip
