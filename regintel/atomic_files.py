"""Writing a file so that readers see the old content or the new, never half of it, and two writers never share a
temporary file: a unique temporary file in the same directory (``mkstemp``), then an atomic rename. A fixed
temporary name ("x.tmp") let two processes write into one file and rename each other's half-written result."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomically(path: Path, text: str, errors: str = "strict") -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically; the temporary file is removed if anything fails."""
    write_bytes_atomically(path, text.encode("utf-8", errors=errors))


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; the temporary file is removed if anything fails."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
