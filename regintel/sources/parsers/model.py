"""What every source parser returns (issue 23): the document as corpus markdown plus what the file says of itself.

The markdown is the dialect ``regintel.retrieval.chunking`` parses: ``# Title`` once, ``##``/``####`` structure
headings (CHAPTER, Section, ANNEX), ``### Article N — Title`` articles, paragraphs separated by one blank line and,
for PDFs, ``<!-- page N -->`` lines where a page's text starts. The source service stores this markdown next to the
original file and indexes it like any corpus document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from regintel.errors import RegIntelError

# No-break, thin, figure, narrow no-break, ideographic spaces, zero-width characters and soft hyphens: real files
# (every OJ heading: "Article\u00a05") carry them; matching and the chunker need plain spaces.
_ODD_SPACES_RE = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\t\f\v]")
_INVISIBLE_RE = re.compile(r"[\u200b-\u200d\u2060\ufeff\u00ad]")
_SPACES_RE = re.compile(r" {2,}")
ARTICLE_HEADING_RE = re.compile(r"^###\s+Article\s+\d+", re.MULTILINE)


class ParseError(RegIntelError):
    """A source file that cannot be turned into text: unreadable, unsupported, corrupt, or scanned without a text
    layer. The message is one sentence naming the file."""


@dataclass
class ParsedDocument:
    markdown: str  # the document in the corpus markdown dialect
    format: str  # "html" | "pdf" | "docx" | "markdown"
    title: str  # the act's title, best effort
    language: str  # ISO 639-1 code from regintel.text.analysis.detect_language ("" unknown)
    pages: int | None = None  # page count for PDF, None otherwise
    articles: int = 0  # number of "### Article N" headings emitted
    anchors: dict[str, str] = field(default_factory=dict)  # heading text as emitted -> URL fragment ("art_5")
    problems: list[str] = field(default_factory=list)  # plain sentences a curator should read
    metadata: dict[str, str] = field(default_factory=dict)  # celex, eli, date, reference line … (best effort)


def clean_text(text: str) -> str:
    """One line of text with odd spaces made plain, invisible characters dropped and runs of spaces collapsed."""
    text = _INVISIBLE_RE.sub("", _ODD_SPACES_RE.sub(" ", text))
    return _SPACES_RE.sub(" ", text).strip()


def count_articles(markdown: str) -> int:
    """Number of ``### Article N`` headings (what ``ParsedDocument.articles`` reports)."""
    return len(ARTICLE_HEADING_RE.findall(markdown))


def detect(text: str) -> str:
    """Language of a document's text ("" when there is too little text to tell)."""
    from regintel.text.analysis import detect_language

    sample = text[:20000]
    if len(re.findall(r"[^\W\d_]{2,}", sample)) < 20:
        return ""
    return detect_language(sample)


class MarkdownWriter:
    """Builds the markdown of a parsed document: headings and paragraphs separated by one blank line, page markers
    on their own lines, every heading's text cleaned, anchors recorded against the heading text as written."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.anchors: dict[str, str] = {}
        self.headings: list[str] = []

    def heading(self, level: int, text: str, anchor: str = "") -> str:
        text = clean_text(text).lstrip("#").strip()
        if not text:
            return ""
        self.blocks.append(f"{'#' * level} {text}")
        self.headings.append(text)
        if anchor:
            self.anchors.setdefault(text, anchor)
        return text

    def paragraph(self, text: str) -> None:
        lines = [clean_text(line) for line in text.splitlines()]
        text = " ".join(line for line in lines if line)
        if text:
            if text.startswith("#"):  # a paragraph must never read as a heading
                text = "\\" + text
            self.blocks.append(text)

    def page(self, number: int) -> None:
        self.blocks.append(f"<!-- page {number} -->")

    def render(self) -> str:
        return "\n\n".join(self.blocks).strip() + "\n"


def heading_text(label: str, title: str) -> str:
    """"Article 5" + "Prohibited AI practices" -> "Article 5 — Prohibited AI practices" (label alone if untitled)."""
    label, title = clean_text(label), clean_text(title)
    return f"{label} — {title}" if title else label
