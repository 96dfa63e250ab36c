"""Sentence-level scoring of answers: does the answer quote the text that answers the question?

``bench answers`` scores answers by the articles they cite; an offline answer can cite the right article with a
sentence of it that does not answer the question (a US webshop and the GDPR answered with Article 3(3) on public
international law instead of 3(2)(a) on offering goods to people in the Union). ``data/eval/quotes/gold_quotes.jsonl``
holds, per answerable evaluation item, the passages of its gold units an analyst would quote (verbatim: a defining
sentence, a list's lead-in and first point, the sentence holding a period, one per part of a several-part question;
conventions in ``data/eval/quotes/README.md``).

An answer *quotes the gold text* when it reproduces at least half of one gold quote verbatim: the share of the
quote's word 5-grams found among the answer's (a quote of fewer than five words: the quote as a whole). Words are
lower-cased word characters, so list markers, punctuation and line breaks do not matter. The measure is for the
offline composer, which quotes its sources verbatim; a model's paraphrase scores low by construction.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from regintel.config import REPO_ROOT
from regintel.retrieval.data_files import jsonl_records

QUOTES_PATH = REPO_ROOT / "data" / "eval" / "quotes" / "gold_quotes.jsonl"
SHINGLE = 5  # words per shingle: long enough that shared legal phrases ("referred to in paragraph 1") rarely match
QUOTED_AT = 0.5  # share of a gold quote's shingles an answer must reproduce to count as quoting it
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _shingles(tokens: Sequence[str], n: int = SHINGLE) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def quote_coverage(answer: str, quote: str) -> float:
    """Share of ``quote``'s word 5-grams found in ``answer`` (1.0 or 0.0 for a quote of fewer than five words)."""
    quote_words, answer_words = words(quote), words(answer)
    if not quote_words:
        return 0.0
    if len(quote_words) < SHINGLE:
        n = len(quote_words)
        return 1.0 if any(answer_words[i:i + n] == quote_words for i in range(len(answer_words) - n + 1)) else 0.0
    wanted = _shingles(quote_words)
    return len(wanted & _shingles(answer_words)) / len(wanted)


def best_quote_coverage(answer: str, quotes: Sequence[str]) -> float:
    return max((quote_coverage(answer, q) for q in quotes), default=0.0)


def quotes_gold(answer: str, quotes: Sequence[str]) -> bool:
    return bool(quotes) and best_quote_coverage(answer, quotes) >= QUOTED_AT


def load_gold_quotes(path: Path = QUOTES_PATH) -> dict[str, list[str]]:
    """Item id -> its gold quotes; {} when the file is absent. A malformed line raises ValueError naming it."""
    path = Path(path)
    if not path.exists():
        return {}
    quotes: dict[str, list[str]] = {}
    for number, raw in jsonl_records(path):
        where = f"{path}:{number}"
        item_quotes = raw.get("quotes")
        if not raw.get("id") or not isinstance(item_quotes, list) or not item_quotes \
                or not all(isinstance(q, str) and q.strip() for q in item_quotes):
            raise ValueError(f"{where}: needs an id and a non-empty list of quotes")
        if raw["id"] in quotes:
            raise ValueError(f"{where}: duplicate id {raw['id']!r}")
        quotes[str(raw["id"])] = [str(q) for q in item_quotes]
    return quotes


def quote_metrics(rows: Iterable[Mapping]) -> dict:
    """Over answerable rows with gold quotes (``quote_coverage`` set): the share whose answer quotes the gold text,
    overall and among the answers that cite a gold article."""
    labelled = [r for r in rows if r.get("kind") == "answerable" and r.get("quote_coverage") is not None]
    quoted = [r for r in labelled if r.get("quoted_gold")]
    hits = [r for r in labelled if r.get("hit")]
    quoted_hits = [r for r in hits if r.get("quoted_gold")]
    return {
        "quoted_gold_text": round(len(quoted) / len(labelled), 4) if labelled else None,
        "n_quote_labelled": len(labelled), "n_quoted_gold_text": len(quoted),
        "quoted_gold_text_when_cited": round(len(quoted_hits) / len(hits), 4) if hits else None,
        "n_quote_labelled_hits": len(hits), "n_quoted_gold_text_when_cited": len(quoted_hits),
    }
