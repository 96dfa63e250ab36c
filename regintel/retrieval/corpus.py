"""Corpus documents: the manifest (title, jurisdiction, language, authority, URL, licence) and reading files.

A file listed in the manifest gets its metadata from there. A markdown or text file that is not listed is still
ingested, with metadata inferred from its path and first heading, so analysts can drop in their own documents.
Anything else, unreadable or not UTF-8 text, is reported by name and skipped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from regintel.errors import CorpusError

AUTHORITY_SCORES: dict[str, float] = {
    "eu_law": 1.0,
    "national_law": 0.9,
    "regulator_guidance": 0.8,
    "industry": 0.6,
    "guidance": 0.4,
}
TEXT_SUFFIXES = {".md", ".markdown", ".txt"}
IGNORED_NAMES = {"manifest.json", "README.md", "LICENSE", "LICENSE.md", "DATA_LICENSE.txt"}


def authority_score(level: str) -> float:
    """Score of an authority level; an unknown level counts as the weakest (plain guidance)."""
    return AUTHORITY_SCORES.get(level, AUTHORITY_SCORES["guidance"])


@dataclass(frozen=True)
class CorpusDocument:
    id: str
    title: str
    short_title: str
    path: Path
    jurisdiction: str = ""
    language: str = ""
    authority_level: str = "guidance"
    source_url: str = ""
    license: str = ""
    celex: str = ""
    in_manifest: bool = True
    format: str = "markdown"  # the original file's format (html / pdf / docx / markdown); ``path`` is always markdown
    version: str = ""
    # heading text -> URL fragment of the official page (EUR-Lex "art_33"), from the HTML parser (issue 23)
    anchors: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def authority_score(self) -> float:
        return authority_score(self.authority_level)


@dataclass
class CorpusScan:
    """What a corpus folder holds: readable documents, and problems reported by file name."""

    documents: list[CorpusDocument] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (file name, reason)
    unreadable_ids: set[str] = field(default_factory=set)  # documents whose indexed chunks must be kept


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "doc"


def _first_heading(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def read_document_text(path: Path) -> str:
    """Read a corpus file as UTF-8 text; raise CorpusError with the reason when it is not usable."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{path.name}: cannot be read ({exc.strerror})") from exc
    if b"\x00" in raw:
        raise CorpusError(f"{path.name}: binary content, not a text document")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path.name}: not valid UTF-8 (byte {exc.start})") from exc
    if not text.strip():
        raise CorpusError(f"{path.name}: empty document")
    return text


def scan_corpus(corpus_dir: Path) -> CorpusScan:
    """List the documents of a corpus folder (manifest first), reporting unusable entries instead of failing."""
    corpus_dir = Path(corpus_dir)
    if not corpus_dir.is_dir():
        raise CorpusError(f"Corpus folder not found: {corpus_dir}")
    scan = CorpusScan()
    listed: set[Path] = set()
    manifest_path = corpus_dir / "manifest.json"
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            entries = manifest["documents"]
        except (ValueError, KeyError, TypeError) as exc:
            raise CorpusError(f"manifest.json is not a valid corpus manifest: {exc}") from exc
        for entry in entries:
            try:
                path = (corpus_dir / entry["file"]).resolve()
                doc = CorpusDocument(
                    id=str(entry["id"]),
                    title=str(entry.get("title") or entry["id"]),
                    short_title=str(entry.get("short_title") or entry.get("title") or entry["id"]),
                    path=path,
                    jurisdiction=str(entry.get("jurisdiction", "")),
                    language=str(entry.get("language", "")),
                    authority_level=str(entry.get("authority_level", "guidance")),
                    source_url=str(entry.get("source_url", "")),
                    license=str(entry.get("license", "")),
                    celex=str(entry.get("celex", "") or ""),
                    version=str(entry.get("version", "") or ""),
                )
            except (KeyError, TypeError) as exc:
                scan.problems.append(("manifest.json", f"entry without {exc}: skipped"))
                continue
            listed.add(path)
            if not path.exists():
                scan.problems.append((entry["file"], "listed in manifest.json but missing"))
                scan.unreadable_ids.add(doc.id)
                continue
            scan.documents.append(doc)
    for path in sorted(corpus_dir.rglob("*")):
        if not path.is_file() or path.resolve() in listed or path.name in IGNORED_NAMES or path.name.startswith("."):
            continue
        rel = str(path.relative_to(corpus_dir))
        if path.suffix.lower() not in TEXT_SUFFIXES:
            scan.problems.append((rel, f"unsupported file type '{path.suffix or 'none'}': skipped"))
            continue
        try:
            title = _first_heading(read_document_text(path)) or path.stem
        except CorpusError as exc:
            scan.problems.append((rel, str(exc).split(": ", 1)[-1]))
            scan.unreadable_ids.add(_slug(path.stem))
            continue
        scan.documents.append(
            CorpusDocument(id=_slug(path.stem), title=title, short_title=title[:60], path=path.resolve(), in_manifest=False)
        )
    return scan
