"""Setting a corrupt data file or folder aside (never deleting it) so it can be rebuilt in its place."""

from __future__ import annotations

import time
from pathlib import Path


def set_aside(path: Path) -> Path:
    """Rename ``path`` to ``<name>.corrupt-<time>`` beside it (kept for inspection); return the new path."""
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    path.replace(aside)
    return aside
