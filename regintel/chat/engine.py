"""ComplianceEngine: sequences the steps of one chat turn (design.md, "One chat turn"); each step lives in its
own module and is tested there.

``stream_turn`` validates eagerly (bad input, a foreign conversation or a user over the rate limit raise a clear
error before anything is saved) and returns a :class:`TurnStream`: iterate it for the answer's text deltas
(``st.write_stream`` accepts it as is); its ``response`` is the ChatResponse once the stream is exhausted.
Side features (graph, enrichment queue, cache) never break the answer: their failures are logged and traced.
"""

from __future__ import annotations

import json
import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import timedelta
from functools import cached_property
from typing import Any, Callable, Iterator, Sequence

from sqlalchemy.exc import SQLAlchemyError

from regintel.chat import evidence as evidence_rules
from regintel.chat.cache import ResponseCache, cache_key
from regintel.chat.citation_numbers import MARKER_RE, CitationRenumbering, passage_name, resend_history
from regintel.chat.context import ArticleSiblings, ContextPassage, build_unified_context
from regintel.chat.context_decision import ContextDecision, decide_context
from regintel.chat.evidence import analyse_evidence, defining_ranks, out_of_domain_level, strong_evidence_level
from regintel.chat.grading import grade_abstention, grade_answer
from regintel.chat.guardrail_model import GuardrailClassifier
from regintel.chat.guardrails import (QueryClassification, classify_query, out_of_domain_when_unanswered,
                                      redact_personal_data)
from regintel.chat.part_similarity import part_aware
from regintel.chat.messages import FAILED, abstention_text, not_held_text, refusal_text
from regintel.chat.prompt import PromptAspects, build_messages
from regintel.chat.repository import ConversationRepository, Turn, since_hours
from regintel.chat.response import ABSTAIN, SECTION_NODE, ChatResponse, CitedSource
from regintel.chat.suggestions import suggest_questions
from regintel.chat.validation import clean_question
from regintel.chat.verification import authority_score, verify_claims
from regintel.concepts.capture import ConceptOutcome, handle_concept_metadata
from regintel.concepts.lexicon import ConceptLexicon
from regintel.config import Settings
from regintel.egress.sanitiser import redact, sanitise
from regintel.errors import RateLimited, StoreError
from regintel.tenancy import TenantDirectory
from regintel.llm.base import ChatMessage
from regintel.llm.chunks import ErrorChunk, TextChunk, ToolChunk
from regintel.graph import queries
from regintel.graph.seed import section_key
from regintel.llm.offline_compose import asks_one_list, carried_terms, plan_question
from regintel.llm.router import LlmRouter
from regintel.llm.tools import CAPTURE_CONCEPTS
from regintel.retrieval.acronyms import spelled_out
from regintel.retrieval.act_overview import (application_chunk_ids, asks_about_the_act, is_opening_unit,
                                             opening_chunk_ids)
from regintel.retrieval.cited_provisions import (asks_what_it_says, cited_provisions, holds_provision, paragraph_cited,
                                                 provision_chunk_ids)
from regintel.retrieval.compound_search import PART_HITS, searchable_parts, with_part_hits
from regintel.retrieval.crosslingual import detect_question_language, load_glossary
from regintel.retrieval.fusion import reciprocal_rank_fusion
from regintel.retrieval.instruments import Coverage, CorpusInstruments, corpus_instruments, without_held_act_names
from regintel.retrieval.listed_articles import (LISTED_MAX_ARTICLES, listed_article_chunk_ids, listed_noun,
                                                listed_noun_stems, one_word_equivalents, read_as_question)
from regintel.retrieval.national_rules import with_national_law
from regintel.retrieval.related_documents import related_documents
from regintel.retrieval.scope_search import (SCOPE_HITS, asks_applicability, asks_when_it_applies, is_scope_heading,
                                             led_by_scope, scope_chunk_ids, with_scope_hits)
from regintel.retrieval.search_index import SearchIndex
from regintel.retrieval.sources import Source
from regintel.store import Database
from regintel.store.models import Tenant
from regintel.text.analysis import detect_language, tokenize
from regintel.text.asked_terms import asked_term
from regintel.text.question_kinds import content_stems
from regintel.text.question_parts import comparison_sides

log = logging.getLogger(__name__)


NO_ANSWER_AFTER_TOOLS = "The language model only called its tools and wrote no answer (REGINTEL_LLM_TOOL_ROUNDS)."
MIN_ANSWER_CHARS = 40  # a reply shorter than this and citing nothing ("Let me note the concepts.") is no answer
TOPIC_CHAIN = 3  # a follow-up is searched with at most this many earlier questions of the topic it goes on with
# an applicability question this much of whose words a passage other than the act's scope holds asks about that
# provision, not the act as a whole (the offline composer's PROVISION_COVERAGE, on the evidence's word measure)
PROVISION_SUPPORT = 0.5


def is_answer(text: str) -> bool:
    """Whether a model reply so far answers (so its tool calls need no second round): it cites a source or is more
    than a preamble."""
    text = text.strip()
    return bool(MARKER_RE.search(text)) or len(text) >= MIN_ANSWER_CHARS


CUT = "\n\n… (answer cut here: it passed {limit:,} characters, REGINTEL_ANSWER_MAX_CHARS; {dropped:,} more were not kept)"


@dataclass(frozen=True)
class ServedDocument:
    """What the engine looks up about a served document: the titles and languages of its passages."""

    titles: frozenset[str]
    languages: frozenset[str]


