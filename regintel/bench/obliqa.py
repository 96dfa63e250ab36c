"""Readers for benchmark files in the ObliQA schema (any file of that schema, not only the shipped ones).

passages: one JSON object a line {pid, doc_id, passage_ref, text}; questions: {qid, question, gold_pids[]};
an optional documents.json beside the passages gives document titles ({document_id, title}).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from regintel.retrieval.chunking import Chunk


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    gold_pids: frozenset[str]


def _jsonl(path: Path) -> list[dict]:
    rows = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as exc:
                    raise ValueError(f"{path}:{number}: not valid JSON ({exc})") from exc
    return rows


def document_titles(passages_path: Path) -> dict[str, str]:
    candidate = Path(passages_path).with_name("documents.json")
    if not candidate.exists():
        return {}
    return {str(d["document_id"]): str(d["title"]) for d in json.loads(candidate.read_text(encoding="utf-8"))}


GUIDANCE_TITLE = re.compile(r"\b(guidance|guiding|policy|policies|manual|code of)\b", re.IGNORECASE)


def authority_for_title(title: str) -> str:
    """Binding rulebooks and regulations rank as national law; the regulator's guidance, policies and codes as
    regulator guidance (a document's type, read from its title, never from the questions)."""
    return "regulator_guidance" if GUIDANCE_TITLE.search(title) else "national_law"


def rule_of(passage_ref: str) -> str:
    """The rule a passage belongs to: ``1.1.1.(2)`` -> ``1.1.1``, ``3.2`` -> ``3.2`` (its numbered paragraphs are
    parts of one rule, as an article's parts are in the demo corpus)."""
    return passage_ref.split(".(", 1)[0].rstrip(".") or passage_ref


def load_passages(path: Path) -> list[Chunk]:
    """Passages as Chunks (title and reference give the same context header as corpus chunks)."""
    titles = document_titles(path)
    chunks = []
    for position, row in enumerate(_jsonl(path)):
        doc_id = str(row["doc_id"])
        chunks.append(
            Chunk(
                chunk_id=str(row["pid"]),
                document_id=doc_id,
                title=titles.get(doc_id, f"Document {doc_id}"),
                ref=str(row.get("passage_ref", "")),
                heading="",  # ObliQA passages have a numeric reference, not a heading
                section_path="",
                text=str(row.get("text", "")),
                jurisdiction="",
                language="en",
                authority_level=authority_for_title(titles.get(doc_id, "")),
                source_url="",
                position=position,
                parent=f"{doc_id}:{rule_of(str(row.get('passage_ref', '')))}",
            )
        )
    return chunks


def load_questions(path: Path) -> list[Question]:
    return [Question(str(r["qid"]), str(r["question"]), frozenset(map(str, r["gold_pids"]))) for r in _jsonl(path)]


def obliqa_references(path: Path) -> dict[str, frozenset[str]]:
    """ObliQA-XRef's passage-to-passage citations as the ranker's cross-reference graph."""
    references: dict[str, set[str]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                references.setdefault(str(row["source_pid"]), set()).add(str(row["target_pid"]))
    return {source: frozenset(targets) for source, targets in references.items()}
