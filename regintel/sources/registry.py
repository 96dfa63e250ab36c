"""The source registry: which documents the corpus holds, with their metadata and currency (issue 23 item 1).

The registry (SQL table ``source_documents``) is the source of truth for what is indexed. Two kinds of entry:

- **upload**: a file a curator added (PDF, HTML, DOCX, markdown). The original is kept under
  ``<data dir>/sources/<id>/`` with the markdown the parser made of it (``text.md``), which is what is chunked.
- **folder**: a document of the corpus folder (``REGINTEL_CORPUS_DIR``), imported from its ``manifest.json`` at
  each ingestion. The manifest is an import format: once a person edits an entry's metadata here (``edited_at``),
  the manifest no longer overrides it; a folder entry a person removed stays removed.

Removing an entry only marks it ``removed`` (old conversations keep their stored citation text and show "source
removed"); the next ingestion deletes its passages from the index and its nodes from the graph.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from sqlalchemy import select

from regintel.errors import CorpusError
from regintel.retrieval.corpus import AUTHORITY_SCORES, CorpusDocument, CorpusScan, scan_corpus
from regintel.retrieval.currency import DocumentCurrency
from regintel.store.db import Database
from regintel.store.models import SourceDocument

EDITABLE_FIELDS = ("title", "short_title", "jurisdiction", "language", "authority_level", "version", "source_url",
                   "license", "celex", "valid_from", "valid_until", "last_verified", "deprecated", "supersedes")
DATE_FIELDS = ("valid_from", "valid_until", "last_verified")
SAFE_URL_RE = re.compile(r"^https?://[^\s<>\"'()\[\]`]+$")  # it becomes a link on chips and in Gradio's markdown
ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,119}$")
CURRENCY_TTL_SECONDS = 3.0  # how stale a search's view of deprecations may be (another process edited the registry)


class SourceError(CorpusError):
    """A source cannot be added, edited or removed; the message says why in one sentence."""


@dataclass
class SourceInfo:
    """One registry entry as the page, the CLI and the tests read it (a detached copy of the row)."""

    id: str
    title: str
    short_title: str
    format: str
    origin: str
    file_name: str
    jurisdiction: str
    language: str
    authority_level: str
    version: str
    source_url: str
    license: str
    celex: str
    valid_from: str | None
    valid_until: str | None
    last_verified: str | None
    deprecated: bool
    supersedes: str
    status: str
    articles: int
    pages: int | None
    chunks: int
    problems: list[str] = field(default_factory=list)
    created_at: datetime | None = None

    @classmethod
    def of(cls, row: SourceDocument) -> "SourceInfo":
        return cls(row.id, row.title, row.short_title, row.format, row.origin, row.file_name, row.jurisdiction,
                   row.language, row.authority_level, row.version, row.source_url, row.license, row.celex,
                   row.valid_from, row.valid_until, row.last_verified, bool(row.deprecated), row.supersedes,
                   row.status, row.articles, row.pages, row.chunks, list(row.problems or []), row.created_at)

    def to_json(self) -> dict[str, Any]:
        """The ``sources list --json`` shape (stable keys first)."""
        return {"id": self.id, "title": self.title, "format": self.format, "articles": self.articles,
                "pages": self.pages, "version": self.version, "deprecated": self.deprecated, "status": self.status,
                "origin": self.origin, "language": self.language, "jurisdiction": self.jurisdiction,
                "authority_level": self.authority_level, "chunks": self.chunks, "valid_from": self.valid_from,
                "valid_until": self.valid_until, "last_verified": self.last_verified, "supersedes": self.supersedes,
                "source_url": self.source_url, "file_name": self.file_name, "problems": self.problems}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80] or "source"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checked_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Validate edited metadata: known names, ISO dates, a known authority level; a clear error otherwise."""
    clean: dict[str, Any] = {}
    for name, value in fields.items():
        if name not in EDITABLE_FIELDS:
            raise SourceError(f"'{name}' is not a source field (editable: {', '.join(EDITABLE_FIELDS)})")
        if value is None:
            clean[name] = None if name in DATE_FIELDS else ("" if name != "deprecated" else False)
            continue
        if name in DATE_FIELDS:
            value = str(value).strip()
            if value:
                try:
                    value = date.fromisoformat(value).isoformat()
                except ValueError:
                    raise SourceError(f"{name.replace('_', ' ')} must be a date like 2024-07-12, not '{value}'") from None
            clean[name] = value or None
        elif name == "deprecated":
            clean[name] = bool(value)
        elif name == "authority_level":
            if value not in AUTHORITY_SCORES:
                raise SourceError(f"unknown authority level '{value}' (one of: {', '.join(AUTHORITY_SCORES)})")
            clean[name] = value
        elif name == "source_url":
            value = str(value).strip()
            if value and not SAFE_URL_RE.match(value):
                raise SourceError("the source URL must be an http(s) address without spaces, quotes, brackets or "
                                  f"parentheses, not '{value[:80]}'")
            clean[name] = value[:1000]
        elif name == "title":
            value = " ".join(str(value).split())
            if not value:
                raise SourceError("a source needs a title")
            clean[name] = value[:500]
        else:
            clean[name] = " ".join(str(value).split())[:1000 if name == "source_url" else 300]
    if clean.get("valid_from") and clean.get("valid_until") and clean["valid_until"] < clean["valid_from"]:
        raise SourceError("valid until is before valid from")
    return clean


