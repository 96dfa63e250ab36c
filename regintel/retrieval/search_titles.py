"""Search titles: what an article is about, in the languages analysts ask in, for passages that lack it.

Most articles of the French VAT texts have no title ("Article 226"), and the English acts have their titles in
English only, so a question in another language than a passage's has little to match: BM25 cannot see that
"invoice" is "facture", and the multilingual embedding scores every cross-language pair lower than a same-language
one (docs/benchmarks.md, session 18: cross-lingual questions found their article first 33 / 49 times against 87 / 87
in the same language). ``data/glossary/search_titles.jsonl`` gives each unit of the demo corpus a short title in
EN/FR/ES/DE (the official titles of the other language versions where the act has them) and, for the French texts,
an English sentence saying what the article provides: written from each article's own text, editorial data kept in
the repository like the legal term list.

The chunker keeps them on the chunk (``Chunk.gloss``): BM25 indexes them with the passage, and a second vector of the
passage (``Chunk.crosslingual_embed_text``: heading, titles, text; stored beside the index) is what a question in
another language reads, while a question in the passage's own language keeps the passage's own vector
(``SearchIndex.stored_vectors``). They are never quoted, shown or used as evidence of what the law says: the answer
quotes the passage's own text.

Each line: ``{"document_id": ..., "article": "226" | "ref": "<unit ref>" | "heading": "<unit heading>",
"titles": {"en": ..., ...}, "summary_en": ...}``. ESRS units are keyed by their ref ("ESRS 1 › 3.4 Impact
materiality"): their headings repeat across standards ("Objective", "Metrics and targets"), so a heading key would
give one standard's titles to another's section. A document or unit without an entry keeps no gloss (sources a
user brings in).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from regintel.config import REPO_ROOT
from regintel.retrieval.data_files import jsonl_records
from regintel.text.article_numbers import LATIN_SUFFIX

SEARCH_TITLES_PATH = REPO_ROOT / "data" / "glossary" / "search_titles.jsonl"
TITLE_LANGUAGES = ("en", "fr", "es", "de")
# An article reference inside a unit's ref: "Article 226", "Article 59 quater", "Article premier" (merged units
# read "Article 1; Chapitre II. CHAMP D’APPLICATION; Article 2")
_ARTICLE_IN_REF_RE = re.compile(
    rf"\bArticle\s+(premier|\d+[a-z]?(?:\s+{LATIN_SUFFIX})?)\b",
    re.IGNORECASE)
_PART_SUFFIX_RE = re.compile(r"\s*\(\d+/\d+\)$")


def _article_key(number: str) -> str:
    number = " ".join(number.lower().split())
    return "1" if number in {"premier", "first"} else number


@dataclass(frozen=True)
class SearchTitle:
    titles: Mapping[str, str]
    summary: str = ""

    def text(self, document_language: str, heading: str = "") -> str:
        """The titles in the languages other than the document's, then the document-language title (an untitled
        article's own topic) unless the heading already says it, then the summary; a title is said once."""
        order = [lang for lang in TITLE_LANGUAGES if lang != document_language] + [document_language]
        seen: list[str] = []
        for lang in order:
            title = (self.titles.get(lang) or "").strip()
            said = [*seen, heading] if lang == document_language else seen
            if title and not any(title.casefold() in other.casefold() for other in said):
                seen.append(title)
        parts = [" · ".join(seen)] if seen else []
        if self.summary.strip():
            parts.append(self.summary.strip())
        return "\n".join(parts)


class SearchTitles:
    """Search titles by (document id, article number), by (document id, unit ref) and by (document id, unit
    heading)."""

    def __init__(self, by_article: Mapping[tuple[str, str], SearchTitle],
                 by_heading: Mapping[tuple[str, str], SearchTitle],
                 by_ref: Mapping[tuple[str, str], SearchTitle] | None = None) -> None:
        self.by_article = dict(by_article)
        self.by_heading = dict(by_heading)
        self.by_ref = dict(by_ref or {})

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> "SearchTitles":
        by_article: dict[tuple[str, str], SearchTitle] = {}
        by_heading: dict[tuple[str, str], SearchTitle] = {}
        by_ref: dict[tuple[str, str], SearchTitle] = {}
        for record in records:
            entry = SearchTitle(titles={k: str(v) for k, v in (record.get("titles") or {}).items() if v},
                                summary=str(record.get("summary_en") or ""))
            document = str(record["document_id"])
            if record.get("article"):
                by_article[(document, _article_key(str(record["article"])))] = entry
            elif record.get("ref"):
                by_ref[(document, _normal(_PART_SUFFIX_RE.sub("", str(record["ref"]))))] = entry
            elif record.get("heading"):
                by_heading[(document, _normal(str(record["heading"])))] = entry
        return cls(by_article, by_heading, by_ref)

    def __len__(self) -> int:
        return len(self.by_article) + len(self.by_heading) + len(self.by_ref)

    def entries(self, document_id: str, ref: str, heading: str) -> list[SearchTitle]:
        """A unit's entries: those of every article its ref names (a merged unit names several), else the entry of
        its ref, else the entry of its heading (each "; "-joined heading of a merged unit); none when it has none."""
        unit_ref = _PART_SUFFIX_RE.sub("", ref or "")
        entries = [self.by_article.get((document_id, _article_key(number)))
                   for number in _ARTICLE_IN_REF_RE.findall(unit_ref)]
        if not any(entries):
            entries = [self.by_ref.get((document_id, _normal(unit_ref)))]
        if not any(entries):
            entries = [self.by_heading.get((document_id, _normal(part))) for part in (heading or "").split("; ")]
        return [entry for entry in entries if entry is not None]

    def gloss(self, document_id: str, ref: str, heading: str, document_language: str) -> str:
        """The search text of a unit (:meth:`entries`, each as :meth:`SearchTitle.text`); "" when it has none."""
        texts: list[str] = []
        for entry in self.entries(document_id, ref, heading):
            text = entry.text(document_language, heading)
            if text and text not in texts:
                texts.append(text)
        return "\n".join(texts)

    def titles_in(self, document_id: str, ref: str, heading: str, language: str) -> list[str]:
        """A unit's titles in one ``language`` (one per entry that has one)."""
        return [entry.titles[language] for entry in self.entries(document_id, ref, heading) if entry.titles.get(language)]


def _normal(heading: str) -> str:
    return " ".join(heading.replace("*", "").replace("’", "'").split()).casefold()


@lru_cache(maxsize=4)
def load_search_titles(path: Path = SEARCH_TITLES_PATH) -> SearchTitles:
    """The search titles shipped with the repository (none when the file is absent)."""
    if not Path(path).exists():
        return SearchTitles({}, {})
    return SearchTitles.from_records(record for _, record in jsonl_records(path))
