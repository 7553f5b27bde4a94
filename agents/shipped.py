"""Where the shipped policy bundles live: ``agents/policies`` in the package (the champion, its
predecessors and the ladder), found the same way from a checkout, an installed wheel or any
folder. Standard library only: the registry reads it without loading torch.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path


def shipped_policies() -> str:
    """The folder of the bundles shipped in the package (``agents/policies``: the champion, its
    predecessors, the ladder), which no command may write into."""
    return str(resources.files("agents") / "policies")


def packaged_bundle(spec: str) -> str | None:
    """The bundle shipped in the package (``agents/policies/NAME``) that a relative path
    ``policies/NAME`` names, when no such folder exists here (an installed wheel, another folder).
    """
    p = Path(spec)
    if p.is_absolute() or os.path.exists(spec) or len(p.parts) != 2 or p.parts[0] != "policies":
        return None
    shipped = resources.files("agents") / "policies" / p.parts[1]
    return str(shipped) if shipped.is_dir() else None


__all__ = ["packaged_bundle", "shipped_policies"]
