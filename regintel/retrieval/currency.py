"""Currency of a source at answer time: its version, when it was last verified, whether it is deprecated,
expired or superseded by a newer version of the same act (issue 23 item 3).

Currency is read from the source registry at search time, not stored in the index: marking a document deprecated
changes the next answer's grade without re-embedding anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

# A question that names a year, a date or a version wants that version: superseded documents stay searchable.
NAMES_VERSION_RE = re.compile(
    r"\b(?:19|20)\d\d\b|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|\b(?:version|versión|fassung|v)\s*\.?\s*\d",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DocumentCurrency:
    """What a citation chip says of its document's currency."""

    version: str = ""
    last_verified: str = ""  # ISO date
    deprecated: bool = False
    valid_until: str = ""  # ISO date; past it the document is expired
    superseded_by: str = ""  # id of the document that replaces this one (its ``supersedes`` names this one)
    superseded_title: str = ""

    def expired(self, today: date | None = None) -> bool:
        if not self.valid_until:
            return False
        try:
            return date.fromisoformat(self.valid_until) < (today or date.today())
        except ValueError:
            return False

    def warning(self, title: str, today: date | None = None) -> str:
        """One plain sentence when citing this document needs care, else ""."""
        if self.deprecated:
            return f"{title} is marked deprecated: check the current text before relying on it."
        if self.expired(today):
            return f"{title} was valid until {self.valid_until}: it may no longer apply."
        if self.superseded_by:
            newer = self.superseded_title or self.superseded_by
            return f"{title} is superseded by {newer}."
        return ""


def names_version_or_date(question: str) -> bool:
    """Whether a question asks about a particular version or date (then older versions are not hidden)."""
    return bool(NAMES_VERSION_RE.search(question))
