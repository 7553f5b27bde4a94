"""The search player, ``search``: worlds of the hidden cards sampled from a seat's view
(``sampling``), played out by the rule-based card play and solved exactly at the end
(``endgame``); ``player`` is the agent."""
