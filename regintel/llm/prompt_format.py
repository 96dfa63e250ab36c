"""How numbered context passages and the question are written into the user message, and read back.

Every provider receives the same messages. The offline provider parses them back, so it is a drop-in
replacement for a remote model rather than a side channel. Passage text is data, not instructions: it is
wrapped in ``<source>`` elements whose closing tag is escaped inside the text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

MARKUP_RE = re.compile(r"<(/?)(sources?|question)\b", re.IGNORECASE)
ESCAPED_MARKUP_RE = re.compile(r"<\\(/?)(sources?|question)\b", re.IGNORECASE)
SOURCE_RE = re.compile(r'<source id="(\d+)"([^>]*)>\n?(.*?)\n?</source>', re.DOTALL)
ATTR_RE = re.compile(r'(\w+)="([^"]*)"')
QUESTION_RE = re.compile(r"<question>\n?(.*?)\n?</question>", re.DOTALL)


@dataclass(frozen=True)
class PromptSource:
    index: int
    text: str
    title: str = ""
    ref: str = ""
    document_id: str = ""
    jurisdiction: str = ""
    language: str = ""
    url: str = ""
    authority: str = ""
    similarity: float = 0.0
    earlier: bool = False  # retrieved for an earlier question of the conversation, not for this one
    heading: str = ""  # the article's or section's heading ("Article 16 — Simplified ICT risk management framework")

    @classmethod
    def from_source(cls, index: int, source) -> "PromptSource":
        """Number ``index`` for a retrieved Source (anything with the Source fields)."""
        return cls(index, source.text, source.title, source.ref, source.document_id, source.jurisdiction,
                   source.language, source.url, source.authority_level, source.similarity,
                   heading=getattr(source, "heading", "") or "")


def _escape(text: str) -> str:
    """Neutralise our own markup inside data (``<source``, ``</question`` ...) so it cannot close or open a block."""
    return MARKUP_RE.sub(lambda m: f"<\\{m.group(1)}{m.group(2)}", text)


def _unescape(text: str) -> str:
    return ESCAPED_MARKUP_RE.sub(lambda m: f"<{m.group(1)}{m.group(2)}", text)


def _attr(value: object) -> str:
    return html.escape(str(value), quote=True)


def render_sources(sources: list[PromptSource]) -> str:
    parts = []
    for source in sources:
        text = _escape(source.text)
        parts.append(
            f'<source id="{source.index}" title="{_attr(source.title)}" ref="{_attr(source.ref)}" '
            + (f'heading="{_attr(source.heading)}" ' if source.heading else "")
            + f'document="{_attr(source.document_id)}" jurisdiction="{_attr(source.jurisdiction)}" '
            f'language="{_attr(source.language)}" authority="{_attr(source.authority)}" '
            f'similarity="{source.similarity:.1f}" url="{_attr(source.url)}"'
            + (' earlier="true"' if source.earlier else "") + f'>\n{text}\n</source>'
        )
    return "<sources>\n" + "\n".join(parts) + "\n</sources>"


def render_user_message(question: str, sources: list[PromptSource]) -> str:
    """The user turn: the sources block (data) followed by the analyst's question."""
    question = _escape(question)
    return f"{render_sources(sources)}\n\n<question>\n{question}\n</question>"


def parse_sources(content: str) -> list[PromptSource]:
    sources = []
    for match in SOURCE_RE.finditer(content):
        attrs = {k: html.unescape(v) for k, v in ATTR_RE.findall(match.group(2))}
        try:
            similarity = float(attrs.get("similarity", "0") or 0)
        except ValueError:
            similarity = 0.0
        sources.append(
            PromptSource(
                index=int(match.group(1)),
                text=_unescape(match.group(3)),
                title=attrs.get("title", ""),
                ref=attrs.get("ref", ""),
                document_id=attrs.get("document", ""),
                jurisdiction=attrs.get("jurisdiction", ""),
                language=attrs.get("language", ""),
                url=attrs.get("url", ""),
                authority=attrs.get("authority", ""),
                similarity=similarity,
                earlier=attrs.get("earlier") == "true",
                heading=attrs.get("heading", ""),
            )
        )
    return sources


def parse_question(content: str) -> str:
    tail = content.rsplit("</sources>", 1)[-1]
    match = QUESTION_RE.search(tail)
    question = match.group(1) if match else tail
    return _unescape(question).strip()
