"""Moved to ``agents.search_player.endgame`` (agents grouped by kind, issue 15). This path stays importable: it is
that very module, so its names, private ones included, and patches of them are shared."""

import sys

from agents.search_player import endgame as _moved

sys.modules[__name__] = _moved
