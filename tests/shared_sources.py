"""The real source documents of ../shared/data/sources/ (EUR-Lex HTML, OJ and Council PDFs, a regulator's DOCX; see
its README for provenance and reuse terms). They are read from there, never copied into the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from regintel.config import REPO_ROOT

SOURCES = Path(os.environ.get("REGINTEL_SHARED_DIR") or REPO_ROOT.parent / "shared") / "data" / "sources"


def require_sources() -> Path:
    """The folder, or skip the calling test with the reason."""
    if not (SOURCES / "README.md").exists():
        pytest.skip(f"the shared source documents are not at {SOURCES} (set REGINTEL_SHARED_DIR)")
    return SOURCES
