"""Moved to ``agents.neural.policy`` (agents grouped by kind, issue 15). This path stays importable: it is
that very module, so its names, private ones included, and patches of them are shared."""

import sys

from agents.neural import policy as _moved

sys.modules[__name__] = _moved
