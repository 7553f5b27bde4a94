"""The rule-based player, ``heuristic``: calls from hand strength (``heuristic``, R3, R4) and
card play with intent (``card_play``, R5)."""
