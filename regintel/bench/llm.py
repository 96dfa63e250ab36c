"""LLM benchmark: time to first chunk and total time of a typical turn through the LlmRouter, and (on an
ObliQA-schema file) the share of offline answer sentences found verbatim in the passage they cite."""

from __future__ import annotations

import json
import time
from pathlib import Path
from statistics import median

from regintel.bench.metrics import percentile
from regintel.config import Settings
from regintel.llm.chunks import TextChunk, ToolChunk
from regintel.llm.grounding import verbatim_rate
from regintel.llm.prompt_format import PromptSource, render_user_message
from regintel.llm.router import LlmRouter
from regintel.runtime import RegIntel
from regintel.llm.tools import CAPTURE_CONCEPTS

DEMO_QUESTIONS = [
    "When must a controller notify a personal data breach to the supervisory authority?",
    "What does DORA require for the management of ICT third-party risk?",
    "What is the lawful basis of legitimate interests under the GDPR?",
    "Which financial entities must carry out threat-led penetration testing?",
    "Qui peut utiliser le régime de l'Union du guichet unique OSS en Belgique ?",
    "Une ASBL est-elle assujettie à la TVA ?",
    "¿Qué derechos tiene el interesado a la supresión de sus datos personales?",
    "What is double materiality in the ESRS?",
    "Quel est le lieu d'imposition d'une prestation de services entre assujettis ?",
    "What information must a register of information on ICT contractual arrangements contain?",
]
SYSTEM = "You are RegIntel Copilot. Answer only from the numbered sources and cite them as [n]."


def _sources(hits) -> list[PromptSource]:
    return [PromptSource.from_source(i, s) for i, s in enumerate(hits, start=1)]


def _timed_turn(router: LlmRouter, question: str, sources: list[PromptSource]) -> dict:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": render_user_message(question, sources)}]
    started = time.perf_counter()
    first = None
    text = []
    tools = 0
    for chunk in router.stream("main_chat", messages, [CAPTURE_CONCEPTS]):
        if isinstance(chunk, TextChunk):
            first = first if first is not None else time.perf_counter() - started
            text.append(chunk.delta)
        elif isinstance(chunk, ToolChunk):
            tools += 1
    return {"ttfc_ms": (first or 0) * 1000, "total_ms": (time.perf_counter() - started) * 1000,
            "answer": "".join(text), "tool_chunks": tools}


def run_llm_bench(settings: Settings, passages: Path | None = None, questions: Path | None = None, limit: int = 200, k: int = 5) -> dict:
    app = RegIntel(settings, graph=None)
    router = app.router
    turns = []
    verbatim = [0, 0]
    answered = 0
    if passages and questions:
        from regintel.bench.obliqa import load_passages, load_questions
        from regintel.retrieval.bm25_index import BM25Index

        rows = load_passages(passages)
        by_id = {p.chunk_id: p for p in rows}
        index = BM25Index()
        index.build([p.chunk_id for p in rows], [p.index_text for p in rows], ["en"] * len(rows))
        items = []
        for q in load_questions(questions)[:limit]:
            hits = index.search(q.question, k=k, language="en")
            items.append((q.question, [PromptSource(i, by_id[c].text, by_id[c].title, by_id[c].ref, language="en")
                                       for i, (c, _) in enumerate(hits, start=1)]))
        retrieval = "BM25 top-%d over %s" % (k, passages.name)
    else:
        search = app.index
        items = [(q, _sources(search.search(q, k=k).sources)) for q in DEMO_QUESTIONS]
        retrieval = "hybrid top-%d over the demo corpus" % k
    for question, sources in items:
        turn = _timed_turn(router, question, sources)
        found, total = verbatim_rate(turn["answer"], sources)
        verbatim[0] += found
        verbatim[1] += total
        answered += total > 0
        turns.append(turn)
    ttfc = [t["ttfc_ms"] for t in turns]
    totals = [t["total_ms"] for t in turns]
    return {
        "provider": router.describe(),
        "retrieval": retrieval,
        "turns": len(turns),
        "answered": answered,
        "verbatim_sentences": verbatim[0],
        "sentences": verbatim[1],
        "verbatim_rate": round(verbatim[0] / verbatim[1], 4) if verbatim[1] else None,
        "ttfc_ms_p50": round(median(ttfc), 2) if ttfc else None,
        "ttfc_ms_p95": round(percentile(ttfc, 95), 2),
        "total_ms_p50": round(median(totals), 2) if totals else None,
        "total_ms_p95": round(percentile(totals, 95), 2),
    }


def print_llm_report(result: dict, as_json: bool) -> None:
    print(f"LLM turns through the router: provider {result['provider']['provider']} ({result['provider']['model']}), "
          f"{result['turns']} turns, sources: {result['retrieval']}")
    print(f"  time to first chunk  p50 {result['ttfc_ms_p50']} ms   p95 {result['ttfc_ms_p95']} ms")
    print(f"  total turn time      p50 {result['total_ms_p50']} ms   p95 {result['total_ms_p95']} ms")
    print(f"  answered             {result['answered']} of {result['turns']}")
    print(f"  verbatim sentences   {result['verbatim_sentences']} of {result['sentences']} ({result['verbatim_rate']})")
    if as_json:
        print(json.dumps(result))
