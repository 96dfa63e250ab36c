"""Seed the rules graph from the indexed corpus: Jurisdiction, Rule per document, Section per article (or
heading unit), PART_OF_RULE and IN_JURISDICTION, and CITES edges parsed from cross-references in the texts."""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from dataclasses import dataclass

from regintel.egress.sanitiser import remembered_findings
from regintel.errors import GraphError
from regintel.graph.crossrefs import parse_cross_references
from regintel.graph.store import GraphStore
from regintel.graph.write_service import GraphWriteService
from regintel.retrieval.chunking import Chunk
from regintel.retrieval.corpus import CorpusDocument

log = logging.getLogger(__name__)
CELEX_RE = re.compile(r"^[03](\d{4})([RLD])(\d{4})")  # 3: as adopted, 0: consolidated
CELEX_TYPES = {"R": "regulation", "L": "directive", "D": "decision"}


@dataclass
class GraphSeedReport:
    rules: int = 0
    sections: int = 0
    citations: int = 0
    external_acts: int = 0


def act_ids_for_celex(celex: str) -> list[str]:
    """Both numbering styles an act is cited by: "regulation:2016/679" and "regulation:679/2016"."""
    match = CELEX_RE.match(celex or "")
    if not match:
        return []
    year, kind, number = match.group(1), CELEX_TYPES[match.group(2)], str(int(match.group(3)))
    return [f"{kind}:{year}/{number}", f"{kind}:{number}/{year}"]


def section_key(chunk) -> str:
    """The Section of a chunk (or Source): its id without the "~part" suffix of a split article."""
    return chunk.chunk_id.split("~", 1)[0]


def _section_ref(chunk: Chunk) -> str:
    return re.sub(r" \(\d+/\d+\)$", "", chunk.ref)


def seed_graph(writer: GraphWriteService, documents: list[CorpusDocument], chunks: list[Chunk],
               removed: list[str] | None = None) -> GraphSeedReport:
    """Seed (or re-seed) the corpus part of the graph; Sections that vanished from a seeded document and every node
    of a ``removed`` document are deleted in the same transaction."""
    report = GraphSeedReport()
    docs = {d.id: d for d in documents}
    act_to_rule = {act: d.id for d in documents for act in act_ids_for_celex(d.celex)}
    sections: dict[str, dict] = {}
    article_sections: dict[tuple[str, str], str] = {}
    for chunk in chunks:
        key = section_key(chunk)
        entry = sections.setdefault(key, {
            "key": key, "rule_key": chunk.document_id, "ref": _section_ref(chunk), "heading": chunk.heading[:300],
            "section_path": chunk.section_path[:500], "source_url": chunk.source_url, "chunk_ids": []})
        entry["chunk_ids"].append(chunk.chunk_id)
        if "#art-" in key:
            article_sections[(chunk.document_id, key.split("#art-", 1)[1].replace("-", " "))] = key

    citations: dict[tuple[str, str, str], str] = {}  # (from, to, target label) -> reference text
    external: dict[str, str] = {}
    for chunk in chunks:
        source = section_key(chunk)
        language = docs[chunk.document_id].language if chunk.document_id in docs else "en"
        for ref in parse_cross_references(chunk.text, language):
            if ref.kind == "article":
                target = article_sections.get((chunk.document_id, ref.target.lower()))
                if target and target != source:
                    citations.setdefault((source, target, "Section"), ref.text)
            elif ref.kind == "external_article" and ref.act in act_to_rule:
                target = article_sections.get((act_to_rule[ref.act], ref.target.lower()))
                if target:
                    citations.setdefault((source, target, "Section"), ref.text)
            elif ref.kind == "act":
                rule = act_to_rule.get(ref.target)
                if rule == chunk.document_id:
                    continue
                if rule is None:
                    rule = f"act:{ref.target}"
                    external.setdefault(rule, ref.text)
                citations.setdefault((source, rule, "Rule"), ref.text)

    jurisdictions = {d.jurisdiction for d in documents if d.jurisdiction}
    if external:  # external acts are attached to EU
        jurisdictions.add("EU")
    # the ingress guard reads every property for personal data; a section's rule key, path and source address
    # repeat across its siblings, so each distinct text is read once
    with remembered_findings(), writer.batch():
        writer.prune_corpus([d.id for d in documents], list(sections), removed or [])
        writer.upsert_nodes("Jurisdiction", [{"key": j, "code": j, "name": j} for j in sorted(jurisdictions)])
        writer.upsert_nodes("Rule", [
            {"key": d.id, "title": d.title[:500], "short_title": d.short_title[:120], "jurisdiction": d.jurisdiction,
             "language": d.language, "authority_level": d.authority_level, "source_url": d.source_url, "celex": d.celex}
            for d in documents])
        writer.upsert_nodes("Rule", [{"key": k, "title": text[:300], "jurisdiction": "EU"} for k, text in external.items()])
        writer.upsert_edges("IN_JURISDICTION", "Rule", "Jurisdiction",
                            [{"from": d.id, "to": d.jurisdiction} for d in documents if d.jurisdiction])
        writer.upsert_edges("IN_JURISDICTION", "Rule", "Jurisdiction", [{"from": k, "to": "EU"} for k in external])
        writer.upsert_nodes("Section", [{**s, "chunk_ids": s["chunk_ids"][:100]} for s in sections.values()])
        writer.upsert_edges("PART_OF_RULE", "Section", "Rule", [{"from": s["key"], "to": s["rule_key"]} for s in sections.values()])
        grouped: dict[str, list[dict]] = defaultdict(list)
        for (source, target, label), text in citations.items():
            grouped[label].append({"from": source, "to": target, "props": {"reference_text": text[:300]}})
        for label, rows in grouped.items():
            writer.upsert_edges("CITES", "Section", label, rows)
    report.rules, report.sections = len(documents), len(sections)
    report.citations, report.external_acts = len(citations), len(external)
    return report


def seed_corpus_graph(graph: GraphStore, documents: list[CorpusDocument], chunks: list[Chunk],
                      removed: list[str] | None = None) -> str:
    """Seed the graph after an ingestion; returns the line the ingestion report shows. The graph is a side feature
    of ingestion: a failure is reported in that line, never raised."""
    try:
        graph.ensure_schema()
        seeded = seed_graph(GraphWriteService(graph), documents, chunks, removed)
    except (GraphError, OSError) as exc:
        log.warning("graph seeding failed: %s", exc)
        return f"not updated ({exc.__class__.__name__}: {str(exc)[:200]})"
    return (f"{seeded.rules} rules, {seeded.sections} sections, {seeded.citations} citations "
            f"({seeded.external_acts} external acts)" + (f", {len(removed)} removed document(s) pruned" if removed else ""))