class SourceRegistry:
    """Reads and writes the registry rows; knows where uploaded files live. Parsing and indexing are the
    service's (``regintel.sources.service``)."""

    def __init__(self, db: Database, data_dir: Path) -> None:
        self.db = db
        self.files_dir = Path(data_dir) / "sources"
        self._currency: tuple[float, dict[str, DocumentCurrency]] | None = None
        self._currency_lock = threading.Lock()

    # -- reading ----------------------------------------------------------------------------------------------
    def list(self, include_removed: bool = False) -> list[SourceInfo]:
        with self.db.session() as session:
            query = select(SourceDocument).order_by(SourceDocument.created_at, SourceDocument.id)
            if not include_removed:
                query = query.where(SourceDocument.status == "active")
            return [SourceInfo.of(row) for row in session.scalars(query)]

    def get(self, source_id: str) -> SourceInfo:
        with self.db.session() as session:
            row = session.get(SourceDocument, source_id)
            if row is None:
                raise SourceError(f"No source with id '{source_id}' (see `python -m regintel sources list`)")
            return SourceInfo.of(row)

    def exists(self, source_id: str) -> bool:
        with self.db.session() as session:
            return session.get(SourceDocument, source_id) is not None

    def removed_ids(self) -> set[str]:
        with self.db.session() as session:
            return set(session.scalars(select(SourceDocument.id).where(SourceDocument.status == "removed")))

    def new_id(self, wanted: str) -> str:
        """A free id from a title or file name ("eu-ai-act", "eu-ai-act-2")."""
        base = slug(wanted)
        candidate, n = base, 1
        while self.exists(candidate):
            n += 1
            candidate = f"{base}-{n}"
        return candidate

    def stored_file(self, info: SourceInfo | SourceDocument) -> Path:
        return self.files_dir / info.id / info.file_name

    def text_file(self, source_id: str) -> Path:
        return self.files_dir / source_id / "text.md"

    # -- writing ----------------------------------------------------------------------------------------------
    def save(self, source_id: str, **values: Any) -> SourceInfo:
        """Insert or update a row with these column values (no validation: callers checked them)."""
        with self.db.session() as session:
            row = session.get(SourceDocument, source_id)
            if row is None:
                row = SourceDocument(id=source_id, **values)
                session.add(row)
            else:
                for name, value in values.items():
                    setattr(row, name, value)
            session.flush()
            info = SourceInfo.of(row)
        self._currency = None
        return info

    def edit(self, source_id: str, fields: dict[str, Any]) -> SourceInfo:
        """A person's metadata edit (validated); from now on the manifest does not override this entry."""
        clean = checked_fields(fields)
        if clean.get("supersedes"):
            if clean["supersedes"] == source_id:
                raise SourceError("a source cannot supersede itself")
            self.get(clean["supersedes"])  # raises when unknown
        self.get(source_id)
        return self.save(source_id, **clean, edited_at=datetime.now(timezone.utc))

    def mark_removed(self, source_id: str) -> SourceInfo:
        self.get(source_id)
        return self.save(source_id, status="removed", edited_at=datetime.now(timezone.utc))

    def record_chunks(self, counts: dict[str, int], articles: dict[str, int] | None = None) -> None:
        """After an ingestion: how many passages each active source has in the index, and, for a corpus-folder
        document (an upload has its parser's count), how many articles."""
        with self.db.session() as session:
            for row in session.scalars(select(SourceDocument).where(SourceDocument.status == "active")):
                row.chunks = counts.get(row.id, 0)
                if row.origin == "folder" and articles is not None:
                    row.articles = articles.get(row.id, 0)

    def delete_files(self, source_id: str) -> None:
        shutil.rmtree(self.files_dir / source_id, ignore_errors=True)

    # -- the corpus folder ------------------------------------------------------------------------------------
    def import_folder(self, corpus_dir: Path) -> CorpusScan:
        """Bring the folder's documents into the registry (new ones added, unedited ones refreshed from the
        manifest, vanished ones marked removed) and return its scan's problems."""
        scan = scan_corpus(corpus_dir)
        seen: set[str] = set()
        with self.db.session() as session:
            rows = {row.id: row for row in session.scalars(select(SourceDocument))}
            for doc in scan.documents:
                seen.add(doc.id)
                row = rows.get(doc.id)
                if row is not None and row.origin != "folder":
                    scan.problems.append((doc.path.name, f"id '{doc.id}' is taken by an uploaded source: skipped"))
                    continue
                values = _folder_values(doc)
                if row is None:
                    session.add(SourceDocument(id=doc.id, origin="folder", added_by="corpus folder", **values))
                elif row.status == "active":
                    row.file_path, row.file_name, row.format = values["file_path"], values["file_name"], values["format"]
                    if row.edited_at is None:
                        for name, value in values.items():
                            setattr(row, name, value)
            for row in rows.values():
                if row.origin == "folder" and row.status == "active" and row.id not in seen \
                        and row.id not in scan.unreadable_ids:
                    row.status = "removed"
        self._currency = None
        return scan

    # -- what ingestion indexes -------------------------------------------------------------------------------
    def documents(self) -> CorpusScan:
        """The active sources as corpus documents (an upload is read from the markdown its parser wrote)."""
        scan = CorpusScan()
        for info in self.list():
            path = self.text_file(info.id) if info.origin == "upload" else Path(self._folder_path(info.id))
            if not path.exists():
                scan.problems.append((info.file_name or info.id, "its text is missing from the data directory"))
                scan.unreadable_ids.add(info.id)
                continue
            scan.documents.append(corpus_document(info, path, self._anchors(info.id)))
        return scan

    def _folder_path(self, source_id: str) -> str:
        with self.db.session() as session:
            row = session.get(SourceDocument, source_id)
            return row.file_path if row is not None else ""

    def _anchors(self, source_id: str) -> dict[str, str]:
        with self.db.session() as session:
            row = session.get(SourceDocument, source_id)
            return dict(row.anchors or {}) if row is not None else {}

    # -- currency at search time -------------------------------------------------------------------------------
    def currency(self) -> dict[str, DocumentCurrency]:
        """Document id -> its currency (read again at most every few seconds: a deprecation made in another
        process reaches this one's next answers)."""
        with self._currency_lock:
            cached = self._currency
            if cached is not None and time.monotonic() - cached[0] < CURRENCY_TTL_SECONDS:
                return cached[1]
            infos = self.list()
            titles = {i.id: i.short_title or i.title for i in infos}
            superseded = {i.supersedes: i.id for i in infos if i.supersedes and i.supersedes in titles}
            notes = {
                i.id: DocumentCurrency(version=i.version, last_verified=i.last_verified or "", deprecated=i.deprecated,
                                       valid_until=i.valid_until or "", superseded_by=superseded.get(i.id, ""),
                                       superseded_title=titles.get(superseded.get(i.id, ""), ""))
                for i in infos
            }
            self._currency = (time.monotonic(), notes)
            return notes


