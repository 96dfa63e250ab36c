"""The concept extraction workflow: phases 1 (extract, self-critique, refine), 2 (human review), 3 (commit).

An explicit orchestrator rather than a framework graph: each step is one method, each result is checkpointed in
SQL (``extraction_runs`` + numbered revisions) before the next step runs, so a restarted app resumes a run at
the phase and revision it had reached. Steps that fan out (duplicate detection and relations per concept) run
in a bounded thread pool. The step methods come from ``OfflineMethods`` or, with a model configured,
``LlmMethods`` (which falls back to the offline method of a step whose output stays invalid).
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from regintel.config import Settings
from regintel.errors import ExtractionError, Forbidden
from regintel.extraction import critique as critique_rules
from regintel.extraction.catalogue import ConceptCatalogue, Embedder, concept_text
from regintel.extraction.commit import commit_proposal, unconfirmed
from regintel.jobs.queue import JobQueue
from regintel.extraction.content import ContentStore
from regintel.extraction.notes import export_notes
from regintel.extraction.offline import OfflineMethods
from regintel.extraction.proposal import ContentInfo, Critique, ExistingAttribution, Proposal, Quote, Relation
from regintel.extraction.runs import RevisionView, RunRepository, RunView
from regintel.graph.schema import REVERSE
from regintel.graph.store import GraphError, GraphStore
from regintel.graph.write_service import GraphWriteService
from regintel.identity.roles import Identity, require_role
from regintel.store import Database

log = logging.getLogger(__name__)
PHASES = ("candidates", "duplicates", "relation_search", "relations", "critique", "review", "commit", "notes")
PHASE_LABELS = {
    "candidates": "1.1a Candidate concepts", "duplicates": "1.1b Duplicate detection",
    "relation_search": "1.1c-d Relation search", "relations": "1.1e Relations", "critique": "1.2-1.3 Critique and refinement",
    "review": "2 Human review", "commit": "3.1 Commit to the graph", "notes": "3.2 Markdown notes",
}
RELATION_POOL_PER_QUERY = 10
MAX_FEEDBACK_CHARS = 4000
Progress = Callable[[str, int, int], None]


class ExtractionWorkflow:
    def __init__(self, settings: Settings, db: Database, store: GraphStore, embedder: Embedder,
                 router: Any = None, methods: Any = None) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.runs = RunRepository(db)
        self.jobs = JobQueue(db)
        self.contents = ContentStore(store, db=db)  # drafts stay in SQL until a run over them is approved
        self.writer = GraphWriteService(store)
        self.language = settings.concept_language
        if methods is None:
            offline = OfflineMethods(self.language)
            if router is not None and not router.offline:
                from regintel.extraction.llm_methods import LlmMethods

                methods = LlmMethods(router, settings, offline)
            else:
                methods = offline
        self.methods = methods

    # -- phase 0: start ---------------------------------------------------------------------------------------
    def start(self, content_key: str, curator: str = "", tenant_id: str | None = None,
              progress: Progress | None = None) -> RunView:
        """Start (or resume) extraction on a content. A processed content exits early with its own status."""
        content = self._content(content_key)
        if content.processed_date:
            run = self.runs.create(content.key, content.title, self.methods.name, curator, tenant_id, status="already_processed")
            self.runs.add_error(run.id, "start", f"This content was already processed on {content.processed_date}; nothing to do.")
            return self.runs.get(run.id)
        active = self.runs.active_for_content(content.key)
        if active is not None:
            return self.resume(active.id, progress)
        run = self.runs.create(content.key, content.title, self.methods.name, curator, tenant_id)
        return self.extract(run.id, progress)

    def resume(self, run_id: str, progress: Progress | None = None) -> RunView:
        """Continue a run where it stopped: a run in review stays there; an interrupted phase 1 carries on."""
        run = self.runs.get(run_id)
        if run.status == "running":
            latest = self.runs.revision(run_id)
            if latest is None:
                return self.extract(run_id, progress)
            content = self._content(run.content_key)
            return self._critique_loop(run_id, content, self.contents.quotes(content.key), latest.proposal,
                                       self._catalogue(), progress, rounds_done=run.current_revision)
        if run.status in ("committing", "commit_pending"):
            return self.approve(run_id)
        return run

    # -- phase 1 ----------------------------------------------------------------------------------------------
    def extract(self, run_id: str, progress: Progress | None = None) -> RunView:
        run = self.runs.get(run_id)
        content = self._content(run.content_key)
        quotes = self.contents.quotes(content.key)
        report = self._reporter(run_id, progress)
        if not quotes:
            proposal = Proposal(warnings=["The content has no quotes: there is nothing to extract. Approving marks it processed."])
            self.runs.add_revision(run_id, "extraction", proposal, Critique.from_checks({}, []))
            return self.runs.update(run_id, status="review", phase="review")
        catalogue = self._catalogue()
        proposal = self._candidates(content, quotes, report)
        vectors = self._vectors(proposal)
        proposal = self._deduplicate(content, proposal, vectors, catalogue, report)
        vectors = self._vectors(proposal)
        language = content.language or "en"
        pools = self._relation_pools(proposal, catalogue, language, report)
        proposal.relations = self._relations(proposal, vectors, pools, language, report)
        if not len(catalogue):
            proposal.notes.append("The graph has no concepts yet: every candidate is new.")
        if proposal.concepts == [] and not proposal.existing:
            proposal.warnings.append("No quote carries a concept: every quote is unattributed.")
        elif proposal.concepts == []:
            proposal.warnings.append("Every concept found already exists in the graph: the quotes are attributed to them.")
        return self._critique_loop(run_id, content, quotes, proposal, catalogue, progress, rounds_done=0)

    def _candidates(self, content: ContentInfo, quotes: list[Quote], report: Callable) -> Proposal:
        proposal = Proposal()
        size = self.settings.extraction_batch_quotes
        started = time.perf_counter()
        for start in range(0, len(quotes), size):
            part = self.methods.candidates(content, quotes[start:start + size], first_id=len(proposal.concepts) + 1)
            proposal.concepts += part.concepts
            proposal.unattributed.update(part.unattributed)
            proposal.warnings += part.warnings
            report("candidates", min(start + size, len(quotes)), len(quotes), started)
        return proposal

    def _vectors(self, proposal: Proposal) -> np.ndarray:
        texts = [concept_text(c.title, c.short_summary or c.concept) for c in proposal.concepts]
        return self.embedder.embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)

    def _deduplicate(self, content: ContentInfo, proposal: Proposal, vectors: np.ndarray, catalogue: ConceptCatalogue,
                     report: Callable) -> Proposal:
        started = time.perf_counter()
        total = len(proposal.concepts)
        if not total or not len(catalogue):
            report("duplicates", total, total, started)
            return proposal
        k = self.settings.extraction_similar_concepts

        def decide(index: int):
            similar = catalogue.similar(vectors[index], k)
            return self.methods.duplicate(proposal.concepts[index], content.jurisdiction, similar, content.language)

        with ThreadPoolExecutor(self.settings.extraction_concurrency) as pool:
            decisions = list(pool.map(decide, range(total)))
        report("duplicates", total, total, started)
        kept = []
        for concept, decision in zip(proposal.concepts, decisions):
            if not decision.is_duplicate:
                kept.append(concept)
                continue
            target = next((e for e in proposal.existing if e.key == decision.existing_key), None)
            if target is None:
                target = ExistingAttribution(key=decision.existing_key, title=decision.existing_title,
                                             reasoning=decision.reasoning, confidence=decision.confidence,
                                             duplicate_of=concept.title)
                proposal.existing.append(target)
            target.quote_ids = list(dict.fromkeys(target.quote_ids + concept.source_quote_ids))
        proposal.concepts = kept
        return proposal

    def _relation_pools(self, proposal: Proposal, catalogue: ConceptCatalogue, language: str, report: Callable) -> list[list]:
        """1.1c queries per concept and relation type, 1.1d one batched semantic search, pooled per concept."""
        started = time.perf_counter()
        if not proposal.concepts or not len(catalogue):
            report("relation_search", len(proposal.concepts), len(proposal.concepts), started)
            return [[] for _ in proposal.concepts]
        per_concept = self.methods.relation_queries_all(proposal.concepts, language)
        pools = []
        for i, queries in enumerate(per_concept):
            texts = list(dict.fromkeys(q for qs in queries.values() for q in qs if q.strip()))
            pool = catalogue.search(texts, RELATION_POOL_PER_QUERY)[: self.settings.extraction_similar_concepts]
            for q in texts:  # exact labels found by a query always join the pool
                for concept in catalogue.by_label(q):
                    if all(concept.key != c.key for c, _ in pool):
                        pool.append((concept, 1.0))
            pools.append(pool)
            report("relation_search", i + 1, len(per_concept), started)
        return pools

    def _relations(self, proposal: Proposal, vectors: np.ndarray, pools: list[list], language: str,
                   report: Callable) -> list[Relation]:
        started = time.perf_counter()
        total = len(proposal.concepts)
        new_sims = vectors @ vectors.T if total else np.zeros((0, 0))

        def relate(index: int) -> list[Relation]:
            concept = proposal.concepts[index]
            similarity = {c.id: float(new_sims[index, j]) for j, c in enumerate(proposal.concepts) if j != index}
            similarity.update({e.key: score for e, score in pools[index]})
            return self.methods.relations(concept, proposal, pools[index], similarity, language)

        with ThreadPoolExecutor(self.settings.extraction_concurrency) as pool:
            found = [r for rels in pool.map(relate, range(total)) for r in rels]
        report("relations", total, total, started)
        return _without_reverse_duplicates(found)

    def _critique_loop(self, run_id: str, content: ContentInfo, quotes: list[Quote], proposal: Proposal,
                       catalogue: ConceptCatalogue, progress: Progress | None, rounds_done: int) -> RunView:
        report = self._reporter(run_id, progress)
        existing_labels, existing_keys = catalogue.labels(), catalogue.keys
        started = time.perf_counter()
        limit = self.settings.extraction_critique_rounds
        round_ = rounds_done
        while True:
            critique = self._critique(proposal, quotes, existing_keys, existing_labels, content.language)
            self.runs.add_revision(run_id, "extraction" if round_ == 0 else "refinement", proposal, critique)
            round_ += 1
            report("critique", round_, limit, started)
            if critique.overall_passes or round_ >= limit:
                break
            refined, changes = self.methods.refine(proposal, critique, quotes, existing_labels, content.language)
            if not changes:
                break
            refined.notes = [*refined.notes, *[f"Refinement {round_}: {c}" for c in changes]]
            proposal = refined
        self._file_errors(run_id)
        if not critique.overall_passes:
            failing = [name for name, check in critique.checks.items() if not check.passes]
            self.runs.add_error(run_id, "critique", f"Self-critique still fails on {', '.join(failing)} after {round_} "
                                "round(s); review these points.")
        return self.runs.update(run_id, status="review", phase="review")

    def _critique(self, proposal: Proposal, quotes: list[Quote], existing_keys: set[str],
                  existing_labels: dict[str, str], content_language: str) -> Critique:
        rule_critique = critique_rules.check(proposal, quotes, existing_keys, existing_labels,
                                             self._language(content_language), content_language)
        model_critique = self.methods.critique(proposal, quotes)
        return critique_rules.merge_critiques(rule_critique, model_critique) if model_critique else rule_critique

    # -- phase 2 ----------------------------------------------------------------------------------------------
    def feedback(self, run_id: str, text: str) -> RevisionView:
        """Free-text feedback (or commands, offline) -> a new revision with the interpretation and what is unresolved."""
        run = self.runs.get(run_id)
        if run.status != "review":
            raise ExtractionError(f"This run is {run.status}; feedback is only taken during review.")
        text = (text or "").strip()
        if not text:
            raise ExtractionError("Write some feedback, or approve the proposal.")
        if len(text) > MAX_FEEDBACK_CHARS:
            raise ExtractionError(f"Feedback is limited to {MAX_FEEDBACK_CHARS} characters.")
        if run.review_rounds >= self.settings.extraction_review_rounds:
            self.runs.update(run_id, status="aborted", phase="review")
            self.runs.add_error(run_id, "review", f"Feedback round limit ({self.settings.extraction_review_rounds}) reached: "
                                "the run was aborted and kept for manual review.")
            raise ExtractionError("The feedback round limit is reached: the run is aborted and kept for manual review.")
        latest = self._latest(run_id)
        content = self._content(run.content_key)
        quotes = self.contents.quotes(content.key)
        catalogue = self._catalogue()
        existing_labels, existing_keys = catalogue.labels(), catalogue.keys
        outcome = self.methods.feedback(latest.proposal, text, quotes, catalogue.titles(), content.language)
        proposal = outcome.proposal
        proposal.relations = critique_rules.valid_relations(proposal, existing_keys)
        critique = self._critique(proposal, quotes, existing_keys, existing_labels, content.language)
        self._file_errors(run_id)
        number = self.runs.add_revision(run_id, "feedback", proposal, critique, text, outcome.interpretation, outcome.unresolved)
        self.runs.update(run_id, review_rounds=run.review_rounds + 1)
        return self.runs.revision(run_id, number)  # type: ignore[return-value]

    def _language(self, content_language: str | None) -> str:
        """The concepts' language: REGINTEL_CONCEPT_LANGUAGE, or with ``auto`` the language of their source."""
        return (content_language or "en") if self.language == "auto" else self.language

    def _check_curator(self, run: RunView, by: Identity | None) -> None:
        """A front end passes who acts: a curator (or admin) of the run's own tenant, checked here as well as by
        the page. ``None`` is an in-process caller with no user (the demo, the bench, the CLI, a resumed run)."""
        if by is None:
            return
        require_role(by, "approve")
        if run.tenant_id != by.tenant_id:
            raise Forbidden("This extraction run belongs to another tenant.")

    def abort(self, run_id: str, reason: str = "Aborted by the curator.", *, by: Identity | None = None) -> RunView:
        run = self.runs.get(run_id)
        self._check_curator(run, by)
        if run.status not in ("running", "review"):
            raise ExtractionError(f"This run is {run.status} and cannot be aborted.")
        self.runs.add_error(run_id, "review", reason)
        return self.runs.update(run_id, status="aborted")

    # -- phase 3 ----------------------------------------------------------------------------------------------
    def approve(self, run_id: str, *, by: Identity | None = None) -> RunView:
        """Commit the latest revision (one graph transaction), then write the notes. Twice is a no-op."""
        run = self.runs.get(run_id)
        self._check_curator(run, by)
        if run.status in ("committed", "notes_sync_pending"):
            return run
        if run.status not in ("review", "committing", "commit_pending"):
            raise ExtractionError(f"This run is {run.status}; only a run in review can be approved.")
        latest = self._latest(run_id)
        content = self._content(run.content_key)
        retry = run.status == "commit_pending"
        self.runs.update(run_id, status="committing" if not retry else "commit_pending", phase="commit")
        started = time.perf_counter()
        try:
            self.contents.publish(content.key)  # the content and its quotes reach the shared graph only now
            result = commit_proposal(self.store, self.writer, content, latest.proposal, self._language(content.language),
                                     retry=retry)
        except (GraphError, ValueError) as exc:
            if retry:  # still not confirmed: the worker (or the next approval) tries again
                self.runs.add_error(run_id, "commit", f"Commit retry failed: {exc}")
                raise ExtractionError(f"The commit is still pending (the graph did not take it): {exc}") from exc
            self.runs.update(run_id, status="review", phase="review")
            self.runs.add_error(run_id, "commit", str(exc))
            raise ExtractionError(f"The commit failed and nothing was written: {exc}") from exc
        try:
            missing = unconfirmed(self.store, content, result)  # read back what the transaction wrote
        except GraphError as exc:
            missing = [f"(read-back failed: {exc})"]
        if missing:
            self.runs.add_error(run_id, "commit", f"The graph did not confirm {len(missing)} item(s) of the commit "
                                f"({', '.join(missing[:5])}); it stays pending and is retried.")
            from regintel.extraction.commit_job import COMMIT_JOB

            self.jobs.enqueue(COMMIT_JOB, run_id, {"run_id": run_id})  # the worker retries until the graph confirms
            return self.runs.update(run_id, status="commit_pending", phase="commit", committed=result.to_dict())
        if result.already_processed and run.status != "committing" and not retry:
            self.runs.add_error(run_id, "commit", "The content was processed by another run meanwhile; nothing was written.")
            return self.runs.update(run_id, status="already_processed", phase="commit")
        self.runs.progress(run_id, "commit", 1, 1, (time.perf_counter() - started) * 1000)
        self.runs.update(run_id, status="committed", committed=result.to_dict())
        return self.export_notes(run_id)

    def export_notes(self, run_id: str) -> RunView:
        """Write (or rewrite) the notes of a committed run; a failure leaves it ``notes_sync_pending``."""
        run = self.runs.get(run_id)
        if run.status not in ("committed", "notes_sync_pending"):
            raise ExtractionError(f"This run is {run.status}; only committed runs have notes.")
        latest = self._latest(run_id)
        content = self._content(run.content_key)
        started = time.perf_counter()
        try:
            files = export_notes(self.store, self.settings.notes_path, run.committed.get("concepts", []), latest.proposal,
                                 self.contents.quotes(content.key), content.title, content.source_url,
                                 self._language(content.language))
        except (OSError, GraphError) as exc:
            self.runs.add_error(run_id, "notes", f"Notes not written ({exc.__class__.__name__}: {exc}); "
                                "run `python -m regintel export-notes` to repair.")
            return self.runs.update(run_id, status="notes_sync_pending", phase="notes")
        self.runs.progress(run_id, "notes", len(files), len(files), (time.perf_counter() - started) * 1000)
        return self.runs.update(run_id, status="committed", phase="notes", committed={**run.committed, "notes": files})

    def repair_notes(self) -> list[RunView]:
        """Every run whose notes failed, exported again (the ``export-notes`` command)."""
        return [self.export_notes(run.id) for run in self.runs.by_status("notes_sync_pending")]

    # -- helpers ----------------------------------------------------------------------------------------------
    # -- what the Review page and the CLI read (they never reach the repositories behind the workflow) ----------
    def list_runs(self, status: str | None = None, tenant_id: str | None = None) -> list[RunView]:
        """Runs, newest first; with ``tenant_id``, that tenant's only (a run without a tenant, from the CLI or the
        bench, is listed to no tenant: only the command line sees it)."""
        if status:
            return [r for r in self.runs.by_status(status) if tenant_id is None or r.tenant_id == tenant_id]
        return self.runs.runs(tenant_id)

    def run(self, run_id: str, tenant_id: str | None = None) -> RunView:
        """The run; with ``tenant_id``, another tenant's run reads as not found."""
        return self.runs.get(run_id, tenant_id)

    def revisions(self, run_id: str) -> list[RevisionView]:
        return self.runs.revisions(run_id)

    def save_content(self, draft: Any) -> ContentInfo:
        return self.contents.save(draft)

    def list_contents(self) -> list[dict]:
        return self.contents.contents()

    def content(self, key: str) -> ContentInfo | None:
        return self.contents.get(key)

    def quotes(self, key: str) -> list[Quote]:
        return self.contents.quotes(key)

    def _content(self, key: str) -> ContentInfo:
        content = self.contents.get(key)
        if content is None:
            raise ExtractionError("That content does not exist in the graph (create it first).")
        return content

    def _latest(self, run_id: str) -> RevisionView:
        latest = self.runs.revision(run_id)
        if latest is None:
            raise ExtractionError("This run has no proposal yet.")
        return latest

    def _catalogue(self) -> ConceptCatalogue:
        """The graph's concepts as they are now (vectors are only computed if a search needs them)."""
        return ConceptCatalogue.from_graph(self.store, self.embedder)

    def existing_titles(self) -> dict[str, str]:
        return self._catalogue().titles()

    def _reporter(self, run_id: str, progress: Progress | None) -> Callable:
        def report(phase: str, done: int, total: int, started: float | None = None) -> None:
            ms = (time.perf_counter() - started) * 1000 if started is not None else None
            self.runs.progress(run_id, phase, done, total, ms)
            self._file_errors(run_id)
            if progress is not None:
                try:
                    progress(phase, done, total)
                except Exception:  # a progress display must not stop the run
                    log.exception("progress callback failed")
        return report

    def _file_errors(self, run_id: str) -> None:
        """Errors of model calls (invalid output twice, provider failures) go into the run, step by step, and the
        calls' egress reports into its progress (types and counts, never values)."""
        for step, message in self.methods.drain_errors():
            self.runs.add_error(run_id, step, message)
        drain_egress = getattr(self.methods, "drain_egress", None)
        if drain_egress is not None:
            self.runs.add_egress(run_id, drain_egress())


WEAK_RELATIONS = ("RELATES_TO", "SIMILAR_TO")


def _without_reverse_duplicates(relations: list[Relation]) -> list[Relation]:
    """A -SPECIFIC_OF-> B and B -GENERALIZES-> A are one relation (the graph writes the reverse itself); a pair with
    a typed relation does not also get a weak one (RELATES_TO, SIMILAR_TO)."""
    kept: list[Relation] = []
    seen: set[tuple[str, str, str]] = set()
    strong_pairs: set[frozenset[str]] = set()
    for r in sorted(relations, key=lambda r: r.type in WEAK_RELATIONS):
        pair = frozenset((r.source, r.target))
        if (r.source, r.type, r.target) in seen or (r.target, REVERSE[r.type], r.source) in seen:
            continue
        if r.type in WEAK_RELATIONS and pair in strong_pairs:
            continue
        if r.type not in WEAK_RELATIONS:
            strong_pairs.add(pair)
        seen.add((r.source, r.type, r.target))
        kept.append(r)
    return kept
