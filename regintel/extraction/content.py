"""Contents and their quotes: built from a corpus article, pasted text or an uploaded file, stored in the graph.

A quote is one paragraph; a paragraph that enumerates numbered points (a definitions article such as GDPR
Article 4, written as one paragraph) becomes one quote per point, and an over-long paragraph is split on
sentence boundaries. Every text passes ``printable`` (control, zero-width and bidi-override characters removed)
and the graph's ingress guard (no personal data, no SQL-side ids) before anything is written.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

from pydantic import Field

from regintel.errors import ExtractionError
from regintel.extraction.proposal import ContentInfo, ContentMetadata, Quote
from regintel.graph import queries
from regintel.graph.guard import IngressRejected
from regintel.graph.store import GraphStore
from regintel.graph.write_service import GraphWriteService
from regintel.retrieval.chunking import DocumentUnit, parse_units, split_long_paragraph
from regintel.retrieval.corpus import CorpusDocument, read_document_text
from regintel.store.models import ContentDraftRow
from regintel.text.analysis import detect_language
from regintel.text.normalise import printable

MAX_QUOTE_CHARS = 1500
MIN_QUOTE_CHARS = 3
MAX_QUOTES = 5000
MAX_UPLOAD_BYTES = 5_000_000
MAX_JSON_DEPTH = 20
POINT_RE = re.compile(r"(?:^|(?<=[:;.]\s))(?=\(\d{1,3}\)\s)")
BULLET_RE = re.compile(r"^\s*[-*•]\s+")
UPLOAD_TYPES = ("json", "csv", "md", "markdown", "txt")


class ContentDraft(ContentMetadata):
    """A source's title, quotes and metadata before they are saved as a Content node."""

    title: str
    quotes: list[str]
    origin: str = "text"  # corpus / text / upload
    problems: list[str] = Field(default_factory=list)  # rows of an upload that were skipped, and why

    @property
    def key(self) -> str:
        digest = hashlib.sha256("\x00".join([self.title, self.source_url, *self.quotes]).encode()).hexdigest()[:12]
        slug = re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")[:60] or "content"
        return f"content:{slug}:{digest}"


# -- splitting ---------------------------------------------------------------------------------------------------
def split_paragraph(paragraph: str) -> list[str]:
    """One paragraph -> its quotes: numbered points apart, long text on sentence boundaries."""
    text = printable(BULLET_RE.sub("", paragraph))
    if not text:
        return []
    pieces = [p.strip() for p in POINT_RE.split(text) if p.strip()] if len(POINT_RE.findall(text)) >= 2 else [text]
    quotes: list[str] = []
    for piece in pieces:
        quotes.extend(split_long_paragraph(piece, MAX_QUOTE_CHARS) if len(piece) > MAX_QUOTE_CHARS else [piece])
    return [q for q in quotes if len(q) >= MIN_QUOTE_CHARS]


def split_into_quotes(text: str) -> list[str]:
    """Plain or markdown text -> quotes (headings dropped, blank lines separate paragraphs)."""
    return [q for unit in parse_units(text) for q in unit_quotes(unit)]


def unit_quotes(unit: DocumentUnit) -> list[str]:
    """The quotes of one heading unit: each paragraph (each bullet of a bullet list) split by ``split_paragraph``."""
    return [q for paragraph in unit.paragraphs for group in _bullet_groups(paragraph) for q in split_paragraph(group)]


def _bullet_groups(paragraph: str) -> list[str]:
    """A paragraph of bullet lines is several paragraphs (one per bullet)."""
    lines = paragraph.splitlines()
    if len(lines) > 1 and sum(bool(BULLET_RE.match(line)) for line in lines) >= 2:
        return [line for line in lines if line.strip()]
    return [paragraph]


# -- sources -----------------------------------------------------------------------------------------------------
def corpus_sections(document: CorpusDocument) -> list[tuple[str, str]]:
    """(ref, heading) of each section of a corpus document that has text, in document order."""
    return [(u.ref, u.heading) for u in parse_units(read_document_text(document.path)) if u.heading]


def content_from_corpus(document: CorpusDocument, ref: str, domain: str = "") -> ContentDraft:
    """A Content from one article or section of the corpus: its paragraphs become quotes."""
    units = [u for u in parse_units(read_document_text(document.path)) if u.ref == ref or u.heading == ref]
    if not units:
        raise ExtractionError(f"{document.short_title} has no section '{ref}'")
    unit = units[0]
    quotes = unit_quotes(unit)
    return _checked(ContentDraft(
        title=f"{document.short_title} {unit.heading}"[:300], quotes=quotes, author=document.title[:300],
        category=document.authority_level, source_url=document.source_url, domain=domain,
        jurisdiction=document.jurisdiction, language=document.language or detect_language(" ".join(quotes[:5])),
        origin="corpus",
    ))


