"""Agents: the interface (``Agent``, answering a ``baloot_env.view.PlayerView``), the registry
and the players by kind.

- ``base`` (the interface), ``registry`` (agents by name), ``random_agent``;
- ``rule_based``: ``heuristic`` (calls) and ``card_play`` (play), the rule-based player;
- ``search_player``: the sampled-worlds search player (``player``, ``endgame``; its worlds come from ``baloot_env.worlds``);
- ``neural``: the network, a network as an agent, policy bundles, ONNX export, real positions.
"""

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.registry import AgentSpecError, known_agents, make_agent
from agents.rule_based.heuristic import HeuristicAgent, HeuristicConfig
from baloot_env.view import PlayerView

__all__ = [
    "Agent",
    "AgentSpecError",
    "BundleError",
    "HeuristicAgent",
    "HeuristicConfig",
    "PlayerView",
    "RandomAgent",
    "known_agents",
    "load_policy",
    "make_agent",
]


def __getattr__(name: str) -> object:  # load_policy and BundleError need torch: imported on first use only
    if name in ("BundleError", "load_policy"):
        # needs torch (the train extra): imported on first use only
        from agents.neural import bundle

        return getattr(bundle, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
