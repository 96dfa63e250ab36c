"""Adding, editing, deprecating and removing sources: the one service behind the Sources page and the
``python -m regintel sources`` command line (issue 23 items 1, 4 and 5).

Adding a file parses it (article-aware, ``regintel.sources.parsers``), keeps the original and the markdown made of
it under ``<data dir>/sources/<id>/``, records its metadata, then re-indexes: only the passages that are new or
changed are embedded, vanished ones leave the index and the graph (``RegIntel.ingest``). A file that cannot be
parsed is refused with the parser's reason and nothing is stored.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Callable

from regintel.retrieval.ingest import IngestReport
from regintel.sources.parsers import ParseError, parse_source
from regintel.sources.registry import ID_RE, SourceError, SourceInfo, SourceRegistry, checked_fields, file_sha256

# the metadata that is part of every passage (chunk headers, citation chips): editing it re-indexes
INDEXED_FIELDS = {"title", "short_title", "jurisdiction", "language", "authority_level", "source_url", "celex"}
Ingest = Callable[..., IngestReport]
# an upload is parsed by the suffix of the name it was uploaded with (the page saves it under a temporary name)
FORMATS_BY_SUFFIX = {".html": "html", ".htm": "html", ".xhtml": "html", ".xml": "html", ".pdf": "pdf",
                     ".docx": "docx", ".md": "markdown", ".markdown": "markdown", ".txt": "markdown"}


@dataclass
class SourceChange:
    """What an add / edit / remove did: the entry, the indexing report (None when nothing needed re-indexing)."""

    source: SourceInfo
    report: IngestReport | None = None
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        s = self.source
        lines = [f"{s.id}: {s.title} ({s.format}, {s.articles} articles"
                 + (f", {s.pages} pages" if s.pages else "") + f", {s.chunks} passages indexed)"
                 + (" — deprecated" if s.deprecated else "") + (" — removed" if s.status == "removed" else "")]
        lines += [f"note: {problem}" for problem in self.problems]
        if self.report is not None:
            lines.append(self.report.summary())
        return "\n".join(lines)


@dataclass
class BatchReport:
    """Per-file outcome of adding several files, and the one indexing run after them."""

    added: list[SourceChange] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (file name, reason)
    report: IngestReport | None = None

    def summary(self) -> str:
        lines = [change.summary() for change in self.added]
        lines += [f"refused {name}: {reason}" for name, reason in self.refused]
        if self.report is not None:
            lines.append(self.report.summary())
        return "\n".join(lines)


def files_in(folder: Path) -> list[tuple[Path, str]]:
    """The files of a folder a source can be made of (by suffix), in name order; hidden files are left out."""
    return [(path, path.name) for path in sorted(Path(folder).rglob("*"))
            if path.is_file() and not path.name.startswith(".") and path.suffix.lower() in FORMATS_BY_SUFFIX]


class SourceService:
    def __init__(self, registry: SourceRegistry, ingest: Ingest) -> None:
        self.registry = registry
        self._ingest = ingest

    # -- adding -----------------------------------------------------------------------------------------------
    def add(self, path: Path, fields: dict[str, Any] | None = None, *, source_id: str | None = None,
            actor: str = "", sync: bool = True, progress: Callable[[str, int, int], None] | None = None,
            file_name: str | None = None) -> SourceChange:
        """Parse and register a file, then index it unless ``sync`` is False. ``source_id``: the id to give it, or
        an existing upload's id (its new version replaces the old file; only changed passages are embedded)."""
        path = Path(path)
        if not path.is_file():
            raise SourceError(f"{path} is not a file")
        fields = checked_fields({k: v for k, v in (fields or {}).items() if v is not None and v != ""})
        file_name = _safe_file_name(file_name or path.name)
        try:
            parsed = parse_source(path, format=FORMATS_BY_SUFFIX.get(Path(file_name).suffix.lower()))
        except ParseError as exc:
            raise SourceError(str(exc)) from exc
        if not parsed.markdown.strip():
            raise SourceError(f"{file_name}: no text could be read from it")
        if source_id is not None and not self.registry.exists(source_id):
            if not ID_RE.match(source_id):
                raise SourceError(f"'{source_id}' cannot be a source id: lower-case letters, digits, '.', '_' and '-'")
        elif source_id is not None:
            existing = self.registry.get(source_id)
            if existing.origin != "upload":
                raise SourceError(f"'{source_id}' comes from the corpus folder: edit that file, or add this one "
                                  "under a new id")
        else:
            source_id = self.registry.new_id(fields.get("short_title") or fields.get("title") or Path(file_name).stem)
        if fields.get("supersedes"):
            self.registry.get(fields["supersedes"])
        title = fields.pop("title", None) or parsed.title or Path(file_name).stem
        self._store_files(source_id, path, file_name, parsed.markdown)
        values = {
            "title": title[:500], "short_title": fields.pop("short_title", "") or title[:60], "format": parsed.format,
            "origin": "upload", "file_name": file_name, "file_path": f"sources/{source_id}/{file_name}",
            "file_sha256": file_sha256(path), "language": fields.pop("language", "") or parsed.language,
            "articles": parsed.articles, "pages": parsed.pages, "anchors": dict(parsed.anchors),
            "problems": list(parsed.problems), "status": "active", "added_by": actor[:200],
            "celex": fields.pop("celex", "") or parsed.metadata.get("celex", "")[:40],
            "last_verified": fields.pop("last_verified", None) or date.today().isoformat(),
            **fields,
        }
        info = self.registry.save(source_id, **values)
        change = SourceChange(info, problems=list(parsed.problems))
        if sync:
            change.report = self.sync(progress)
            change.source = self.registry.get(source_id)
        return change

    def add_many(self, files: list[tuple[Path, str]], fields: dict[str, Any] | None = None, *, actor: str = "",
                 progress: Callable[[str, int, int], None] | None = None) -> "BatchReport":
        """Add several files ((path, file name) pairs: a folder, or a multi-file upload) with the same metadata
        and index once at the end. A file that cannot be added is reported by name; the others still go in."""
        batch = BatchReport()
        for path, file_name in files:
            try:
                batch.added.append(self.add(path, fields, actor=actor, sync=False, file_name=file_name))
            except SourceError as exc:
                batch.refused.append((file_name, str(exc)))
        if batch.added:
            batch.report = self.sync(progress)
            for change in batch.added:
                change.source = self.registry.get(change.source.id)
        return batch

    def _store_files(self, source_id: str, original: Path, file_name: str, markdown: str) -> None:
        """Write the original and its markdown into the source's folder, replacing an older version whole (a new
        folder renamed into place: never half a version)."""
        self.registry.files_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{source_id}.", dir=self.registry.files_dir))
        try:
            shutil.copyfile(original, staging / file_name)
            (staging / "text.md").write_text(markdown, encoding="utf-8")
            target = self.registry.files_dir / source_id
            if target.exists():
                old = target.with_name(f".{source_id}.old")
                shutil.rmtree(old, ignore_errors=True)
                os.replace(target, old)
                os.replace(staging, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    # -- editing ----------------------------------------------------------------------------------------------
    def edit(self, source_id: str, fields: dict[str, Any], progress=None) -> SourceChange:
        """Change metadata; fields that every passage carries (title, language, authority …) re-index."""
        before = self.registry.get(source_id)
        info = self.registry.edit(source_id, fields)
        changed = {name for name in fields if getattr(before, name, None) != getattr(info, name, None)}
        change = SourceChange(info)
        if changed & INDEXED_FIELDS:
            change.report = self.sync(progress)
            change.source = self.registry.get(source_id)
        return change

    def deprecate(self, source_id: str, deprecated: bool = True) -> SourceChange:
        """Mark a source deprecated (or current again). Nothing is re-indexed: answers citing it are QUALIFIED
        with a warning from the next question on."""
        return SourceChange(self.registry.edit(source_id, {"deprecated": deprecated}))

    def remove(self, source_id: str, progress=None) -> SourceChange:
        """Remove a source from search and the graph; conversations keep their stored citations."""
        info = self.registry.get(source_id)
        if info.status == "removed":
            raise SourceError(f"'{source_id}' is already removed")
        info = self.registry.mark_removed(source_id)
        report = self.sync(progress)
        if info.origin == "upload":
            self.registry.delete_files(source_id)
        return SourceChange(self.registry.get(source_id), report)

    # -- indexing ---------------------------------------------------------------------------------------------
    def sync(self, progress=None) -> IngestReport:
        """Bring the index and the graph in line with the registry (the runtime's ingestion reads it)."""
        return self._ingest(progress=progress)


def _safe_file_name(name: str) -> str:
    """A file name that stays inside the source's folder (an uploaded name is user input)."""
    name = Path(name.replace("\\", "/")).name.strip().lstrip(".")
    if not name or name in {"text.md"}:
        raise SourceError(f"'{name or '(empty)'}' cannot be used as a file name")
    return name[:200]