def content_from_text(title: str, text: str, **info: str) -> ContentDraft:
    """A Content from pasted text (split into quotes)."""
    title = printable(title)
    if not title:
        raise ExtractionError("Give the content a title.")
    quotes = split_into_quotes(text or "")
    return _checked(ContentDraft(title=title[:300], quotes=quotes, origin="text", **_clean_info(info)))


def content_from_upload(filename: str, data: bytes, title: str = "", **info: str) -> ContentDraft:
    """A Content from an uploaded JSON, CSV or markdown file of quotes."""
    suffix = Path(filename or "").suffix.lower().lstrip(".")
    if suffix not in UPLOAD_TYPES:
        raise ExtractionError(f"'{printable(filename)[:80]}' is not a JSON, CSV or markdown file.")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ExtractionError(f"The file is larger than {MAX_UPLOAD_BYTES // 1_000_000} MB.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExtractionError(f"The file is not valid UTF-8 text (byte {exc.start}).") from exc
    if "\x00" in text:
        raise ExtractionError("The file holds binary data, not text.")
    meta: dict[str, str] = {}
    problems: list[str] = []
    if suffix == "json":
        quotes, meta = _quotes_from_json(text, problems)
    elif suffix == "csv":
        quotes = _quotes_from_csv(text, problems)
    else:
        quotes = split_into_quotes(text)
        meta["title"] = next((u.heading for u in parse_units(text) if u.heading), "")
    title = printable(title or meta.pop("title", "") or Path(filename).stem)[:300]
    merged = {**{k: v for k, v in meta.items() if k in ("author", "category", "source_url")}, **info}
    draft = ContentDraft(title=title or "Uploaded quotes", quotes=[q for raw in quotes for q in split_paragraph(raw)],
                         origin="upload", problems=problems, **_clean_info(merged))
    return _checked(draft)


def _quotes_from_json(text: str, problems: list[str]) -> tuple[list[str], dict[str, str]]:
    try:
        data = json.loads(text)
    except RecursionError as exc:
        raise ExtractionError("The JSON file is nested too deeply.") from exc
    except ValueError as exc:
        raise ExtractionError(f"The JSON file cannot be parsed: {exc}") from exc
    if _depth(data) > MAX_JSON_DEPTH:
        raise ExtractionError("The JSON file is nested too deeply.")
    meta: dict[str, str] = {}
    if isinstance(data, dict):
        meta = {k: str(data[k]) for k in ("title", "author", "category", "source_url") if isinstance(data.get(k), str)}
        data = data.get("quotes")
    if not isinstance(data, list):
        raise ExtractionError('The JSON file must be a list of quotes or an object with a "quotes" list.')
    quotes = []
    for i, item in enumerate(data, 1):
        value = item.get("text", item.get("quote")) if isinstance(item, dict) else item
        if isinstance(value, str) and value.strip():
            quotes.append(value)
        else:
            problems.append(f"item {i}: no quote text (a string, or an object with \"text\")")
    return quotes, meta


def _quotes_from_csv(text: str, problems: list[str]) -> list[str]:
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise ExtractionError(f"The CSV file cannot be parsed: {exc}") from exc
    if not rows:
        return []
    header = [h.strip().lower() for h in rows[0]]
    column = next((header.index(name) for name in ("text", "quote", "quote_text") if name in header), None)
    body = rows[1:] if column is not None else rows
    column = column or 0
    quotes = []
    for i, row in enumerate(body, 2 if body is not rows else 1):
        if len(row) > column and row[column].strip():
            quotes.append(row[column])
        elif any(cell.strip() for cell in row):
            problems.append(f"row {i}: empty quote column")
    return quotes


def _depth(value: object, level: int = 0) -> int:
    if level > MAX_JSON_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def _clean_info(info: dict[str, str]) -> dict[str, str]:
    allowed = ("author", "category", "source_url", "domain", "jurisdiction", "language")
    cleaned = {k: printable(v)[:300] for k, v in info.items() if k in allowed and v}
    if cleaned.get("source_url") and not cleaned["source_url"].startswith(("http://", "https://")):
        raise ExtractionError("The source URL must start with http:// or https://.")
    return cleaned


def _checked(draft: ContentDraft) -> ContentDraft:
    if len(draft.quotes) > MAX_QUOTES:
        raise ExtractionError(f"{len(draft.quotes)} quotes: at most {MAX_QUOTES} per content. Split the source.")
    if not draft.language and draft.quotes:
        draft.language = detect_language(" ".join(draft.quotes[:20]))
    return draft


# -- where contents live ----------------------------------------------------------------------------------------
class ContentStore:
    """Contents and their quotes. With a SQL ``db`` (the workflow's), an uploaded content stays a draft in the SQL
    store (``content_drafts``), out of the shared rules graph, until a run over it is approved: ``publish`` then
    writes its Content and Quote nodes (HAS_QUOTE from content to quote, ``position`` orders them). Without ``db``
    (benchmarks, tests of the graph side) ``save`` writes to the graph at once. Either way the ingress guard's
    checks run at upload, so a content with personal data is refused there."""

    def __init__(self, store: GraphStore, writer: GraphWriteService | None = None, db: Any = None) -> None:
        self.store = store
        self.writer = writer or GraphWriteService(store)
        self.db = db

    def save(self, draft: ContentDraft) -> ContentInfo:
        """Keep the content and its quotes (one transaction); saving the same draft again changes nothing."""
        key = draft.key
        existing = self.get(key)
        if existing is not None:
            return existing
        props = {"title": draft.title, **draft.metadata(), "origin": draft.origin, "processed_date": ""}
        try:
            self.writer.guard.check_node("Content", key, props)
            for row in _quote_rows(key, draft.quotes):
                self.writer.guard.check_node("Quote", row["key"], {k: v for k, v in row.items() if k != "key"})
            if self.db is None:
                self._write(key, props, list(draft.quotes))
            else:
                with self.db.session() as session:
                    session.add(ContentDraftRow(key=key, props=props, quotes=list(draft.quotes)))
        except IngressRejected as exc:
            raise ExtractionError(f"The content was not saved: {exc}") from exc
        return ContentInfo(key=key, **{k: v for k, v in props.items() if k != "origin"})

    def publish(self, key: str) -> bool:
        """Write a draft's Content and Quote nodes to the graph, then drop the draft; False if it has none."""
        draft = self._draft(key)
        if draft is None:
            return False
        self._write(key, dict(draft.props), list(draft.quotes))
        with self.db.session() as session:
            row = session.get(ContentDraftRow, key)
            if row is not None:
                session.delete(row)
        return True

    def _write(self, key: str, props: dict, quotes: list[str]) -> None:
        rows = _quote_rows(key, quotes)
        with self.writer.batch():
            self.writer.upsert_nodes("Content", [{"key": key, **props}])
            self.writer.upsert_nodes("Quote", rows)
            self.writer.upsert_edges("HAS_QUOTE", "Content", "Quote", [{"from": key, "to": r["key"]} for r in rows])

    def _draft(self, key: str) -> ContentDraftRow | None:
        if self.db is None:
            return None
        with self.db.session() as session:
            row = session.get(ContentDraftRow, key)
            if row is not None:
                session.expunge(row)
            return row

    def get(self, key: str) -> ContentInfo | None:
        rows = self.store.query(queries.CONTENT_BY_KEY, {"key": key})
        if rows:
            return ContentInfo(**{k: ("" if v is None else v) for k, v in rows[0].items()})
        draft = self._draft(key)
        if draft is None:
            return None
        return ContentInfo(key=key, **{k: v for k, v in draft.props.items() if k != "origin"})

    def quotes(self, key: str) -> list[Quote]:
        rows = self.store.query(queries.CONTENT_QUOTES, {"key": key})
        if not rows and (draft := self._draft(key)) is not None:
            rows = _quote_rows(key, draft.quotes)
        return [Quote(id=f"q{row['position']}", key=row["key"], text=row["text"] or "") for row in rows]

    def contents(self, limit: int = 200) -> list[dict]:
        """Published contents and drafts, newest first."""
        listed = self.store.query(queries.CONTENT_LIST, {"limit": limit})
        if self.db is not None:
            with self.db.session() as session:
                drafts = session.query(ContentDraftRow).order_by(ContentDraftRow.created_at.desc()).limit(limit).all()
                listed += [{"key": d.key, "title": d.props.get("title", ""), "processed_date": "",
                            "quotes": len(d.quotes or []), "created_at": int(d.created_at.timestamp() * 1000)}
                           for d in drafts]
        return sorted(listed, key=lambda r: r.get("created_at") or 0, reverse=True)[:limit]


def _quote_rows(key: str, quotes: list[str]) -> list[dict]:
    return [{"key": quote_key(key, i), "text": text, "content_key": key, "position": i}
            for i, text in enumerate(quotes, 1)]


def quote_key(content_key: str, position: int) -> str:
    return f"{content_key}#q{position}"
