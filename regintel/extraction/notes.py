"""Step 3.2: one markdown note per committed concept, in the Obsidian template of the extraction seed.

Frontmatter (YAML, written by PyYAML so any text is safely quoted): entity_id (the concept's UUID), entity_type,
short_summary, summary, concept_relations (type -> UUIDs). Body: the title, then the sections Concept / Analysis
/ Connections (all nine relation types, ``[[links]]`` by note name) / Source, titled in the concept language.
Files are written atomically (temp file + rename); the graph is the source of truth, so a failed export is
repaired by writing the notes again from the graph (``python -m regintel export-notes``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from regintel.atomic_files import write_text_atomically
from regintel.extraction.proposal import RELATION_DESCRIPTIONS, Proposal, Quote
from regintel.graph import queries
from regintel.graph.store import GraphStore
from regintel.text.normalise import printable

SECTION_TITLES = {
    "es": ("Concepto", "Análisis", "Conexiones", "Fuente"),
    "en": ("Concept", "Analysis", "Connections", "Source"),
    "fr": ("Concept", "Analyse", "Connexions", "Source"),
    "de": ("Konzept", "Analyse", "Verbindungen", "Quelle"),
    "nl": ("Concept", "Analyse", "Verbindingen", "Bron"),
    "it": ("Concetto", "Analisi", "Connessioni", "Fonte"),
    "pt": ("Conceito", "Análise", "Conexões", "Fonte"),
}
UNSAFE_NAME = re.compile(r"[\\/:*?\"<>|#^\[\]\x00-\x1f]+")


@dataclass
class NoteConcept:
    id: str
    title: str
    concept: str
    analysis: str
    short_summary: str
    summary: str
    quotes: list[Quote]


NAME_BYTES = 120  # file systems count bytes (255 per name): 40 CJK characters are 120 bytes, not 40


def _cut_bytes(text: str, limit: int) -> str:
    """``text`` shortened to at most ``limit`` UTF-8 bytes, never inside a character."""
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore").rstrip(" .")


def note_name(title: str, concept_id: str = "") -> str:
    """A file and link name Obsidian accepts: no path separators, no link syntax, no control characters, at most
    NAME_BYTES bytes. When the title had to change to become a name (``a/b`` and ``a b`` would both be ``a b``;
    two long titles may share their first 120 bytes), the concept id's first 8 characters are appended, so each
    concept keeps its own file."""
    cleaned = " ".join(UNSAFE_NAME.sub(" ", printable(title)).split()).strip(" .")
    name = _cut_bytes(cleaned, NAME_BYTES)
    if concept_id and name != title:
        name = f"{_cut_bytes(name, NAME_BYTES - 9)} {concept_id[:8]}".strip()
    return name or "Concepto"


def render_note(concept: NoteConcept, relations: dict[str, list[tuple[str, str]]], source_title: str,
                source_url: str, language: str) -> str:
    """relations: type -> [(target uuid, target note name)]."""
    concept_title, analysis_title, connections_title, source_heading = SECTION_TITLES.get(language, SECTION_TITLES["en"])
    frontmatter = {
        "entity_id": concept.id,
        "entity_type": "Concept",
        "short_summary": concept.short_summary,
        "summary": concept.summary,
        "concept_relations": {t: [uuid for uuid, _ in relations[t]] for t in RELATION_DESCRIPTIONS if relations.get(t)},
    }
    lines = ["---", yaml.safe_dump(frontmatter, allow_unicode=True, sort_keys=False, width=1000).rstrip(), "---",
             f"# {concept.title}", "", f"## {concept_title}", concept.concept, "", f"## {analysis_title}",
             concept.analysis or "", "", f"## {connections_title}"]
    for rel_type in RELATION_DESCRIPTIONS:
        links = ", ".join(f"[[{name}]]" for _, name in relations.get(rel_type, []))
        lines.append(f"- {rel_type}: {links}".rstrip())
    lines += ["", f"## {source_heading}"]
    reference = f"[{source_title}]({source_url})" if source_url else source_title
    lines += [f"> {q.text}\n>\n> — {reference}, {q.id}\n" for q in concept.quotes] or [reference]
    return "\n".join(lines).rstrip() + "\n"


def write_atomically(path: Path, text: str) -> None:
    write_text_atomically(path, text, errors="replace")  # a lone surrogate from a model reply


def export_notes(store: GraphStore, notes_dir: Path, committed: list[dict], proposal: Proposal, quotes: list[Quote],
                 source_title: str, source_url: str, language: str) -> list[str]:
    """Write the notes of a committed run's new concepts; returns the file names written. Raises OSError."""
    by_ref = {c.id: c for c in proposal.concepts}
    ids = [row["id"] for row in committed if row.get("id")]
    quote_by_id = {q.id: q for q in quotes}
    relations: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for row in store.query(queries.CONCEPT_RELATIONS_BY_IDS, {"ids": ids}) if ids else []:
        if row["type"] in RELATION_DESCRIPTIONS and row.get("target"):
            relations.setdefault(row["source"], {}).setdefault(row["type"], []).append(
                (row["target"], note_name(row.get("target_title") or row["target"], row["target"])))
    written = []
    names_used: set[str] = set()
    for row in committed:
        concept = by_ref.get(row.get("ref", ""))
        if concept is None or not row.get("id"):
            continue
        name = note_name(concept.title, row["id"])
        if name.lower() in names_used:
            name = f"{name} {row['id'][:8]}"
        names_used.add(name.lower())
        note = NoteConcept(row["id"], concept.title, concept.concept, concept.analysis, concept.short_summary,
                           concept.summary, [quote_by_id[q] for q in concept.source_quote_ids if q in quote_by_id])
        for items in relations.get(row["id"], {}).values():
            items.sort(key=lambda item: item[1])
        write_atomically(Path(notes_dir) / f"{name}.md",
                         render_note(note, relations.get(row["id"], {}), source_title, source_url, language))
        written.append(f"{name}.md")
    return written
