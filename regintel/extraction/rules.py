"""Text rules shared by the offline extraction steps: definitions, titles, heads, genus phrases, summaries.

All deterministic and verbatim: the offline path never invents wording, it selects and trims source text.
"""

from __future__ import annotations

import re

from regintel.concepts.harvest import DEFINITION_TEMPLATES
from regintel.text.normalise import fold_for_comparison
from regintel.text.sentences import split_sentences

HEAD_FINAL = {"en", "de", "nl"}  # "major ICT-related incident": the head noun is last; fr/es/it/pt put it first
POINT_PREFIX_RE = re.compile(r"^\s*(?:[-*•]\s*)?\(\d{1,3}\)\s*")
ARTICLES = r"(?:a|an|any|the|un|une|le|la|les|l'|el|los|las|uno|una|tout|toute|cualquier)"
GENUS_RE = re.compile(rf"\b(?:means|désigne|signifie|se entiende por|significa)\s*:?\s+(?:{ARTICLES}\s+)?(.{{3,160}})", re.IGNORECASE)
PART_OF_RE = re.compile(r"\b(?:part of|component of|forma parte de|fait partie de|partie de)\s+(?:the |la |le |el |l')?(.{3,120})", re.IGNORECASE)
PROCEDURAL_RE = re.compile(
    r"^(?:for the purposes of this (?:regulation|directive)|this (?:regulation|directive) shall (?:enter into force|apply|be binding)"
    r"|aux fins d[ue] (?:la )?présente?|a efectos de|le présent règlement entre en vigueur)", re.IGNORECASE)
MIN_CONCEPT_WORDS = 4


def clean_quote(text: str) -> str:
    """A quote as concept text: without its "(12)" point marker and trailing separators."""
    text = POINT_PREFIX_RE.sub("", text).strip()
    return re.sub(r"[;,]\s*(?:and|or|et|ou|y|o)$", "", text).rstrip(" ;,").strip() or text


def definition_spans(text: str, languages: list[str]) -> list[tuple[str, int, int]]:
    """(term, start, end) of each legal definition in text; a definition runs until the next one starts."""
    starts: list[tuple[int, str]] = []
    for language in languages:
        template, any_term = DEFINITION_TEMPLATES[language]
        pattern = re.compile(template.format(term=any_term, n=400))
        for match in pattern.finditer(text):
            term = match.group(1).strip(" ,")
            if term and len(term.split()) <= 8 and term.lower() != term.upper():
                starts.append((match.start(), term))
    starts = sorted({s: t for s, t in starts}.items())
    spans = []
    for i, (start, term) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        spans.append((term, start, end))
    return spans


def definition_languages(language: str) -> list[str]:
    return ["en"] if language in {"", "en"} else [language] if language in DEFINITION_TEMPLATES else ["en", "fr", "es"]


def title_case(term: str) -> str:
    return term[:1].upper() + term[1:]


def words(text: str) -> list[str]:
    return fold_for_comparison(text).split()


def head_aligned(general: str, specific: str, language: str) -> bool:
    """True when ``specific`` is ``general`` plus modifiers on the non-head side ("major incident" of "incident")."""
    g, s = words(general), words(specific)
    if not g or len(s) <= len(g):
        return False
    return s[-len(g):] == g if language in HEAD_FINAL else s[: len(g)] == g


def genus_phrase(concept_text: str) -> str:
    """The phrase a definition starts from: "'genetic data' means personal data relating to ..." -> "personal data
    relating to ..." (the caller matches known titles at its start)."""
    match = GENUS_RE.search(concept_text)
    return match.group(1) if match else ""


def part_of_phrase(concept_text: str) -> str:
    match = PART_OF_RE.search(concept_text)
    return match.group(1) if match else ""


GENUS_ENDS = {"which", "that", "who", "whose", "where", "relating", "related", "resulting", "concerning", "revealing",
              "of", "in", "to", "with", "by", "for", "as", "on", "from", "engaged", "established", "other", "such",
              "and", "or", "qui", "que", "dont", "de", "du", "des", "au", "aux", "par", "pour", "en", "relatif", "relatives",
              "del", "con", "para", "por", "cuyo", "y", "o", "et", "ou"}


def starts_with_phrase(text: str, phrase: str, within_words: int = 2) -> bool:
    """``phrase`` is the genus at the start of ``text``: it begins in the first words (one adjective allowed) and
    ends the noun phrase ("personal data relating to" yes, "personal data protection policies" no)."""
    t, p = words(text), words(phrase)
    if not p:
        return False
    for i in range(0, min(within_words, max(len(t) - len(p) + 1, 0))):
        if t[i: i + len(p)] == p:
            following = t[i + len(p)] if i + len(p) < len(t) else ""
            if not following or following in GENUS_ENDS or following.endswith(("ing", "ed")):
                return True
    return False


def summarise(text: str, max_words: int) -> str:
    """The first sentences of text up to max_words (cut at a word boundary with an ellipsis when needed)."""
    kept: list[str] = []
    count = 0
    for sentence in split_sentences(text) or []:
        n = len(sentence.text.split())
        if kept and count + n > max_words:
            break
        kept.append(sentence.text)
        count += n
    summary = " ".join(kept) or text
    tokens = summary.split()
    return summary if len(tokens) <= max_words else " ".join(tokens[:max_words]).rstrip(",;:") + " …"


def is_procedural(text: str) -> bool:
    return bool(PROCEDURAL_RE.match(clean_quote(text))) or len(words(text)) < MIN_CONCEPT_WORDS
