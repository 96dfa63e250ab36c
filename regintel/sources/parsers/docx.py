"""DOCX sources (internal policies, regulators' forms and guidance in Word) to corpus markdown with python-docx.

The body is walked in document order, paragraphs and tables alike: in real regulator files most of the text sits in
table cells (the ICO DPIA template has 23 paragraphs and 11 tables), so reading ``document.paragraphs`` alone would
lose it. Title / Heading N styles (and paragraphs with an outline level) become markdown headings one level below
the ``# Title``; a paragraph reading "Article 5" (with its title in the next paragraph) becomes ``### Article 5 —
…``; list paragraphs become "- …" bullets; a table row becomes "cell | cell | cell" (merged cells once), and a
one-cell row keeps its paragraphs. The core properties give the title and metadata.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from regintel.sources.parsers.model import (MarkdownWriter, ParsedDocument, ParseError, clean_text, count_articles,
                                            detect, heading_text)

HEADING_STYLE_RE = re.compile(r"^(?:heading|überschrift|titre|kop|título|titolo)\s*(\d)?$", re.IGNORECASE)
ARTICLE_LINE_RE = re.compile(r"^Article\s+(\d{1,3}[a-z]?)\s*(?:[—–\-:.]\s*(.*))?$")
HEADING_ARTICLE_RE = re.compile(r"^Article\s+(\d{1,3}[a-z]?)\b\s*(.*)$")  # a heading "Article 5 Scope"
LIST_STYLE_RE = re.compile(r"\blist\b|bullet|aufzählung|puce", re.IGNORECASE)


def _qn(tag: str) -> str:
    from docx.oxml.ns import qn

    return qn(tag)


def _style_chain(paragraph):
    style = paragraph.style
    seen = 0
    while style is not None and seen < 10:
        yield style
        style = style.base_style
        seen += 1


def _heading_level(paragraph) -> int | None:
    """1 for Title, N + 1 for Heading N (or outline level N - 1), None for body text."""
    for style in _style_chain(paragraph):
        name = (style.name or "").strip()
        if name.lower() in {"title", "titel"}:
            return 1
        match = HEADING_STYLE_RE.match(name)
        if match:
            return min(int(match.group(1) or 1) + 1, 6)
    ppr = paragraph._p.pPr
    outline = ppr.find(_qn("w:outlineLvl")) if ppr is not None else None
    if outline is not None:
        try:
            level = int(outline.get(_qn("w:val")))
        except (TypeError, ValueError):
            return None
        return min(level + 2, 6) if level < 9 else None
    return None


def _is_list(paragraph) -> bool:
    ppr = paragraph._p.pPr
    if ppr is not None and ppr.find(_qn("w:numPr")) is not None:
        return True
    return any(LIST_STYLE_RE.search(style.name or "") for style in _style_chain(paragraph))


class _Walker:
    def __init__(self, document, writer: MarkdownWriter) -> None:
        self.document = document
        self.out = writer
        self.headings = 0
        self.pending_article: str | None = None
        self.title_style_text = ""

    def body(self, element) -> None:
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        for child in element.iterchildren():
            if child.tag == _qn("w:p"):
                self.paragraph(Paragraph(child, self.document))
            elif child.tag == _qn("w:tbl"):
                self.flush_article()
                self.table(Table(child, self.document))
            elif child.tag == _qn("w:sdt"):  # content controls wrap ordinary paragraphs and tables
                content = child.find(_qn("w:sdtContent"))
                if content is not None:
                    self.body(content)

    def flush_article(self, title: str = "") -> None:
        if self.pending_article is not None:
            label, self.pending_article = self.pending_article, None
            self.out.heading(3, heading_text(f"Article {label}", title))
            self.headings += 1

    def paragraph(self, paragraph) -> None:
        text = clean_text(paragraph.text)
        if not text:
            return
        level = _heading_level(paragraph)
        if self.pending_article is not None:
            if level is None and len(text) < 160 and not text.endswith((".", ";", ":")):
                self.flush_article(text)
                return
            self.flush_article()
        article = ARTICLE_LINE_RE.match(text) or (HEADING_ARTICLE_RE.match(text) if level is not None else None)
        if article and (level is not None or not article.group(2)):
            if article.group(2):
                self.out.heading(3, heading_text(f"Article {article.group(1)}", article.group(2)))
                self.headings += 1
            else:
                self.pending_article = article.group(1)
            return
        if level == 1:
            if not self.title_style_text:
                self.title_style_text = text
                return
            level = 2
        if level is not None:
            self.out.heading(level, text)
            self.headings += 1
            return
        self.out.paragraph(f"- {text}" if _is_list(paragraph) else text)

    def table(self, table) -> None:
        for row in table.rows:
            cells, seen = [], set()
            for cell in row.cells:
                if id(cell._tc) in seen:  # a merged cell is returned once per grid column it spans
                    continue
                seen.add(id(cell._tc))
                cells.append(cell)
            texts = [self.cell_text(cell) for cell in cells]
            filled = [(cell, text) for cell, text in zip(cells, texts) if text]
            if not filled:
                continue
            if len(filled) == 1:
                cell = filled[0][0]
                for paragraph in cell.paragraphs:
                    text = clean_text(paragraph.text)
                    if text:
                        self.out.paragraph(f"- {text}" if _is_list(paragraph) else text)
                for inner in cell.tables:
                    self.table(inner)
                continue
            self.out.paragraph(" | ".join(text for _, text in filled))

    def cell_text(self, cell) -> str:
        parts = [clean_text(p.text) for p in cell.paragraphs]
        for inner in cell.tables:
            for row in inner.rows:
                parts.extend(clean_text(c.text) for c in row.cells)
        return clean_text(" ".join(p for p in parts if p))


def parse_docx(path: Path) -> ParsedDocument:
    """Parse a Word 2007+ document; raise ParseError when it is not a readable DOCX or holds no text."""
    try:
        import docx
        from docx.opc.exceptions import PackageNotFoundError
    except ImportError as exc:  # pragma: no cover - python-docx is a requirement
        raise ParseError(f"{path.name}: python-docx is not installed") from exc
    if not zipfile.is_zipfile(path):
        raise ParseError(f"{path.name}: not a DOCX file (it is not a zip archive; .doc files must be saved as .docx)")
    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise ParseError(f"{path.name}: not a readable DOCX document ({exc})") from exc
    except Exception as exc:  # lxml XMLSyntaxError and friends on damaged parts
        raise ParseError(f"{path.name}: the DOCX document is damaged ({type(exc).__name__}: {exc})") from exc
    writer = MarkdownWriter()
    walker = _Walker(document, writer)
    walker.body(document.element.body)
    walker.flush_article()
    if not any(not block.startswith("#") for block in writer.blocks) and not writer.blocks:
        raise ParseError(f"{path.name}: the DOCX document has no text")
    props = document.core_properties
    title = clean_text(props.title or "") or walker.title_style_text or (writer.headings[0] if writer.headings
                                                                         else path.stem)
    body_blocks = writer.blocks
    writer.blocks = []
    writer.heading(1, title)
    if walker.title_style_text and walker.title_style_text != title:
        writer.paragraph(walker.title_style_text)
    writer.blocks.extend(body_blocks)
    markdown = writer.render()
    body_text = "\n".join(b for b in body_blocks if not b.startswith("#"))
    if not body_text.strip() and not walker.headings:
        raise ParseError(f"{path.name}: the DOCX document has no text")
    articles = count_articles(markdown)
    problems = []
    if not walker.headings:
        problems.append("no headings found: the document is one passage")
    elif not articles:
        problems.append("no article headings found: sections taken from the document's heading styles")
    metadata = {}
    for name in ("author", "subject", "keywords", "category", "version", "identifier", "revision"):
        value = getattr(props, name, None)
        if value not in (None, ""):
            metadata[name] = clean_text(str(value))
    for name in ("created", "modified"):
        value = getattr(props, name, None)
        if value is not None:
            metadata[name] = value.isoformat()
    if props.title:
        metadata["docx_title"] = clean_text(props.title)
    return ParsedDocument(markdown=markdown, format="docx", title=title, language=detect(body_text), pages=None,
                          articles=articles, anchors={}, problems=problems, metadata=metadata)
