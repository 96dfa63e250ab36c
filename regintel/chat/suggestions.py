"""Three concrete questions a refused or abstained user could ask instead, drawn from the corpus itself.

The passages closest to the refused question are turned into questions about their article or section ("What
does Article 33 of GDPR say about notification of a personal data breach?"), one per article: the articles of the
document retrieval put first, then one per other document, in retrieval's order. They are answerable by
construction: they name a passage the knowledge base holds. The lead document comes first because retrieval's other
documents are mostly far from the question: "Do we need consent to send marketing emails?" (GDPR Articles 7 and 8
first) suggested the Belgian VAT guidance's contact pages, and "How long can we keep CCTV footage?" an ESRS
biodiversity table, when one article per document was taken first.

A suggestion is asked in the passage's language when it uses the passage's words (its heading), so that it matches
the text it names; when the corpus's search titles (:mod:`regintel.retrieval.search_titles`) give the article a title
in the asker's language, it is asked in that language with that title instead: "What is the one-stop shop import
scheme?" was offered « Que prévoit Article 369 terdecies(4) de VAT Directive (FR) concernant définitions — «État
membre de consommation» ? », French to an English asker, twice for two definitions of one article.
"""

from __future__ import annotations

import re
from typing import Sequence

from regintel.retrieval.chunking import split_part
from regintel.retrieval.search_titles import load_search_titles
from regintel.retrieval.sources import Source
from regintel.text.analysis import detect_language

TEMPLATES = {  # (article with topic, article alone, section of a guidance document)
    "en": ("What does {ref} of {title} say about {topic}?", "What does {ref} of {title} require?",
           "What does {title} say about {topic}?"),
    "fr": ("Que prévoit {ref} de {title} concernant {topic} ?", "Que prévoit {ref} de {title} ?",
           "Que dit {title} sur « {topic} » ?"),
    "es": ("¿Qué establece {ref} de {title} sobre {topic}?", "¿Qué establece {ref} de {title}?",
           "¿Qué dice {title} sobre «{topic}»?"),
    "de": ("Was sagt {ref} in {title} zu „{topic}“?", "Was verlangt {ref} in {title}?", "Was sagt {title} zu „{topic}“?"),
}
ARTICLE_LIKE_RE = re.compile(r"^(article|art\.|annex|annexe|appendix|section|chapter|chapitre|titre|title|esrs)\b", re.IGNORECASE)


def _topic(source: Source) -> str:
    heading = source.heading or ""
    topic = heading.split(" — ", 1)[1] if " — " in heading else ""
    if not topic and source.ref and " › " in source.ref:
        topic = split_part(source.ref.rsplit(" › ", 1)[1])[0]
    topic = topic.strip().rstrip(".?!:; ")
    if not re.search(r"[^\W\d_]{4,}", topic) or re.fullmatch(r"(AR|Article|Annex|Appendix)\s*\w*", topic, re.IGNORECASE):
        return ""  # a bare code ("AR 25") says nothing about the subject
    return _as_topic(topic)


def _as_topic(title: str) -> str:
    """A heading or title as the topic inside a question: its first letter in lower case, unless it opens on an
    acronym ("ICT risk", "OSS")."""
    return title[:1].lower() + title[1:] if title and not title[:2].isupper() else title


def _ref(source: Source) -> str:
    ref = split_part(source.ref)[0].split(" › ")[0].strip()
    return ref or source.heading or source.title


def _title_in(language: str, source: Source) -> str:
    """The unit's search title in ``language`` ("" when it has none, or one per article of a merged unit)."""
    try:
        titles = load_search_titles().titles_in(source.document_id, source.ref, source.heading or "", language)
    except Exception:  # noqa: BLE001 - a side reading: without it the suggestion keeps the passage's own words
        return ""
    if len(titles) != 1:
        return ""
    title = titles[0].strip().rstrip(".?!:; ")
    return title if language == "de" else _as_topic(title)  # German nouns keep their capital


def _article_ref(ref: str) -> str:
    """"Article 369 terdecies(4)" -> "Article 369 terdecies": a search title names the article, not its paragraph."""
    return re.sub(r"\s*\(\w{1,3}\)$", "", ref)


def suggest_questions(question: str, candidates: Sequence[Source], count: int = 3) -> list[str]:
    """``candidates``: passages retrieved for the question (best first) or any passages of the corpus."""
    question_language = detect_language(question)
    seen_articles: set[tuple[str, str]] = set()
    seen_documents: set[str] = set()
    lead_document = candidates[0].document_id if candidates else ""
    # the lead document's articles, then one article per other document, then the rest, each in rank order
    lead, one_per_document, rest = [], [], []
    for source in candidates:
        article = (source.document_id, _ref(source))
        if article in seen_articles:
            continue
        seen_articles.add(article)
        if source.document_id == lead_document:
            lead.append(source)
        elif source.document_id in seen_documents:
            rest.append(source)
        else:
            one_per_document.append(source)
        seen_documents.add(source.document_id)
    suggestions = []
    for source in lead + one_per_document + rest:
        ref = _ref(source)
        article_like = bool(ARTICLE_LIKE_RE.match(ref))
        topic = _topic(source) if article_like else split_part(source.ref)[0].split(" › ")[-1].strip().rstrip(" ?")
        # the passage's own language when its words are used, so the suggestion matches the text it names
        language = (source.language if topic else question_language) if source.language in TEMPLATES else question_language
        asked_across = source.language in TEMPLATES and question_language in TEMPLATES \
            and source.language != question_language
        title = _title_in(question_language, source) if asked_across else ""
        if title:  # the unit's title in the asker's language: the suggestion is asked in it
            topic, language = title, question_language
            ref = _article_ref(ref) if article_like else ref
        with_topic, plain, section = TEMPLATES.get(language, TEMPLATES["en"])
        template = (with_topic if topic else plain) if article_like else section
        text = template.format(ref=ref, title=source.title, topic=topic or source.heading)
        if text not in suggestions:
            suggestions.append(text)
        if len(suggestions) == count:
            break
    return suggestions
