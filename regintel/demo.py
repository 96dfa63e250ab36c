"""``python -m regintel demo``: content for every page of a fresh clone, made by the real engine.

Builds the index (and seeds the graph) when it is empty, then asks a few real questions as two tenants:
answered, follow-up, French, refused, abstained, and a repeated question served from the cache, with a thumbs
up and a thumbs down; then runs one concept extraction (DORA Article 3), takes one feedback command and commits
it, so the Extraction Review page has a committed run and the graph has reviewed concepts. Nothing is hard-coded but the questions: answers, grades, concepts and traces are the
engine's own. Running it again adds nothing (the demo tenant already has conversations) unless ``force``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from regintel.runtime import RegIntel

DEMO_TENANT = "demo"
CONVERSATIONS: list[tuple[str, str, list[str]]] = [  # (tenant, user, questions of one conversation)
    ("demo", "ana", ["When must a personal data breach be notified?", "are you sure?"]),
    ("demo", "ana", ["What must financial entities report about major ICT-related incidents?"]),
    ("demo", "ana", ["Quelles sont les obligations de facturation en matière de TVA ?"]),
    ("demo", "ben", ["What will the EU require on data breaches next year?"]),
    ("demo", "ben", ["What are the best execution obligations of investment firms under MiFID II?"]),
    ("demo", "ben", ["When must a personal data breach be notified?"]),  # served from the cache
    ("acme", "carla", ["What does double materiality mean in the ESRS?"]),
]
FEEDBACK = {  # question -> (rating, comment)
    "What must financial entities report about major ICT-related incidents?": (1, "Clear, with the right article."),
    "What are the best execution obligations of investment firms under MiFID II?": (-1, "MiFID II is not in the corpus yet: please add it."),
    "When must a personal data breach be notified?": (1, ""),
}


@dataclass
class DemoReport:
    turns: list[dict[str, Any]] = field(default_factory=list)
    skipped: bool = False

    def summary(self) -> str:
        if self.skipped:
            return "The demo tenant already has conversations (use --force to add more)."
        lines = [f"{t['tenant']}/{t['user']}: {t['question'][:60]} -> {t['mode']}"
                 + (f" ({t['reason']})" if t["reason"] else "") + (" [cache]" if t["from_cache"] else "")
                 for t in self.turns]
        return "\n".join(lines)


def seed_demo(app: RegIntel, force: bool = False) -> DemoReport:
    repo, tenants, engine = app.conversations, app.tenants, app.chat
    report = DemoReport()
    demo = tenants.ensure_tenant(DEMO_TENANT)
    if repo.conversations(demo.id) and not force:
        report.skipped = True
        return report
    rated: set[str] = set()
    for tenant_name, user_name, questions in CONVERSATIONS:
        tenant = tenants.ensure_tenant(tenant_name)
        user = tenants.ensure_user(tenant.id, user_name)
        conversation = repo.create_conversation(tenant.id, user.id)
        for question in questions:
            response = engine.ask(tenant.id, user.id, conversation.id, question)
            report.turns.append({"tenant": tenant_name, "user": user_name, "question": question,
                                 "mode": response.response_mode, "reason": response.abstention_reason,
                                 "from_cache": response.from_cache})
            if question in FEEDBACK and question not in rated and response.message_id:
                rating, comment = FEEDBACK[question]
                repo.save_feedback(tenant.id, user.id, response.message_id, rating, comment)
                rated.add(question)
    return report


EXTRACTION_SOURCE = ("eu-dora", "Article 3")
EXTRACTION_FEEDBACK = "rename 1 to Digital operational resilience (DORA)"


def seed_enrichment(app: RegIntel) -> str:
    """Run the enrichment jobs the demo's turns queued, so its concepts are linked to the articles that define or
    mention them (the Graph Explorer takes "Personal data breach" to GDPR Articles 4, 33 and 34)."""
    from regintel.jobs.worker import run_worker

    processed = run_worker(app.jobs, app.worker_handlers(), once=True)
    return f"enrichment: {processed} jobs (concepts linked to the sections that define or mention them)"


def seed_extraction(app: RegIntel) -> str:
    """One committed extraction over a real corpus article (skipped when that content is already processed)."""
    from regintel.extraction.content import content_from_corpus
    from regintel.retrieval.corpus import scan_corpus

    workflow = app.extraction
    doc_id, ref = EXTRACTION_SOURCE
    document = next(d for d in scan_corpus(app.settings.corpus_dir).documents if d.id == doc_id)
    content = workflow.save_content(content_from_corpus(document, ref, app.lexicon.domain_for(doc_id)))
    demo = app.tenants.ensure_tenant(DEMO_TENANT)
    workflow.runs.assign_tenant("demo", demo.id)  # runs an older demo made before runs recorded their tenant
    run = workflow.start(content.key, curator="demo", tenant_id=demo.id)
    if run.status != "review":
        return f"extraction: {content.title} is {run.status}"
    workflow.feedback(run.id, EXTRACTION_FEEDBACK)
    run = workflow.approve(run.id)
    return (f"extraction: {content.title} -> {run.status}, {len(run.committed.get('concepts', []))} concepts, "
            f"{run.committed.get('relations', 0)} relations, {len(run.committed.get('notes', []))} notes")
