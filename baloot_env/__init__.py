"""baloot_env: the Baloot rules engine (RULES.md) and its PettingZoo environment."""
