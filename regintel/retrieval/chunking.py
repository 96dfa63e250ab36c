"""Article-aware chunking of regulatory markdown.

The demo corpus uses several heading styles: ``### Article 6 — Lawfulness of processing`` (EUR-Lex English),
``##### Article 2 bis`` (French consolidated texts), ``## CHAPTER I — ...`` / ``### CHAPITRE 2 - ...`` /
``#### Section 1 - ...`` / ``## TITRE ...`` (structure), ``### Appendix A`` / ``#### AR 12`` (ESRS), and plain
question headings in Belgian guidance. Every heading opens a unit; structural headings only add to the path.
A unit longer than ``max_chars`` is split on paragraph boundaries (then on sentence boundaries for giant
paragraphs such as definition lists) with whole-paragraph overlap; a unit shorter than ``min_chars`` is merged
with its neighbour in the same document.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from regintel.retrieval.corpus import CorpusDocument

HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
ARTICLE_RE = re.compile(
    r"^(?:Article|Artikel|Art\.)\s+(premier|first|\d+[a-z]?(?:\s+(?:bis|ter|quater|quinquies|sexies|septies|octies|nonies|decies))?)"
    r"\s*(?:[—–\-:.]\s*(.*))?$",
    re.IGNORECASE,
)
STRUCTURE_RE = re.compile(
    r"^(?:chapter|chapitre|title|titre|part|partie|section|sous-section|subsection|annex|annexe|book|livre)\b",
    re.IGNORECASE,
)
SENTENCE_SPLIT_RE = re.compile(r"(?<=[.;:!?])\s+(?=[(\[‘'\"«A-ZÀ-Ý0-9])")


def clean_heading(text: str) -> str:
    """Heading text without markdown emphasis and surrounding punctuation noise."""
    text = re.sub(r"[*_`]+", "", text).strip()
    return re.sub(r"\s+", " ", text)


def is_structural(heading: str) -> bool:
    return bool(STRUCTURE_RE.match(heading))


def article_number(heading: str) -> str | None:
    match = ARTICLE_RE.match(heading)
    if not match:
        return None
    return "1" if match.group(1).lower() in {"premier", "first"} else match.group(1)


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage with everything a citation needs."""

    chunk_id: str
    document_id: str
    title: str
    ref: str
    heading: str
    section_path: str
    text: str
    jurisdiction: str
    language: str
    authority_level: str
    source_url: str
    position: int

    @property
    def index_text(self) -> str:
        """What BM25 indexes: document title and section heading (or reference), then the passage.

        The title helps lexical search when a question names the act ("under the AML Rules ...")."""
        label = self.heading or self.ref
        header = f"{self.title} — {label}" if label else self.title
        return f"{header}\n{self.text}".strip()

    @property
    def embed_text(self) -> str:
        """What is embedded: the section heading (when there is one) and the passage, without the document title.

        Measured on ObliQA dev: the title and a numeric reference in front of every passage dilute its vector
        (dense Recall@10 0.70 with them, 0.74 without); see docs/benchmarks.md."""
        if not self.text.strip():
            return self.index_text
        return f"{self.heading}\n{self.text}" if self.heading else self.text

    @property
    def content_hash(self) -> str:
        """Changes when either the indexed or the embedded text changes (re-ingestion re-embeds it)."""
        return hashlib.sha256(f"{self.index_text}\x00{self.embed_text}".encode("utf-8")).hexdigest()

    def metadata(self) -> dict[str, str | int | float]:
        """Flat metadata for the vector store (scalars only)."""
        from regintel.retrieval.corpus import authority_score

        return {
            "chunk_id": self.chunk_id,
            "document_id": self.document_id,
            "title": self.title,
            "ref": self.ref,
            "heading": self.heading,
            "section_path": self.section_path,
            "jurisdiction": self.jurisdiction,
            "language": self.language,
            "authority_level": self.authority_level,
            "authority_score": authority_score(self.authority_level),
            "source_url": self.source_url,
            "content_hash": self.content_hash,
            "position": self.position,
        }


@dataclass
class DocumentUnit:
    heading: str  # cleaned heading text ("Article 6 — Lawfulness of processing")
    ref: str  # short reference ("Article 6")
    path: list[str]
    paragraphs: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.paragraphs) + 2 * max(len(self.paragraphs) - 1, 0)


def parse_units(text: str) -> list[DocumentUnit]:
    """Split markdown into heading units, tracking the path of structural ancestors."""
    units: list[DocumentUnit] = []
    stack: list[tuple[int, str]] = []  # (level, heading) of open ancestors
    current = DocumentUnit(heading="", ref="Preamble", path=[])
    buffer: list[str] = []

    def flush_paragraph() -> None:
        paragraph = "\n".join(buffer).strip()
        buffer.clear()
        if paragraph:
            current.paragraphs.append(paragraph)

    for line in text.splitlines():
        match = HEADING_RE.match(line)
        if not match:
            if line.strip():
                buffer.append(line.rstrip())
            else:
                flush_paragraph()
            continue
        flush_paragraph()
        units.append(current)
        level, heading = len(match.group(1)), clean_heading(match.group(2))
        while stack and stack[-1][0] >= level:
            stack.pop()
        path = [h for lvl, h in stack if lvl > 1]
        number = article_number(heading)
        if level == 1:
            ref = "Title"
        elif number:
            ref = f"Article {number}"
        else:
            parent = path[-1] if path and not is_structural(heading) else ""
            ref = f"{parent} › {heading}" if parent and not article_number(parent) else heading
        current = DocumentUnit(heading=heading, ref=ref, path=path)
        stack.append((level, heading))
    flush_paragraph()
    units.append(current)
    return [u for u in units if u.paragraphs]