def corpus_document(info: SourceInfo, path: Path, anchors: dict[str, str] | None = None) -> CorpusDocument:
    return CorpusDocument(id=info.id, title=info.title, short_title=info.short_title or info.title[:60], path=path,
                          jurisdiction=info.jurisdiction, language=info.language, authority_level=info.authority_level,
                          source_url=info.source_url, license=info.license, celex=info.celex,
                          in_manifest=info.origin == "folder", format=info.format, version=info.version,
                          anchors=dict(anchors or {}))


def _folder_values(doc: CorpusDocument) -> dict[str, Any]:
    return {"title": doc.title, "short_title": doc.short_title, "format": "markdown", "file_name": doc.path.name,
            "file_path": str(doc.path), "jurisdiction": doc.jurisdiction, "language": doc.language,
            "authority_level": doc.authority_level, "source_url": doc.source_url, "license": doc.license,
            "celex": doc.celex, "version": doc.version[:120]}


def manifest_entries(infos: Iterable[SourceInfo]) -> list[dict[str, Any]]:
    """The registry as ``manifest.json`` entries (the export format)."""
    return [{"id": i.id, "file": i.file_name, "title": i.title, "short_title": i.short_title,
             "jurisdiction": i.jurisdiction, "language": i.language, "authority_level": i.authority_level,
             "version": i.version, "source_url": i.source_url, "license": i.license, "celex": i.celex,
             "valid_from": i.valid_from, "valid_until": i.valid_until, "deprecated": i.deprecated}
            for i in infos]
