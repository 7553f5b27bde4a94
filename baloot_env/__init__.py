"""baloot_env: the Baloot rules engine (docs/RULES.md), its game driver and its PettingZoo environment.

The engine (``cards``, ``seats``, ``deal``, ``rules``, ``actions``, ``hand`` with one module per
phase: ``bidding``, ``doubling``, ``play``, ``inference`` and the saved form ``hand_io``;
``projects``, ``scoring``, ``results``, ``match``), the rewards (``rewards``) and the game driver
(``driver.Table``, which every game loop runs through: the environment, self-play, evaluation)
import only the standard library,
and so does this package: ``import baloot_env`` or ``import baloot_env.hand`` works without
numpy, gymnasium or pettingzoo. The environment (``env``, ``raw_env``: gymnasium and
pettingzoo; defined in ``aec``, PettingZoo's AEC env, so that the factory ``baloot_env.env`` has
no submodule of its name), the observation constants (``OBS_SIZE``, ``OBS_VERSION``: numpy), the Gymnasium
env ``BalootEnv`` and the vector env ``BalootVecEnv`` (stable-baselines3) are imported on first
use.
"""

from __future__ import annotations

import importlib
from typing import Any

from baloot_env.actions import ACTION_VERSION, NUM_ACTIONS, action_name
from baloot_env.cards import card_name, cards_of, mask_of, parse_card
from baloot_env.deal import Deal, parse_deal, random_deal
from baloot_env.driver import DealSource, Outcome, Table
from baloot_env.errors import BalootError, ConfigError, DealError, IllegalActionError, StateError
from baloot_env.hand import BIDDING, DONE, DOUBLING, PLAY, HandState
from baloot_env.match import MatchContext, MatchResult, MatchState, match_context
from baloot_env.results import HandResult
from baloot_env.rewards import REWARD_MODES, REWARD_SCALE, Reward, hand_rewards
from baloot_env.rules import RuleConfig
from baloot_env.scoring import HandScore, convert_raw, score_hand

# The environment's versioned name. Defined here rather than in ``env`` so that policy bundles,
# which record it, load without gymnasium and pettingzoo. Bump with rules, observations or
# rewards (STYLE: baloot_v0 -> v1).
ENV_NAME = "baloot_v0"

# Names imported on first use, by the module that defines them.
_LAZY = {
    "env": "baloot_env.aec",
    "raw_env": "baloot_env.aec",
    "OBS_SIZE": "baloot_env.observation",
    "OBS_VERSION": "baloot_env.observation",
    # The ways in besides ``env``: the Gymnasium env (gymnasium) and the vector env
    # (stable-baselines3, the ``train`` extra; so it stays out of ``__all__``).
    "BalootEnv": "baloot_env.single",
    "BalootVecEnv": "baloot_env.vector",
}

__all__ = [
    "ACTION_VERSION",
    "NUM_ACTIONS",
    "BIDDING",
    "DOUBLING",
    "PLAY",
    "DONE",
    "BalootError",
    "ConfigError",
    "Deal",
    "DealError",
    "DealSource",
    "HandResult",
    "HandScore",
    "HandState",
    "IllegalActionError",
    "MatchContext",
    "MatchResult",
    "MatchState",
    "Outcome",
    "REWARD_MODES",
    "REWARD_SCALE",
    "Reward",
    "RuleConfig",
    "StateError",
    "Table",
    "action_name",
    "card_name",
    "cards_of",
    "convert_raw",
    "hand_rewards",
    "mask_of",
    "match_context",
    "parse_card",
    "parse_deal",
    "random_deal",
    "score_hand",
    "ENV_NAME",
    "OBS_SIZE",
    "OBS_VERSION",
    "env",
    "raw_env",
]


def __getattr__(name: str) -> Any:
    # The environment needs gymnasium and pettingzoo, the observation numpy: import them only
    # when asked, so that the engine stays usable where they are not installed.
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'baloot_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
