"""baloot_env: the Baloot rules engine (RULES.md) and its PettingZoo environment.

The engine (``cards``, ``deal``, ``rules``, ``hand``, ``projects``, ``scoring``, ``match``)
imports only the standard library; the environment (``env``, ``observation``, ``render``) adds
numpy, gymnasium and pettingzoo.
"""

from baloot_env.actions import ACTION_VERSION, NUM_ACTIONS, action_name
from baloot_env.cards import card_name, cards_of, mask_of, parse_card
from baloot_env.deal import Deal, parse_deal, random_deal
from baloot_env.errors import BalootError, DealError, IllegalActionError, RuleConfigError, StateError
from baloot_env.hand import BIDDING, DONE, DOUBLING, PLAY, HandState
from baloot_env.match import MatchResult, MatchState
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig
from baloot_env.scoring import HandScore, convert_raw, score_hand

__all__ = [
    "ACTION_VERSION", "NUM_ACTIONS", "BIDDING", "DOUBLING", "PLAY", "DONE",
    "BalootError", "Deal", "DealError", "HandResult", "HandScore", "HandState",
    "IllegalActionError", "MatchResult", "MatchState", "RuleConfig", "RuleConfigError",
    "StateError", "action_name", "card_name", "cards_of", "convert_raw", "mask_of",
    "parse_card", "parse_deal", "random_deal", "score_hand",
]  # fmt: skip

from baloot_env.env import ENV_NAME, REWARD_SCALE, env, raw_env  # noqa: E402
from baloot_env.observation import OBS_SIZE, OBS_VERSION  # noqa: E402

__all__ += ["ENV_NAME", "OBS_SIZE", "OBS_VERSION", "REWARD_SCALE", "env", "raw_env"]