class TraceRecorder:
    """Every step of a turn with its duration (ms) and decision, in order: the ``rag_traces.steps`` JSON."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.steps: list[dict[str, Any]] = []

    @contextmanager
    def step(self, name: str) -> Iterator[dict[str, Any]]:
        record: dict[str, Any] = {"step": name}
        started = time.perf_counter()
        try:
            yield record
        finally:
            record["ms"] = round((time.perf_counter() - started) * 1000, 2)
            self.steps.append(record)

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 1)

    def as_dict(self) -> dict[str, Any]:
        return {"steps": self.steps, "total_ms": self.elapsed_ms()}


class TurnStream:
    """Iterable of text deltas; ``response`` holds the ChatResponse after the last delta."""

    def __init__(self, items: Iterator[str | ChatResponse]) -> None:
        self._items = items
        self.response: ChatResponse | None = None
        self.first_delta_ms: float | None = None
        self._started = time.perf_counter()

    def __iter__(self) -> Iterator[str]:
        for item in self._items:
            if isinstance(item, ChatResponse):
                self.response = item
            else:
                if self.first_delta_ms is None:
                    self.first_delta_ms = (time.perf_counter() - self._started) * 1000
                yield item

    def consume(self) -> ChatResponse:
        for _ in self:
            pass
        assert self.response is not None
        return self.response


@dataclass
class TurnInput:
    tenant: Tenant
    user_id: str
    conversation_id: str
    question: str  # as the engine reads it: acronyms the corpus never writes followed by their full name
    history: list[Turn] = field(default_factory=list)
    asked: str = ""  # as the analyst wrote it: what the conversation keeps and shows

    @property
    def written(self) -> str:
        return self.asked or self.question


class ComplianceEngine:
    def __init__(self, settings: Settings, db: Database, search_index: SearchIndex, router: LlmRouter,
                 graph_store: Any = None, queue: Any = None, lexicon: ConceptLexicon | None = None,
                 conversations: ConversationRepository | None = None, thresholds: Any = None) -> None:
        self.settings = settings
        # evidence thresholds calibrated on the served corpus (issue 16 item 3); None: the fallback constants
        self.thresholds = thresholds or evidence_rules.FALLBACK_THRESHOLDS
        self.db = db
        self.repo = conversations or ConversationRepository(db)
        self.search_index = search_index
        self.router = router
        self.graph_store = graph_store
        self.queue = queue
        self.lexicon = lexicon or ConceptLexicon.from_file()
        self.guardrails = GuardrailClassifier(search_index.embedder, settings.data_dir / "guardrails")  # lazy
        self.cache = ResponseCache(db, timedelta(seconds=settings.response_cache_ttl_seconds))
        self.corpus_version = search_index.passages_version  # computed once per index, shared with its ranker
        self._known_labels = sorted({label for c in self.lexicon.concepts() for label in [c.prefLabel, *c.altLabels]})
        try:
            self.cache.invalidate_other_versions(self.corpus_version)
        except Exception as exc:  # the cache is a side feature
            log.warning("response cache cleanup failed: %s", exc)

    # -- public API -------------------------------------------------------------------------------------------
    def stream_turn(self, tenant_id: str, user_id: str, conversation_id: str, question: object) -> TurnStream:
        turn = self._validate(tenant_id, user_id, conversation_id, question)
        return TurnStream(self._run(turn))

    def ask(self, tenant_id: str, user_id: str, conversation_id: str, question: object) -> ChatResponse:
        return self.stream_turn(tenant_id, user_id, conversation_id, question).consume()

    def settings_fingerprint(self) -> dict[str, Any]:
        s = self.settings
        thresholds = [*self.thresholds.fingerprint(), evidence_rules.DIRECT_MEAN_AT]  # calibrated levels (issue 16)
        return {"llm": self.router.describe(), "k": s.chat_top_k, "fusion": [s.fusion, s.dense_weight, s.bm25_weight,
                s.candidates, s.dense_feedback, s.document_prior], "limit": s.chat_context_limit, "evidence": thresholds,
                "currency": self._currency_fingerprint()}

    def _currency_fingerprint(self) -> list[list[Any]]:
        """The sources' currency (issue 23): deprecating a document changes the grade, so cached answers that cited
        it must not be served."""
        currency = self.search_index.currency() if hasattr(self.search_index, "currency") else {}
        return sorted([doc, note.deprecated, note.valid_until, note.superseded_by, note.version]
                      for doc, note in currency.items() if note.deprecated or note.valid_until or note.superseded_by)

    # -- step 1: validation -----------------------------------------------------------------------------------
    def _validate(self, tenant_id: str, user_id: str, conversation_id: str, question: object) -> TurnInput:
        cleaned = clean_question(question)
        conversation = self.repo.conversation(tenant_id, conversation_id)
        if conversation.user_id != user_id:
            self.repo.user_in_tenant(tenant_id, user_id)  # another analyst of the tenant may continue it
        limit = self.settings.chat_rate_limit_per_hour
        if limit and self.repo.questions_since(user_id, since_hours(1)) >= limit:
            raise RateLimited(f"You have asked {limit} questions in the last hour, the limit per user. "
                              "Please wait a few minutes before asking again.")
        return TurnInput(self.repo.tenant(tenant_id), user_id, conversation_id, self._read_acronyms(cleaned),
                         self.repo.completed_turns(tenant_id, conversation_id), asked=cleaned)

    def _read_acronyms(self, question: str) -> str:
        """The question with the acronyms the corpus never writes spelled out ("DPIA (data protection impact
        assessment)", :mod:`regintel.retrieval.acronyms`). A side step: when it fails, the question as written."""
        language = self._parts_language(question)
        if language is None or not any(c.isupper() for c in question):
            return question
        try:
            languages = self.search_index.bm25.languages or ["en"]
            return spelled_out(question, language, load_glossary(),
                               lambda word: any(self.search_index.writes(word, lang) for lang in languages),
                               self._corpus_instruments().catalog.names)
        except Exception as exc:  # noqa: BLE001 - the question as written still gets its answer
            log.warning("acronyms of the question not read: %s", exc)
            return question

    # -- the turn ---------------------------------------------------------------------------------------------
    def _run(self, turn: TurnInput) -> Iterator[str | ChatResponse]:
        trace = TraceRecorder()
        trace.steps.append({"step": "validation", "ms": 0.0, "question_chars": len(turn.question),
                            "previous_turns": len(turn.history)})
        language = detect_language(turn.question)
        key = None
        if not turn.history and self.settings.response_cache_ttl_seconds > 0:
            with trace.step("cache_lookup") as record:
                key = cache_key(turn.question, turn.tenant.id, self.corpus_version, self.settings_fingerprint())
                cached = self._cache_get(key, turn.tenant.id)
                record["hit"] = cached is not None
            if cached is not None:
                yield from self._replay(cached, turn, trace)
                return

        decision = self._decide_context(turn, trace)
        fresh: list[Source] = []
        parts_language: str | None = None  # read for a fresh retrieval: its parts are searched and graded
        coverage = None if decision.reuse_previous else self._coverage(turn.question, trace)
        if not decision.reuse_previous:
            search_text = self._search_text(turn, decision)
            # a follow-up on the term the previous turn defined asks something its definition does not say
            behind = bool(decision.subject)
            fresh = self._retrieve(search_text, trace, definitions_behind=behind)
            filters = None
            named = self._named_titles(coverage)
            documents = self._documents_titled(named) if named else []
            defined_in_the_first = bool(named and asked_term(search_text) and defining_ranks(search_text, fresh))
            besides_acts = self._besides_named_acts(search_text, coverage, self._languages_of(documents),
                                                    defined_in_the_first)
            if named and fresh and (besides_acts or fresh[0].title not in named):
                # "Does the GDPR apply to ...?" led elsewhere; "Quelles sont les sanctions du RGPD ?" led by the act's
                # opening article, close in meaning to the act's name (Article 84 "Sanctions" third)
                in_named = self._retrieve(besides_acts or search_text, trace, {"document_id": documents}, behind)
                if in_named and besides_acts:
                    in_named = self._graded_by_whole_question(search_text, in_named)
                    if fresh[0].title in named:  # the whole question led into the act already: both readings vote
                        in_named = fused_by_rank([s for s in fresh if s.title in named], in_named,
                                                 self.settings.chat_top_k)
                if in_named:
                    fresh, filters = in_named, {"document_id": documents}
            conversation = self._conversation_documents(turn) if decision.continues and not named else []
            if conversation and any(s.document_id not in conversation for s in fresh):
                # "If it does, do we need to have someone physically based in the EU?" after a question on the GDPR's
                # reach led to the VAT Implementing Regulation's establishment rules: a follow-up naming no act
                # stays with the acts the previous answer came from (and those citing them): all its passages do, not
                # only the first (a passage of another act among them reaches the model's context)
                in_conversation = self._retrieve(search_text, trace, {"document_id": conversation}, behind)
                if in_conversation and fresh[0].document_id in conversation:
                    # led by those acts already: both rankings vote, as for a named act ("Wann ist sie erforderlich?"
                    # after a question on the impact assessment: Article 35 first searched whole, Article 11
                    # ("Processing which does not require identification") first among the GDPR's passages alone)
                    in_conversation = fused_by_rank([s for s in fresh if s.document_id in conversation],
                                                    in_conversation, self.settings.chat_top_k)
                if in_conversation:
                    fresh, filters = in_conversation, {"document_id": conversation}
            parts_language = self._parts_language(turn.question)
            fresh = self._with_part_hits(turn.question, parts_language, fresh, trace, filters)
            fresh = self._with_act_unit_hits(turn.question, coverage, named, fresh, trace)
            fresh = self._with_cited_provision_hits(turn.question, coverage, named, fresh, trace)
            fresh = self._with_listed_article_hits(turn.question, fresh, trace)

        with trace.step("guardrails") as record:
            best = max((s.similarity for s in fresh), default=None)
            ood_level = out_of_domain_level(turn.question, fresh, self.thresholds)  # calibrated (issue 16 item 3)
            classification = classify_query(turn.question, best, ood_level, self.guardrails,
                                            strong_evidence_level(turn.question, fresh, self.thresholds))
            classification = self._in_the_previous_turns_domain(turn, decision, classification)
            record.update(query_type=classification.query_type, allowed=classification.allowed,
                          matched=classification.matched[:3], signal=classification.method,
                          refused_probability=classification.refused_probability)
        if not classification.allowed:
            yield from self._refuse(turn, classification, fresh or self._retrieve(turn.question, trace), language, trace)
            return

        if coverage is not None and not coverage.held:  # a Member State's own figure: its national law
            coverage = with_national_law(coverage, turn.question, self._held_jurisdictions(), language,
                                         [s.text for s in fresh])
        if coverage is not None and coverage.uncovered:  # names only acts the corpus does not hold
            yield from self._not_held(turn, coverage, fresh, classification.query_type, decision, language, trace, key)
            return

        with trace.step("unified_context") as record:
            passages = self._unified_context(turn, fresh)
            record.update(passages=len(passages), origins={o: sum(p.origin == o for p in passages)
                                                           for o in ("previous", "history", "current")},
                          widened=sum(bool(p.widened_from) for p in passages))  # parent-document widening
        with trace.step("evidence") as record:
            # the grade reads the passages the model is given: the fresh hits that made it into the context
            seen = [p.source for p in passages if p.origin == "current" and not p.widened_from]
            graded_sources = seen if not decision.reuse_previous else [p.source for p in passages if p.origin == "previous"]
            if not decision.reuse_previous:
                graded_sources = self._graded_by_parts(turn.question, parts_language, graded_sources)
            # a follow-up on the term defined before ("Who must we tell about it?") is graded as asked about it
            graded_question = decision.restated or (f"{turn.question} {decision.subject}" if decision.subject
                                                    else turn.question)
            analysis = analyse_evidence(graded_question, graded_sources, classification.query_type,
                                        follow_up=decision.reuse_previous, thresholds=self.thresholds,
                                        on_corpus=self._names_held_act(coverage, graded_sources)
                                        or self._continues_answered_topic(turn, decision),
                                        act_led=not decision.reuse_previous
                                        and self._asks_about_the_act(turn.question, coverage, graded_sources),
                                        ranker_confident_at=self.search_index.ranker_confident_at,
                                        ranker_doubtful_below=self.search_index.ranker_doubtful_below)
            if analysis.sufficient and coverage is not None and coverage.missing and coverage.via_related:
                analysis.concerns.append("RELATED_ACT")  # asked about the CSRD, answered from the ESRS
            record.update(analysis.to_dict())
            # nothing found, and the question reads as outside regulation: say so rather than "no evidence"
            refusal = None if analysis.sufficient or decision.reuse_previous else out_of_domain_when_unanswered(
                classification, analysis.reason, self._unanswered_out_of_domain_at(), turn.question)
            if refusal is not None:
                record.update(refused_as=refusal.query_type)
        if refusal is not None:
            yield from self._refuse(turn, refusal, fresh or [p.source for p in passages], language, trace)
            return
        if not analysis.sufficient:
            yield from self._abstain(turn, analysis, passages, fresh, classification.query_type, decision, language, trace, key)
            return
        yield from self._answer(turn, passages, analysis, classification.query_type, decision, language, trace, key)

    # -- step 3: context decision and retrieval ---------------------------------------------------------------
    def _decide_context(self, turn: TurnInput, trace: TraceRecorder) -> ContextDecision:
        with trace.step("context_decision") as record:
            previous = turn.history[-1] if turn.history else None
            try:
                decision = decide_context(turn.question, previous.question if previous else None,
                                          previous.answer if previous else "", self.search_index.embedder.embed,
                                          self._known_labels)
            except Exception as exc:  # embedding failure: fall back to a fresh retrieval
                log.warning("context decision failed: %s", exc)
                decision = ContextDecision(False, f"decision failed ({exc.__class__.__name__}): fresh retrieval")
            if decision.reuse_previous and (previous is None or not previous.passages):
                decision = ContextDecision(False, "previous turn has no passages: fresh retrieval")
            record.update(reuse_previous=decision.reuse_previous, reason=decision.reason, similarity=decision.similarity)
        return decision

    @staticmethod
    def _in_the_previous_turns_domain(turn: TurnInput, decision: ContextDecision,
                                      classification: QueryClassification) -> QueryClassification:
        """A clarification of the previous answer ("Give me an example", "Go on", "Donnez un exemple") reuses its
        passages and has no domain of its own: the classifier's out-of-domain verdict on its few words does not stand
        when the previous turn was answered, and it takes that turn's type. (A rule's refusal, personal data or a
        prediction asked for, stands; so does the verdict on a short message that is no clarification, "What time is
        it in Tokyo?", although it reuses the previous passages.)"""
        previous = turn.history[-1].response if turn.history else None
        if not (decision.clarification and classification.query_type == "OUT_OF_DOMAIN"
                and classification.method not in ("pii", "rule") and previous is not None
                and previous.response_mode != ABSTAIN and previous.query_type):
            return classification
        return QueryClassification(previous.query_type, True, "a clarification of the previous answer",
                                   classification.matched, "previous turn", classification.refused_probability)

    def _retrieve(self, question: str, trace: TraceRecorder, filters: dict[str, list[str]] | None = None,
                  definitions_behind: bool = False) -> list[Source]:
        with trace.step("retrieval") as record:
            result = self.search_index.search(question, k=self.settings.chat_top_k, filters=filters,
                                              definitions_behind=definitions_behind)
            if filters:
                record["filters"] = filters
            record["timings_ms"] = {k: round(v, 2) for k, v in result.timings_ms.items()}
            record["candidates"] = result.candidates
            record["chunks"] = [{"chunk_id": s.chunk_id, "similarity": s.similarity, "fused_score": s.fused_score,
                                 "dense_rank": s.dense_rank, "dense_score": s.dense_score, "bm25_rank": s.bm25_rank,
                                 "bm25_score": s.bm25_score} for s in result.sources]
        return result.sources

    @staticmethod
    def _parts_language(question: str) -> str | None:
        """The question's language as the legal term list reads it, for splitting it into parts (None when the list
        cannot be read: the side steps that split it are then skipped)."""
        try:
            return detect_question_language(question, load_glossary())
        except Exception as exc:  # noqa: BLE001 - the part steps are side steps
            log.warning("question language for its parts unavailable: %s", exc)
            return None

    def _with_part_hits(self, question: str, language: str | None, fresh: list[Source], trace: TraceRecorder,
                        filters: dict[str, list[str]] | None) -> list[Source]:
        """A compound question ("what may be deducted, and under which conditions?"): each part is searched too and
        its best unit joins the hits (:mod:`regintel.retrieval.compound_search`). A side search: when it fails, the
        whole question's hits stand."""
        if language is None:
            return fresh
        try:
            parts = searchable_parts(question, language)
            if not parts or not fresh:
                return fresh
            with trace.step("part_retrieval") as record:
                hits = [self.search_index.search(part, k=PART_HITS, filters=filters).sources for part in parts]
                merged = with_part_hits(fresh, hits, self._unit_of, self.settings.chat_top_k,
                                        sides=bool(comparison_sides(question)))
                before = {s.chunk_id for s in fresh}
                record.update(parts=len(parts), added=[s.chunk_id for s in merged if s.chunk_id not in before],
                              leading=[s.chunk_id for s in merged[:2]])
            return merged
        except Exception as exc:  # noqa: BLE001 - a failing side search never breaks the chat answer
            log.warning("part retrieval failed: %s", exc)
            return fresh

    def _with_act_unit_hits(self, question: str, coverage: Coverage | None, named: set[str], fresh: list[Source],
                            trace: TraceRecorder) -> list[Source]:
        """A question about a named act as a whole: "Does the GDPR apply to ...?" is led by the best passage of each
        of the act's scope units (:mod:`regintel.retrieval.scope_search`), "What is DORA?" by the passages of its
        opening unit and "When does DORA apply?" by those of its entry into force and application
        (:mod:`regintel.retrieval.act_overview`). A side search: when it fails, the hits stand."""
        if not named or not fresh:
            return fresh
        from_when = asks_when_it_applies(question)  # (then no applicability question: asks_applicability says so too)
        applicability = not from_when and asks_applicability(question)
        if not applicability and not from_when and not asks_about_the_act(question):
            return fresh
        try:
            if applicability:
                units = self._act_unit_chunks(("scope", frozenset(named)),
                                              lambda: scope_chunk_ids(self.search_index.chunks.values(), named))
            elif from_when:
                units = self._act_unit_chunks(("application", frozenset(named)),
                                              lambda: application_chunk_ids(self.search_index.chunks.values(), named))
            else:
                labels = tuple(m.label for m in coverage.held) if coverage is not None else ()
                units = self._act_unit_chunks(("opening", frozenset(named), labels), lambda: opening_chunk_ids(
                    self.search_index.chunks.values(), named, labels))
            if not units:
                return fresh
            step = "scope_retrieval" if applicability else "application_retrieval" if from_when else "opening_retrieval"
            with trace.step(step) as record:
                if applicability:
                    hits = self.search_index.search(question, k=SCOPE_HITS, filters={"chunk_id": units}).sources
                    merged = with_scope_hits(fresh, hits, self._unit_of, self.settings.chat_top_k)
                else:
                    merged = self._led_by(question, units, fresh)
                record.update({"scope_passages" if applicability else "opening_passages": len(units),
                               "leading": [s.chunk_id for s in merged[:2]]})
            return merged
        except Exception as exc:  # noqa: BLE001 - a failing side search never breaks the chat answer
            log.warning("act unit retrieval failed: %s", exc)
            return fresh

    def _with_cited_provision_hits(self, question: str, coverage: Coverage | None, named: set[str],
                                   fresh: list[Source], trace: TraceRecorder) -> list[Source]:
        """A question citing a provision ("What does Article 9 of the VAT Directive say?") is led by that
        provision's passages, in the act it names, else in the first of retrieval's documents holding it
        (:mod:`regintel.retrieval.cited_provisions`). Not when it cites an act the corpus does not hold ("Article 34
        of Directive 2013/34/EU"). A side search: when it fails, the hits stand."""
        provisions = cited_provisions(question)
        if not provisions or not fresh or (coverage is not None and coverage.missing):
            return fresh
        try:
            documents = self._documents_titled(named) if named else list(dict.fromkeys(s.document_id for s in fresh))
            units = provision_chunk_ids(self.search_index.chunks.values(), provisions, documents,
                                        paragraph_cited(question))
            if not units:
                return fresh
            with trace.step("cited_provision_retrieval") as record:
                merged = self._led_by(question, units, fresh)
                record.update(provisions=provisions, leading=[s.chunk_id for s in merged[:len(units)]])
            return merged
        except Exception as exc:  # noqa: BLE001 - a failing side search never breaks the chat answer
            log.warning("cited provision retrieval failed: %s", exc)
            return fresh

    def _with_listed_article_hits(self, question: str, fresh: list[Source], trace: TraceRecorder) -> list[Source]:
        """A list question asking for a noun in general ("What rights does the data subject have?") is led by the
        articles of the leading act whose headings open with that noun ("Right of access ...", "Right to erasure",
        ...: :mod:`regintel.retrieval.listed_articles`), the ``LISTED_MAX_ARTICLES`` closest to the question. Asked in
        another language than the act's ("Quels sont les droits de la personne concernée ?"), the noun it lists is
        carried into the act's headings' words by the term list first: retrieval alone found three of the GDPR's
        rights for the French wording. A side search: when it fails, the hits stand."""
        if not fresh:
            return fresh
        try:
            plan = plan_question(question)
            language = fresh[0].language
            if not asks_one_list(plan):
                return fresh
            asked = listed_noun_stems(question, plan.language)
            document = fresh[0].document_id
            if asked and plan.language != language:
                # only the noun listed is carried: the question's other words head other articles ("Was muss ein
                # Auftragsverarbeitungsvertrag enthalten?" carried "processing", which heads Articles 85 to 91)
                asked = self._carried_into_headings(listed_noun(question), plan.language, document, language)
            if not asked:
                return fresh
            units = self._act_unit_chunks(("listed", document, frozenset(asked)), lambda: listed_article_chunk_ids(
                self.search_index.chunks.values(), document, asked))
            if not units:
                return fresh
            with trace.step("listed_article_retrieval") as record:
                # ("List the rights of the data subject" is ordered as the question it stands for: "list" is no word
                # of any of them)
                hits = self.search_index.search(read_as_question(question), k=LISTED_MAX_ARTICLES,
                                                filters={"chunk_id": units}).sources
                listed = {s.chunk_id for s in hits}
                merged = (hits + [s for s in fresh if s.chunk_id not in listed])[:self.settings.chat_top_k]
                record.update(articles=len(units), leading=[s.chunk_id for s in hits])
            return merged
        except Exception as exc:  # noqa: BLE001 - a failing side search never breaks the chat answer
            log.warning("listed article retrieval failed: %s", exc)
            return fresh

    def _led_by(self, question: str, chunk_ids: list[str], fresh: list[Source]) -> list[Source]:
        """The hits led by the passages ``chunk_ids`` in that (reading) order, scored for the question; the other
        hits follow, the last ones making room."""
        hits = self.search_index.search(question, k=len(chunk_ids), filters={"chunk_id": chunk_ids}).sources
        order = {chunk_id: n for n, chunk_id in enumerate(chunk_ids)}
        leading = sorted(hits, key=lambda s: order.get(s.chunk_id, len(order)))
        return (leading + [s for s in fresh if s.chunk_id not in order])[:self.settings.chat_top_k]

    def _asks_about_the_act(self, question: str, coverage: Coverage | None, sources: Sequence[Source]) -> bool:
        """Whether an act the question names is asked about as a whole and its scope or opening article leads the
        passages: "Which financial entities are covered by DORA?" (its scope), "What is DORA?" (its subject matter);
        or a provision it cites, asked what it says, leads them ("What does E1-6 require?").
        An applicability question is not when another passage holds most of its words: it then asks about that
        provision ("Is a bank covered by DORA's register of information?")."""
        if not sources:
            return False
        if asks_what_it_says(question):  # "What does E1-6 require?", led by that requirement
            return any(holds_provision(sources[0].ref, provision) for provision in cited_provisions(question))
        if not self._named_titles(coverage):
            return False
        if asks_about_the_act(question):
            return is_opening_unit(sources[0].heading or sources[0].ref, sources[0].ref)
        if not led_by_scope(question, sources):
            return False
        return not any(evidence_rules.lexical_support(question, s) >= PROVISION_SUPPORT
                       for s in sources if not is_scope_heading(s.heading or s.ref))

    def _carried_into_headings(self, noun: str, language: str, document: str, act_language: str) -> set[str]:
        """The words (stems) the term list carries the listed ``noun`` into, among ``document``'s headings' words in
        its language: its one-word equivalents when it has some (:func:`one_word_equivalents`), else every word of
        its wordings."""
        if not noun:
            return set()
        known = set(self._act_unit_chunks(("heading words", document), lambda: sorted(
            {stem for chunk in self.search_index.chunks.values() if chunk.document_id == document and chunk.heading
             for stem in tokenize(chunk.heading, act_language)})))
        glossary = load_glossary()
        single = {stem for word in one_word_equivalents(noun, language, act_language, glossary)
                  for stem in tokenize(word, act_language) if stem in known}
        if single:
            return single
        return {stem for stem in carried_terms(noun, language, act_language, glossary, known)
                if not stem.startswith("~")}

    def _act_unit_chunks(self, key: tuple, select: Callable[[], list[str]]) -> list[str]:
        """The passages of an act's scope, opening or listed units, or the words of its headings (``select``), cached
        per index under ``key``."""
        chunks = self.search_index.chunks
        if getattr(self, "_act_units_for", None) is not chunks:
            self._act_units_cache: dict[tuple, list[str]] = {}
            self._act_units_for = chunks
        if key not in self._act_units_cache:
            self._act_units_cache[key] = select()
        return self._act_units_cache[key]

    def _graded_by_parts(self, question: str, language: str | None, sources: list[Source]) -> list[Source]:
        """The passages as the evidence grade reads them for a question of several parts
        (:mod:`regintel.chat.part_similarity`); a side computation: when it fails, the whole question's cosines."""
        if language is None:
            return sources
        try:
            return part_aware(question, language, sources, self.search_index.embedder.embed,
                              lambda chunk_ids: self.search_index.stored_vectors(chunk_ids, language))
        except Exception as exc:  # noqa: BLE001 - the grade falls back on the whole question's similarities
            log.warning("part similarity failed: %s", exc)
            return sources

    def _unit_of(self, source: Source) -> str:
        """The article or section a passage belongs to (its parts and its definitions share it)."""
        chunk = self.search_index.chunks.get(source.chunk_id)
        return chunk.parent_id if chunk is not None else f"{source.document_id}|{source.ref}"

    # -- which acts the question names, against those the corpus holds (regintel/retrieval/instruments.py) ---------
    def _coverage(self, question: str, trace: TraceRecorder) -> Coverage | None:
        with trace.step("coverage") as record:
            try:
                coverage = self._corpus_instruments().coverage(question)
            except Exception as exc:  # a side check: without it the evidence rules still decide
                log.warning("instrument coverage failed: %s", exc)
                record["error"] = exc.__class__.__name__
                return None
            record.update(named=[m.key for m in coverage.named], missing=[m.key for m in coverage.missing],
                          uncovered=coverage.uncovered)
        return coverage

    @staticmethod
    def _search_text(turn: TurnInput, decision: ContextDecision) -> str:
        """What retrieval searches: the question, with the previous one when it continues it. The question counts
        twice: it is what is asked, the previous one says what about; searched with equal weight, a follow-up on
        another provision of the same topic ("Apart from the regulator, can the people affected sue us?" after a
        question on fines) found the previous question's article first. When the previous question went on from its
        own predecessor, that one is searched too (:func:`topic_questions`): "What if the processor discovers it?"
        after "When must it be notified?" is about the personal data breach the conversation opened with."""
        if decision.restated:  # "And a processor?" after "What is a controller?": "What is a processor?"
            return decision.restated
        if decision.subject:
            return "\n".join([turn.question, turn.question, decision.subject])
        if decision.continues and turn.history:
            return "\n".join([turn.question, turn.question, *topic_questions(turn.history)])
        return turn.question

    @staticmethod
    def _continues_answered_topic(turn: TurnInput, decision: ContextDecision) -> bool:
        """A follow-up of a question the corpus answered is on the corpus, like a reused-context follow-up; not one
        asking what another term means ("And anonymisation?" after pseudonymisation: the corpus may define none)."""
        if not (decision.continues and turn.history) or decision.restated:
            return False
        previous = turn.history[-1].response
        return previous is None or previous.response_mode != ABSTAIN

    def _named_titles(self, coverage: Coverage | None) -> set[str]:
        """The titles of the documents holding the acts the question names ("under the GDPR", "nach der DSGVO"),
        when it names no act the corpus lacks (then the question is not only about what the corpus holds)."""
        if coverage is None or not coverage.held or coverage.missing:
            return set()
        return self._corpus_instruments().titles_holding(coverage.held)

    @staticmethod
    def _besides_named_acts(text: str, coverage: Coverage | None, languages: set[str],
                            defined_in_the_first: bool = False) -> str | None:
        """What a question asks about the held acts it names, searched within them (written in ``languages``): ``text``
        without their names (:func:`without_held_act_names`), when it is written in another language than theirs. Across
        languages the act's name is what the question shares best with the act's opening article ("Quelles sont les
        sanctions du RGPD ?": "règlement général sur la protection des données" and "This Regulation lays down rules
        relating to the protection of natural persons"), its other words carried less well. None when it names no held
        act, is written in an act's own language, asks about an act as a whole ("What is DORA?") or from when one
        applies (its application units lead: :mod:`regintel.retrieval.scope_search`), asks what a term means that a
        passage of the first search defines (``defined_in_the_first``: its defining passage leads by the term, and the
        name says where to read it: "Que signifie « chaîne de valeur » dans les ESRS ?" searched without "ESRS" scored
        its definition lower, graded QUALIFIED instead of DIRECT), or says nothing else. A term the first passages do
        not define is searched without the name: "Was ist ein Informationsregister nach DORA?" (DORA defines no register
        of information; Article 28 keeps one) was led by DORA's Article 1, close to the name."""
        if coverage is None or not coverage.held or not languages or asks_about_the_act(text) \
                or asks_when_it_applies(text) or (defined_in_the_first and asked_term(text)):
            return None
        language = detect_question_language(text, load_glossary())
        if language in languages:
            return None
        rest = without_held_act_names(text, coverage)
        if rest == text or not content_stems(rest, language):
            return None
        return rest

    def _graded_by_whole_question(self, question: str, sources: list[Source]) -> list[Source]:
        """Passages found without the act's name, each graded by its closeness to that reading or to the whole
        question, whichever is closer: the name was taken out to find them, not to judge them (searched without it,
        cross-language answers with the same citations went from DIRECT to QUALIFIED, session 91). A side step: when
        it fails, the passages stand as found."""
        try:
            whole = self.search_index.similarities(question, [s.chunk_id for s in sources])
        except Exception as exc:  # noqa: BLE001 - the grade then reads the act-name-free cosines
            log.warning("whole-question similarities unavailable: %s", exc)
            return sources
        return [replace(s, similarity=max(s.similarity, whole.get(s.chunk_id, 0.0))) for s in sources]

    def _languages_of(self, documents: Sequence[str]) -> set[str]:
        """The languages the passages of ``documents`` are written in."""
        served = self._served_documents
        return set().union(*(served[d].languages for d in documents if d in served))

    def _conversation_documents(self, turn: TurnInput) -> list[str]:
        """The documents the previous answer quoted, with the documents related to them (one cites the other's act
        number: the VAT Directive and its Implementing Regulation); none when it quoted nothing."""
        if not turn.history:
            return []
        quoted = {p.source.document_id for p in turn.history[-1].used_passages}
        if not quoted:
            return []
        related = self._related_documents
        return sorted(quoted.union(*(related.get(document, set()) for document in quoted)))

    @cached_property
    def _related_documents(self) -> dict[str, set[str]]:
        """Document id -> related documents over the whole served corpus (an engine serves one index version), read
        at the first follow-up that needs it."""
        return related_documents((c.document_id, c.source_url, c.text) for c in self.search_index.chunks.values())

    def _documents_titled(self, titles: set[str]) -> list[str]:
        """The ids of the served documents titled ``titles``."""
        return sorted(d for d, facts in self._served_documents.items() if facts.titles & titles)

    @cached_property
    def _served_documents(self) -> dict[str, ServedDocument]:
        """Document id -> its titles and languages over the served corpus, read once (an engine serves one index
        version): a turn naming an act looked both up by scanning every chunk."""
        titles: dict[str, set[str]] = {}
        languages: dict[str, set[str]] = {}
        for chunk in self.search_index.chunks.values():
            titles.setdefault(chunk.document_id, set()).add(chunk.title)
            if chunk.language:
                languages.setdefault(chunk.document_id, set()).add(chunk.language)
        return {d: ServedDocument(frozenset(t), frozenset(languages.get(d, ()))) for d, t in titles.items()}

    def _names_held_act(self, coverage: Coverage | None, sources: list[Source]) -> bool:
        """The question names an act the corpus holds and retrieval's top passages come from it: the question is
        known to be on the corpus (weak similarity then qualifies the answer instead of stopping it)."""
        if coverage is None or not coverage.held:
            return False
        titles = self._corpus_instruments().titles_holding(coverage.held)
        return any(s.title in titles for s in sources[:3])

    def _corpus_instruments(self) -> CorpusInstruments:
        """The acts the served corpus holds, read from its documents' titles (rebuilt when the index changes)."""
        chunks = self.search_index.chunks
        if getattr(self, "_instruments_for", None) is not chunks:
            self._instruments = corpus_instruments(sorted({c.title for c in chunks.values()}))
            self._instruments_for = chunks
        return self._instruments

    def _held_jurisdictions(self) -> frozenset[str]:
        """The jurisdictions of the served documents ("EU", "BE"), read once per index version."""
        chunks = self.search_index.chunks
        if getattr(self, "_jurisdictions_for", None) is not chunks:
            self._jurisdictions = frozenset(c.jurisdiction for c in chunks.values() if c.jurisdiction)
            self._jurisdictions_for = chunks
        return self._jurisdictions

    def _not_held(self, turn: TurnInput, coverage: Coverage, fresh: list[Source], query_type: str,
                  decision: ContextDecision, language: str, trace: TraceRecorder, key: str | None) -> Iterator[str | ChatResponse]:
        suggestions = suggest_questions(turn.question, fresh)
        text = not_held_text(coverage.missing_labels(), self._corpus_instruments().holdings(), language, suggestions)
        yield text
        grade = grade_abstention("NOT_IN_CORPUS", 0.0, 0.0)
        response = ChatResponse(
            text, ABSTAIN, turn.conversation_id, query_type, "NOT_IN_CORPUS", suggestions=suggestions,
            confidence=grade.confidence, authority=grade.authority, context_decision=_decision_dict(decision),
            llm=self.router.describe())
        yield self._finish(turn, response, trace, key)

    # -- unified context with parent-document widening (issue 16 item 4; regintel/chat/context.py) -----------------
    def _unified_context(self, turn: TurnInput, fresh: list[Source]) -> list[ContextPassage]:
        previous = turn.history[-1].own_passages if turn.history else []
        cited = frozenset(p.chunk_id for p in turn.history[-1].used_passages) if turn.history else frozenset()
        older = [t.used_passages for t in reversed(turn.history[:-1])]
        return build_unified_context(previous, older, [ContextPassage(s) for s in fresh], self.settings.chat_context_limit,
                                     siblings=self._article_siblings(), fresh_minimum=self.settings.chat_fresh_passages,
                                     relevance=lambda sources: self._relevance(turn.question, sources), cited=cited)

    def _relevance(self, question: str, sources: list[Source]) -> list[float]:
        """Cosine of the current question with each earlier passage (which of them still matter now)."""
        index = self.search_index
        vector = index.embedder.embed([question], kind="query")[0]  # cached: retrieval embedded it already
        stored = index.vectors.vectors([s.chunk_id for s in sources])
        return [float(stored[s.chunk_id] @ vector) if s.chunk_id in stored else 0.0 for s in sources]

    def _article_siblings(self) -> ArticleSiblings:
        """The parts of each article of the served index (rebuilt when the index's chunks change)."""
        chunks = self.search_index.chunks
        if getattr(self, "_siblings_for", None) is not chunks:
            self._siblings, self._siblings_for = ArticleSiblings(chunks.values()), chunks
        return self._siblings
    # -- end of unified context -------------------------------------------------------------------------------

    # -- refusals and abstentions -----------------------------------------------------------------------------
    def _unanswered_out_of_domain_at(self) -> float | None:
        """The guardrail model's level for refusing a turn without evidence as out of domain; None when the
        classifier cannot be read (the turn then abstains as it would without it)."""
        try:
            return self.guardrails.unanswered_out_of_domain_at if self.guardrails is not None else None
        except Exception as exc:  # noqa: BLE001 - a side signal never breaks the turn
            log.warning("guardrail level unavailable (%s)", exc.__class__.__name__)
            return None

    def _refuse(self, turn: TurnInput, classification, candidates: list[Source], language: str,
                trace: TraceRecorder) -> Iterator[str | ChatResponse]:
        if classification.query_type == "PERSONAL_DATA_ANALYSIS":  # its personal data is never stored in clear
            trace.steps[:] = redact_personal_data(trace.steps, turn.question)
            turn = replace(turn, question=sanitise(turn.question).text, asked=sanitise(turn.written).text)
        with trace.step("suggestions") as record:
            suggestions = suggest_questions(turn.question, candidates)
            record["count"] = len(suggestions)
        text = refusal_text(classification.query_type, classification.reason, suggestions, language)
        yield text
        grade = grade_abstention("OUT_OF_SCOPE", 0.0, 0.0)
        response = ChatResponse(text, ABSTAIN, turn.conversation_id, classification.query_type, "OUT_OF_SCOPE",
                                refused=True, refusal_reason=classification.reason, suggestions=suggestions,
                                confidence=grade.confidence, authority=grade.authority, llm=self.router.describe())
        yield self._finish(turn, response, trace, cache_key_=None)

    def _abstain(self, turn: TurnInput, analysis, passages: list[ContextPassage], fresh: list[Source], query_type: str,
                 decision: ContextDecision, language: str, trace: TraceRecorder, key: str | None) -> Iterator[str | ChatResponse]:
        suggestions = []
        if analysis.reason in {"NO_RELEVANT_EVIDENCE", "LOW_SIMILARITY", "AMBIGUOUS_QUERY"}:
            suggestions = suggest_questions(turn.question, fresh or [p.source for p in passages])
        text = abstention_text(analysis.reason, language, suggestions)
        yield text
        grade = grade_abstention(analysis.reason, analysis.mean_similarity, analysis.best_authority)
        response = ChatResponse(
            text, ABSTAIN, turn.conversation_id, query_type, analysis.reason, suggestions=suggestions,
            sources=[CitedSource.from_passage(p, used=False) for p in passages], confidence=grade.confidence,
            authority=grade.authority, context_decision=_decision_dict(decision), llm=self.router.describe())
        yield self._finish(turn, response, trace, key)

    # -- steps 6-9: prompt, model, concepts, verification, grading ---------------------------------------------
    def _answer(self, turn: TurnInput, passages: list[ContextPassage], analysis, query_type: str,
                decision: ContextDecision, language: str, trace: TraceRecorder, key: str | None) -> Iterator[str | ChatResponse]:
        active = self._active_concepts(turn, trace)
        aspects = PromptAspects(
            jurisdictions=sorted({p.source.jurisdiction for p in passages if p.source.jurisdiction}), language=language,
            concepts_in_scope=[c for c in active if c.get("label")],
            tools=bool(getattr(self.router.provider, "supports_tools", True)))  # no tool rule for a tool-less model
        history = resend_history(turn.history, passages)  # earlier answers' [n] rewritten to this turn's numbers
        messages = build_messages(turn.question, [p.prompt_source() for p in passages], aspects, history)
        answer_parts: list[str] = []  # as the model wrote it (prompt numbers): what verification reads
        shown_parts: list[str] = []  # as the analyst reads it: citations numbered 1, 2, 3 in order of first use
        numbers = CitationRenumbering(p.index for p in passages)
        error = ""
        tool_chunks: list[ToolChunk] = []
        egress: dict[str, Any] = {}
        tenant = turn.tenant
        policy = TenantDirectory.egress_policy(tenant)
        with trace.step("llm") as record:
            record["prompt"] = {"system": messages[0]["content"], "sources": len(passages),
                                "history_turns": (len(messages) - 2) // 2}  # system + this turn's user message
            room = self.settings.answer_max_chars  # text past it is dropped; tool calls are still read
            deadline = self.router.turn_deadline()  # one budget for the tool rounds and the answer together
            captured = ConceptOutcome()  # concepts of the tool calls already answered with their results
            answered_calls = 0
            for round_number in range(self.settings.llm_tool_rounds + 1):
                round_text: list[str] = []
                round_calls: list[ToolChunk] = []
                for chunk in self.router.stream("main_chat", messages, [CAPTURE_CONCEPTS], policy=policy,
                                                on_egress=egress.update, deadline=deadline):
                    if isinstance(chunk, TextChunk):
                        if "first_token_ms" not in record:
                            record["first_token_ms"] = trace.elapsed_ms()
                        delta = chunk.delta[:max(room, 0)]
                        room -= len(chunk.delta)
                        if not delta:
                            continue
                        answer_parts.append(delta)
                        round_text.append(delta)
                        shown = numbers.feed(delta)
                        if shown:
                            shown_parts.append(shown)
                            yield shown
                    elif isinstance(chunk, ToolChunk):
                        round_calls.append(chunk)
                    elif isinstance(chunk, ErrorChunk):
                        error = chunk.error
                        break
                tool_chunks += round_calls
                if error or not round_calls or is_answer("".join(answer_parts)) or round_number == self.settings.llm_tool_rounds:
                    break
                # tool calls and no answer yet (many real models): run the tools, send the results, ask again
                calls = [replace(c, call_id=c.call_id or f"call_{round_number}_{i}") for i, c in enumerate(round_calls)]
                messages = [*messages, *self._tool_round(calls, "".join(round_text), captured)]
                answered_calls = len(tool_chunks)
                record["tool_rounds"] = round_number + 1
            if not error and not "".join(answer_parts).strip() and tool_chunks:
                error = NO_ANSWER_AFTER_TOOLS  # the model kept calling tools: say so rather than show nothing
            rest = numbers.flush()
            if room < 0:  # the model wrote more than REGINTEL_ANSWER_MAX_CHARS: say where it was cut
                rest += CUT.format(limit=self.settings.answer_max_chars, dropped=-room)
                record["cut_chars"] = -room
            if rest:
                shown_parts.append(rest)
                yield rest
            record.update(llm=self.router.describe(), egress=egress, tool_calls=len(tool_chunks), error=error)
        answer = "".join(answer_parts)

        with trace.step("concepts") as record:
            outcome = captured
            for chunk in tool_chunks[answered_calls:]:  # the calls of the last reply (or of one that also answered)
                if chunk.name == CAPTURE_CONCEPTS.name:
                    outcome.merge(handle_concept_metadata(chunk.args, self.graph_store, self.queue, chunk.malformed))
            record.update(outcome.to_dict())
            record["payloads"] = redact([c.args if not c.malformed else {"malformed": c.raw[:500]} for c in tool_chunks])

        with trace.step("verification") as record:
            numbered = {p.index: p for p in passages}
            result = verify_claims(answer, {i: (p.source.text, p.source.language, p.source.authority_score)
                                            for i, p in numbered.items()})
            cited = result.cited_sources
            cited_sources = [numbered[i].source for i in cited]
            authority = authority_score([(s.authority_score, s.similarity) for s in cited_sources])
            cited_mean = sum(s.similarity for s in cited_sources) / len(cited_sources) if cited_sources else 0.0
            summary = result.summary(numbering=numbers.display_number)  # the numbers the analyst reads
            record.update(summary, cited=cited, authority_score=authority)

        if any(s.deprecated or s.currency_warning for s in cited_sources) and "OUTDATED_SOURCE" not in analysis.concerns:
            analysis.concerns.append("OUTDATED_SOURCE")  # issue 23: a deprecated, expired or superseded act is cited
        with trace.step("grading") as record:
            grade = grade_answer(cited_mean, authority, result.rate, summary["supported"], analysis.concerns)
            record.update(mode=grade.mode, abstention_reason=grade.abstention_reason, confidence=grade.confidence,
                          authority=grade.authority, concerns=analysis.concerns)
        sources = [CitedSource.from_passage(p, p.index in cited) for p in passages]
        for source in sources:  # the numbers the analyst reads in the answer
            source.index = numbers.display_number(source.index)
        response = ChatResponse(
            "".join(shown_parts), grade.mode, turn.conversation_id, query_type, grade.abstention_reason,
            concerns=list(analysis.concerns), sources=sorted(sources, key=lambda s: s.index),
            referenced_nodes=[{k: r[k] for k in ("id", "key", "label")} for r in outcome.referenced]
            + self._cited_sections(cited_sources),
            confidence=grade.confidence, authority=grade.authority, claim_verification=summary,
            context_decision=_decision_dict(decision), llm=self.router.describe())
        if error:
            response.status, response.error = "failed", error
            response.response_mode, response.abstention_reason = ABSTAIN, None
            response.answer = response.answer + ("\n\n" if response.answer else "") + FAILED.format(error=error)
        yield self._finish(turn, response, trace, None if (decision.reuse_previous or error) else key)

    def _tool_round(self, calls: list[ToolChunk], text: str, captured: ConceptOutcome) -> list[ChatMessage]:
        """What goes back to a model whose reply was only tool calls: that reply, and one result per call (the
        concepts are captured now, into ``captured``). Results are data for the model, never instructions."""
        results: list[ChatMessage] = []
        for call in calls:
            if call.name == CAPTURE_CONCEPTS.name:
                outcome = handle_concept_metadata(call.args, self.graph_store, self.queue, call.malformed)
                captured.merge(outcome)
                result = {"captured": [n["label"] for n in outcome.referenced], "skipped": outcome.skipped[:5],
                          "queued_for_later": outcome.queued}
            else:
                result = {"error": f"unknown tool {call.name[:60]}"}
            results.append({"role": "tool", "tool_call_id": call.call_id, "content": json.dumps(result, ensure_ascii=False)})
        reply: ChatMessage = {"role": "assistant", "content": text, "tool_calls": [
            {"id": c.call_id, "name": c.name, "arguments": c.raw or json.dumps(c.args)} for c in calls]}
        return [reply, *results]

    def _active_concepts(self, turn: TurnInput, trace: TraceRecorder) -> list[dict[str, Any]]:
        with trace.step("concepts_in_scope") as record:
            try:
                active = self.repo.active_concepts(turn.tenant.id, turn.conversation_id)
            except Exception as exc:
                log.warning("could not read the conversation context: %s", exc)
                active = []
            record["labels"] = [c.get("label") for c in active][:30]
            definitions = self._graph_rows(queries.CONCEPT_DEFINITIONS, [c["key"] for c in active if c.get("key")])
            record["definitions"] = sum(bool(row.get("definition")) for row in definitions)
        found = {row["key"]: row.get("definition") or "" for row in definitions}
        return [{**c, "definition": found.get(c.get("key"), "")} for c in active]

    def _cited_sections(self, cited: list[Source]) -> list[dict[str, Any]]:
        """The rules graph's Sections of the cited passages, for the Graph Explorer to highlight (issue 20)."""
        by_key = {section_key(source): source for source in cited}
        found = {row["key"]: row for row in self._graph_rows(queries.SECTIONS_BY_KEYS, list(by_key))}
        return [{"id": found[key].get("id") or key, "key": key, "kind": SECTION_NODE, "label": passage_name(source)}
                for key, source in by_key.items() if key in found]

    def _graph_rows(self, query: str, keys: list[str]) -> list[dict[str, Any]]:
        """A read of the rules graph for the prompt or the answer's links: nothing when there is no graph or it
        fails (a side feature never breaks the answer)."""
        if self.graph_store is None or not keys:
            return []
        try:
            return self.graph_store.query(query, {"keys": keys})
        except Exception as exc:
            log.warning("graph read for the turn skipped: %s", exc)
            return []

    # -- step 10: persistence ---------------------------------------------------------------------------------
    def _finish(self, turn: TurnInput, response: ChatResponse, trace: TraceRecorder, cache_key_: str | None) -> ChatResponse:
        response.latency_ms = trace.elapsed_ms()
        if response.concept_nodes:
            try:
                ids = self.repo.add_active_concepts(turn.tenant.id, turn.conversation_id, response.concept_nodes)
                trace.steps.append({"step": "conversation_context", "ms": 0.0, "active_node_ids": len(ids)})
            except Exception as exc:
                log.warning("could not update the conversation context: %s", exc)
        cacheable = cache_key_ and response.status == "complete" and not response.from_cache
        if cacheable:
            trace.steps.append({"step": "cache_store", "ms": 0.0, "ttl_seconds": self.settings.response_cache_ttl_seconds})
        try:  # one transaction: question, answer, citations and trace are kept together or not at all
            saved = self.repo.save_turn(turn.tenant.id, turn.conversation_id, turn.written, response, trace.as_dict())
        except (SQLAlchemyError, OSError) as exc:
            raise StoreError(not_stored(exc)) from exc
        if cacheable:  # only an answer that was saved is cached
            try:
                self.cache.put(cache_key_, turn.tenant.id, self.corpus_version, turn.written, saved.to_dict())
            except Exception as exc:
                log.warning("could not store the response in the cache: %s", exc)
        return saved

    def _cache_get(self, key: str, tenant_id: str) -> dict[str, Any] | None:
        try:
            return self.cache.get(key, tenant_id)
        except Exception as exc:
            log.warning("response cache lookup failed: %s", exc)
            return None

    def _replay(self, cached: dict[str, Any], turn: TurnInput, trace: TraceRecorder) -> Iterator[str | ChatResponse]:
        response = ChatResponse.from_dict(cached)
        response.conversation_id, response.from_cache = turn.conversation_id, True
        response.message_id = response.trace_id = ""
        yield response.answer
        yield self._finish(turn, response, trace, None)



def fused_by_rank(first: Sequence[Source], second: Sequence[Source], k: int) -> list[Source]:
    """Two rankings of one act's passages fused by reciprocal rank (ties keep ``first``'s order), ``k`` at most;
    a passage in both keeps ``second``'s grading. Used for a question naming an act in another language than the
    act's: searched whole, its passages of the act are ranked with the act's name in the question; searched without
    the name (:meth:`ComplianceEngine._besides_named_acts`), on its other words only. Either reading alone put the
    answering article first for as many questions (118 of 144, looked-at questions outside the held-back split,
    session 95), each for different ones; fused, 120, and 135 instead of 132 in the first three."""
    runs = [{s.chunk_id: -float(rank) for rank, s in enumerate(run)} for run in (first, second)]
    by_id = {s.chunk_id: s for s in first} | {s.chunk_id: s for s in second}
    fused = reciprocal_rank_fusion(runs, [1.0, 1.0])
    return [by_id[chunk_id] for chunk_id, _ in sorted(fused.items(), key=lambda item: -item[1])[:k]]


def not_stored(exc: BaseException) -> str:
    """What the analyst reads when a turn cannot be stored (a full disk, a read-only data directory): what
    happened and what was kept, without file paths or SQL."""
    reason = str(getattr(exc, "orig", None) or getattr(exc, "strerror", None) or exc.__class__.__name__)
    reason = reason.splitlines()[0][:120] if reason else "write refused"
    if "/" in reason or "\\" in reason:
        reason = exc.__class__.__name__
    return (f"This answer could not be saved ({reason}): the data store is full or read-only. Neither the question "
            "nor the answer was kept; the conversation is as it was before. Ask again once the administrator has "
            "freed space.")


def topic_questions(history: Sequence[Turn]) -> list[str]:
    """The last question of ``history``, then each earlier one it went on from (its turn continued or reused the
    one before), newest first, ``TOPIC_CHAIN`` questions at most: what a follow-up's "it" or "that" can stand for."""
    questions: list[str] = []
    for turn in reversed(history):
        questions.append(turn.question)
        decision = turn.response.context_decision if turn.response is not None else {}
        if len(questions) >= TOPIC_CHAIN or not (decision.get("continues") or decision.get("reuse_previous")):
            break
    return questions


def _decision_dict(decision: ContextDecision) -> dict[str, Any]:
    return {"reuse_previous": decision.reuse_previous, "reason": decision.reason, "similarity": decision.similarity,
            "continues": decision.continues, "subject": decision.subject, "clarification": decision.clarification,
            "restated": decision.restated}