def split_long_paragraph(paragraph: str, max_chars: int) -> list[str]:
    """Break a paragraph bigger than max_chars into sentence-aligned pieces (hard cut as a last resort)."""
    sentences = SENTENCE_SPLIT_RE.split(paragraph)
    pieces: list[str] = []
    current = ""
    for sentence in sentences:
        while len(sentence) > max_chars:  # a single giant "sentence": cut at a space
            cut = sentence.rfind(" ", 0, max_chars) if " " in sentence[:max_chars] else max_chars
            cut = cut if cut > 0 else max_chars
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def _pack(paragraphs: list[str], max_chars: int, overlap_chars: int) -> list[list[str]]:
    """Group paragraphs into parts of at most max_chars, each repeating the tail of the previous part."""
    pieces: list[str] = []
    for paragraph in paragraphs:
        pieces.extend(split_long_paragraph(paragraph, max_chars) if len(paragraph) > max_chars else [paragraph])
    parts: list[list[str]] = []
    current: list[str] = []
    size = 0
    for piece in pieces:
        if current and size + 2 + len(piece) > max_chars:
            parts.append(current)
            overlap: list[str] = []
            carried = 0
            for previous in reversed(current):
                if carried + len(previous) > overlap_chars or len(overlap) + 1 >= len(current):
                    break
                overlap.insert(0, previous)
                carried += len(previous) + 2
            if carried + 2 + len(piece) > max_chars:
                overlap, carried = [], 0
            current, size = list(overlap), carried
        current.append(piece)
        size += len(piece) + (2 if size else 0)
    if current:
        parts.append(current)
    return parts


def _merge_small(units: list[DocumentUnit], min_chars: int, max_chars: int) -> list[DocumentUnit]:
    """Merge each unit below min_chars into the next unit, else the previous one, when the result fits."""
    merged: list[DocumentUnit] = []
    pending: DocumentUnit | None = None
    for unit in units:
        if pending is not None:
            if pending.size + unit.size + 2 <= max_chars:
                unit = _join(pending, unit)
            elif merged and merged[-1].size + pending.size + 2 <= max_chars:
                merged[-1] = _join(merged[-1], pending)
            else:
                merged.append(pending)
            pending = None
        if unit.size < min_chars:
            pending = unit
        else:
            merged.append(unit)
    if pending is not None:
        if merged and merged[-1].size + pending.size + 2 <= max_chars:
            merged[-1] = _join(merged[-1], pending)
        else:
            merged.append(pending)
    return merged


def _join(first: DocumentUnit, second: DocumentUnit) -> DocumentUnit:
    return DocumentUnit(
        heading=f"{first.heading}; {second.heading}".strip("; "),
        ref=f"{first.ref}; {second.ref}",
        path=first.path,
        paragraphs=[*first.paragraphs, *second.paragraphs],
    )


def _chunk_base_id(doc_id: str, unit: DocumentUnit) -> str:
    """Stable id of a unit: ``doc#art-6`` for articles, a slug of parent and heading otherwise."""
    first_ref = unit.ref.split("; ")[0]
    number = first_ref.removeprefix("Article ") if first_ref.startswith("Article ") else None
    if number:
        return f"{doc_id}#art-{number.replace(' ', '-').lower()}"
    slug = re.sub(r"[^a-z0-9]+", "-", first_ref.lower()).strip("-")[:60].strip("-")
    return f"{doc_id}#{slug or 'part'}"


def chunk_document(
    doc: CorpusDocument, text: str, max_chars: int = 1800, min_chars: int = 200, overlap_chars: int = 200
) -> list[Chunk]:
    """Chunks of one document, in reading order, with stable ids derived from document id and ref."""
    units = _merge_small(parse_units(text), min_chars, max_chars)
    chunks: list[Chunk] = []
    used: set[str] = set()  # a repeated base gets "-2", "-3" ...; skip suffixes another unit's base already has
    for unit in units:
        parts = _pack(unit.paragraphs, max_chars, overlap_chars)
        first = base = _chunk_base_id(doc.id, unit)
        repeat = 1
        while base in used:
            repeat += 1
            base = f"{first}-{repeat}"
        used.add(base)
        for number, part in enumerate(parts, start=1):
            chunks.append(
                Chunk(
                    chunk_id=base if len(parts) == 1 else f"{base}~{number}",
                    document_id=doc.id,
                    title=doc.short_title,
                    ref=unit.ref if len(parts) == 1 else f"{unit.ref} ({number}/{len(parts)})",
                    heading=unit.heading,
                    section_path=" › ".join(unit.path),
                    text="\n\n".join(part),
                    jurisdiction=doc.jurisdiction,
                    language=doc.language,
                    authority_level=doc.authority_level,
                    source_url=doc.source_url,
                    position=len(chunks),
                )
            )
    return chunks
