"""Markdown and plain-text sources pass through as they are (the corpus dialect already), read with the corpus's
checks: UTF-8, not binary, not empty."""

from __future__ import annotations

import re
from pathlib import Path

from regintel.errors import CorpusError
from regintel.sources.parsers.model import ParsedDocument, ParseError, count_articles, detect

_TITLE_RE = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def parse_markdown(path: Path) -> ParsedDocument:
    from regintel.retrieval.corpus import read_document_text

    try:
        text = read_document_text(path)
    except CorpusError as exc:
        raise ParseError(str(exc)) from exc
    title_match = _TITLE_RE.search(text)
    articles = count_articles(text)
    problems = [] if articles or re.search(r"^#{2,6}\s", text, re.MULTILINE) else ["no headings found: the "
                                                                                  "document is one passage"]
    return ParsedDocument(markdown=text if text.endswith("\n") else text + "\n", format="markdown",
                          title=title_match.group(1).strip() if title_match else "", language=detect(text),
                          pages=None, articles=articles, anchors={}, problems=problems, metadata={})
