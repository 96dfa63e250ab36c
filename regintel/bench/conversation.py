"""``python -m regintel.bench conversation``: one long, topic-switching conversation over the demo corpus (issue 20).

Measures what a long conversation does to the model's context: how many passages retrieved for the *current*
question reach the model each turn (``fresh_passages_per_turn``), how many passages of earlier turns ride along,
and whether any turn ends with an empty answer. The script switches topic every turn or two (GDPR, DORA, ESRS, the
French VAT texts, Belgian guidance) with a few follow-ups, as an analyst's session does. The world is the answers
bench's (:func:`regintel.bench.answers.bench_settings`: a scratch data directory, the demo corpus, no cache, no
rate limit) with the LLM provider of the environment (offline when no key is set).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

SCRIPT: tuple[str, ...] = (
    "What must a controller do when a personal data breach occurs?",
    "And what if the breach is unlikely to result in a risk to individuals?",
    "Which ICT risk management requirements does DORA impose on financial entities?",
    "What does double materiality mean in the ESRS?",
    "Quelles mentions doivent figurer sur une facture selon la directive TVA ?",
    "Who is a data protection officer and when must one be designated?",
    "How must major ICT-related incidents be reported under DORA?",
    "What are the conditions for consent under the GDPR?",
    "Which disclosures does ESRS E1 require on climate change mitigation?",
    "What is the place of supply of services to a taxable person under the VAT Directive?",
)


def run_conversation_bench(data_dir: Path | None = None, turns: int = len(SCRIPT), log=print) -> dict[str, Any]:
    from regintel.bench.answers import bench_settings
    from regintel.runtime import RegIntel

    settings = bench_settings(data_dir)
    for stale in settings.data_dir.glob("answers.db*"):  # a fresh SQL store: no history carries over
        stale.unlink()
    rows: list[dict[str, Any]] = []
    with RegIntel(settings, graph=None) as app:
        if app.index_or_none() is None:
            log(f"indexing the demo corpus into {settings.data_dir} ...")
            app.ingest(seed_graph=False)
        tenant = app.tenants.ensure_tenant("bench-conversation")
        user = app.tenants.ensure_user(tenant.id, "analyst")
        conversation = app.conversations.create_conversation(tenant.id, user.id).id
        for number, question in enumerate(SCRIPT[:turns], start=1):
            started = time.perf_counter()
            response = app.chat.ask(tenant.id, user.id, conversation, question)
            origins = [s.origin for s in response.sources]
            rows.append({"turn": number, "question": question, "mode": response.response_mode,
                         "fresh": origins.count("current"), "previous": origins.count("previous"),
                         "history": origins.count("history"), "cited": len(response.cited),
                         "empty": not response.answer.strip(), "latency_ms": round((time.perf_counter() - started) * 1000)})
            log(f"turn {number:>2}: {response.response_mode:<9} fresh {rows[-1]['fresh']:>2}  previous "
                f"{rows[-1]['previous']:>2}  history {rows[-1]['history']:>2}  cited {rows[-1]['cited']}")
        llm = app.describe_llm()
    fresh = [r["fresh"] for r in rows]
    answered = [r["fresh"] for r in rows if r["mode"] != "ABSTAIN"]
    return {"turns": len(rows), "fresh_passages_per_turn": fresh, "min_fresh_passages": min(fresh, default=0),
            "min_fresh_passages_answered": min(answered, default=0),
            "history_passages_per_turn": [r["previous"] + r["history"] for r in rows],
            "empty_answers": sum(r["empty"] for r in rows), "modes": [r["mode"] for r in rows],
            "context_limit": settings.chat_context_limit, "llm": llm, "rows": rows}


def main(args: Any) -> int:
    result = run_conversation_bench(Path(args.data_dir) if args.data_dir else None, args.turns,
                                    log=(lambda *_: None) if args.json else print)
    print(f"\nfresh passages per turn: {result['fresh_passages_per_turn']} (min {result['min_fresh_passages']}); "
          f"earlier turns' passages: {result['history_passages_per_turn']}; empty answers: {result['empty_answers']}")
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "rows"}))
    return 0
