"""Provider ``offline``: no network, deterministic, grounded in the passages it is given.

It reads the numbered ``<source>`` passages and the question from the user message (the same message a remote
model gets), scores every sentence of every passage against the question (BM25 over sentences, stemmed per
language, with a prior for better-ranked passages), and streams the best ones verbatim, each followed by its
``[n]`` marker, after a one-line lead-in. When no sentence shares enough meaning-bearing words with the question
it says plainly that the answer was not found in the sources. With ``capture_concepts`` registered it ends with
one tool chunk from :mod:`regintel.concepts.harvest`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterator

from regintel.concepts.harvest import capture_concepts
from regintel.concepts.lexicon import ConceptLexicon
from regintel.llm.base import ChatMessage, ToolSpec
from regintel.llm.chunks import LlmStreamChunk, TextChunk, ToolChunk
from regintel.llm.prompt_format import PromptSource, parse_question, parse_sources
from regintel.text.analysis import SUPPORTED_LANGUAGES, detect_language, tokenize
from regintel.text.sentences import split_sentences

LEAD_IN = {
    "en": "From the retrieved sources (offline mode, quoted verbatim):",
    "fr": "D'après les sources trouvées (mode hors ligne, citations textuelles) :",
    "es": "Según las fuentes encontradas (modo sin conexión, citas literales):",
}
NOT_FOUND = {
    "en": "The answer was not found in the sources: none of the retrieved passages addresses this question.",
    "fr": "La réponse n'a pas été trouvée dans les sources : aucun des passages trouvés ne traite cette question.",
    "es": "La respuesta no se encontró en las fuentes: ninguno de los pasajes recuperados trata esta pregunta.",
}
NOT_FOUND_MARKER = "not found in the sources"
LANGUAGE_NAMES = {
    "en": {"en": "English", "fr": "French", "es": "Spanish"},
    "fr": {"en": "anglais", "fr": "français", "es": "espagnol"},
    "es": {"en": "inglés", "fr": "francés", "es": "español"},
}
OTHER_LANGUAGE_HINT = {
    "en": " The retrieved sources are in {langs}: this offline mode matches words, so try asking in {langs}.",
    "fr": " Les sources trouvées sont en {langs} : ce mode hors ligne compare les mots, reformulez la question en {langs}.",
    "es": " Las fuentes encontradas están en {langs}: este modo sin conexión compara palabras, pruebe a preguntar en {langs}.",
}
# Share of the question's IDF mass a sentence must match to count as an answer. Calibrated on ObliQA dev
# questions 200-600 with their BM25 top-5 passages vs the passages of another question: at 0.2, 90 % of matched
# pairs are answered and 3 % of mismatched ones (0.3: 65 % / 0.2 %). See docs/benchmarks.md.
MIN_COVERAGE = 0.2
MAX_SENTENCES = 5
MAX_PER_SOURCE = 2
RELATIVE_CUTOFF = 0.45  # keep sentences scoring at least this share of the best one


@dataclass
class ScoredSentence:
    source: PromptSource
    position: int
    text: str
    score: float
    coverage: float


class OfflineProvider:
    name = "offline"
    supports_tools = True
    destination = "local"

    def __init__(self, lexicon: ConceptLexicon | None = None, words_per_chunk: int = 4) -> None:
        self.lexicon = lexicon
        self.words_per_chunk = words_per_chunk

    def stream(self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None, **opts: Any) -> Iterator[LlmStreamChunk]:
        user_turns = [m["content"] for m in messages if m["role"] == "user"]
        user = user_turns[-1] if user_turns else ""
        question = parse_question(user)
        sources = parse_sources(user)
        language = detect_language(question)
        chosen = select_sentences(question, sources)
        if not chosen and len(user_turns) > 1:
            # a follow-up ("are you sure?", "why?") is about the previous question, as a model would read it
            chosen = select_sentences(f"{parse_question(user_turns[-2])} {question}", sources)
        answer = compose_answer(chosen, language)
        source_languages = sorted({src.language for src in sources if src.language in SUPPORTED_LANGUAGES})
        if not chosen and source_languages and language not in source_languages:
            names = LANGUAGE_NAMES.get(language, LANGUAGE_NAMES["en"])
            answer += OTHER_LANGUAGE_HINT.get(language, OTHER_LANGUAGE_HINT["en"]).format(
                langs=" / ".join(names[lang] for lang in source_languages))
        for piece in _pieces(answer, self.words_per_chunk):
            yield TextChunk(piece)
        if tools and any(t.name == "capture_concepts" for t in tools) and self.lexicon is not None:
            cited = list({s.source.index: s.source for s in chosen}.values())
            concepts = capture_concepts(question, answer, cited, self.lexicon)
            yield ToolChunk(name="capture_concepts", args={"concepts": concepts}, raw="")


def select_sentences(question: str, sources: list[PromptSource]) -> list[ScoredSentence]:
    """The sentences that answer the question, best first, at most two per passage and five in all.

    Each sentence is compared with the question stemmed in the sentence's own language, so coverage (the share
    of the question's IDF mass a sentence matches) is measured in one language at a time.
    """
    pool: list[tuple[PromptSource, int, str, str, list[str]]] = []
    for source in sources:
        language = source.language if source.language in SUPPORTED_LANGUAGES else detect_language(source.text)
        for position, sentence in enumerate(split_sentences(source.text)):
            pool.append((source, position, sentence.text, language, tokenize(sentence.text, language)))
    if not pool:
        return []
    n = len(pool)
    document_frequency = Counter(t for *_, terms in pool for t in set(terms))
    unseen_idf = math.log(1 + (n + 0.5) / 0.5)
    idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in document_frequency.items()}
    question_terms = {lang: set(tokenize(question, lang)) for lang in {p[3] for p in pool}}
    question_mass = {lang: sum(idf.get(t, unseen_idf) for t in terms) or 1.0 for lang, terms in question_terms.items()}
    average_length = sum(len(p[4]) for p in pool) / n
    # words naming the passage's act ("GDPR", "DORA") are answered by its title, not by a sentence
    title_terms = {source.index: set(tokenize(source.title, lang)) for source, _, _, lang, _ in pool}
    scored = []
    for source, position, text, language, terms in pool:
        counts = Counter(terms)
        matched = question_terms[language] & counts.keys()
        if not matched:
            continue
        bm25 = sum(
            idf[t] * counts[t] * 2.2 / (counts[t] + 1.2 * (0.25 + 0.75 * len(terms) / average_length)) for t in matched
        )
        covered = matched | (question_terms[language] & title_terms[source.index])
        coverage = sum(idf.get(t, unseen_idf) for t in covered) / question_mass[language]
        prior = 1.0 / (1.0 + 0.08 * (source.index - 1))
        scored.append(ScoredSentence(source, position, text, bm25 * prior * (0.5 + coverage), coverage))
    scored.sort(key=lambda s: (-s.score, s.source.index, s.position))
    if not scored or max(s.coverage for s in scored[:10]) < MIN_COVERAGE:
        return []
    best = scored[0].score
    chosen: list[ScoredSentence] = []
    per_source: Counter[int] = Counter()
    for candidate in scored:
        if len(chosen) >= MAX_SENTENCES or candidate.score < RELATIVE_CUTOFF * best:
            break
        if per_source[candidate.source.index] >= MAX_PER_SOURCE or candidate.coverage < MIN_COVERAGE / 2:
            continue
        chosen.append(candidate)
        per_source[candidate.source.index] += 1
    return chosen


def compose_answer(chosen: list[ScoredSentence], language: str) -> str:
    """Lead-in, then the sentences grouped by passage (best passage first, reading order inside a passage)."""
    language = language if language in LEAD_IN else "en"
    if not chosen:
        return NOT_FOUND[language] + ("" if language == "en" else f" ({NOT_FOUND_MARKER})")
    order: list[int] = []
    for sentence in chosen:
        if sentence.source.index not in order:
            order.append(sentence.source.index)
    paragraphs = []
    for index in order:
        group = sorted((s for s in chosen if s.source.index == index), key=lambda s: s.position)
        paragraphs.append(" ".join(f"{s.text} [{index}]" for s in group))
    return LEAD_IN[language] + "\n\n" + "\n\n".join(paragraphs)


def _pieces(text: str, words_per_chunk: int) -> Iterator[str]:
    """Stream a few words at a time, keeping whitespace so the pieces concatenate to the exact text."""
    tokens = re.findall(r"\S+\s*|\s+", text)
    for start in range(0, len(tokens), words_per_chunk):
        yield "".join(tokens[start : start + words_per_chunk])
