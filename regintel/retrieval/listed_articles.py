"""The articles a list question asks for one by one, found by their headings in the whole act.

"What rights does the data subject have?" is answered by the GDPR's articles headed "Right of access by the data
subject", "Right to rectification", "Right to erasure", ... (the offline composer quotes the opening sentence of
each). Retrieval found two of them for that wording (Articles 15 and 21, then Articles 12 and 80 on information and
representation), so the answer quoted Article 15 alone; the Spanish wording of the same question happened to find
five. The articles of the leading act whose heading opens with the noun the question lists are searched on their
own and join the hits (:meth:`regintel.chat.engine.ComplianceEngine._with_listed_article_hits`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from regintel.retrieval.chunking import Chunk, split_part
from regintel.retrieval.instruments import load_catalog
from regintel.text.analysis import tokenize
from regintel.text.question_kinds import content_stems, question_noise_stems

LISTED_MIN_ARTICLES = 3  # a noun heading this many articles of one act is a list of provisions of its own ...
LISTED_MAX_WORDS = 3  # ... when the question asks for it in general: this many words at most, the act's name aside
LISTED_MAX_ARTICLES = 6  # the articles joining the hits (the closest to the question first) and quoted by the answer

WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")  # "subject's" is one word, its stem "subject"
HEADING_NUMBER_RE = re.compile(r"^\W*(?:article|artikel|artículo|art\.)\s+\S+\s*", re.IGNORECASE)


def heading_lead_word(heading: str, language: str) -> str:
    """The first word (stemmed) of what a heading names: "Article 15 — Right of access by the data subject" ->
    "right"; "Disclosure Requirement E1-3 – Actions and resources ..." -> "disclosur"; "10.2 Transitional provision
    ..." -> "transit"; "" for a heading naming nothing but the article ("Article 1 (TITRE PREMIER - OBJET ...)")."""
    heading = heading.rsplit(" › ", 1)[-1]  # a section's own title, not its document's path to it
    title = heading.split(" — ", 1)[1] if " — " in heading else HEADING_NUMBER_RE.sub("", heading)
    words = [w for w in tokenize(re.sub(r"\(.*?\)", " ", title), language) if not w[:1].isdigit()]
    return words[0] if words else ""


# a word introduced by a preposition (after an article, if any) completes the noun the question lists, and is none:
# "What are the lawful bases for processing?" lists bases, not the GDPR's articles headed "Processing of ..."
COMPLEMENT_RE = re.compile(
    r"\b(?:for|of|on|about|under|to|in|with|by|pour|de|du|des|d['’]|sur|à|au|aux|par|para|del|sobre|con|por|für|von|"
    r"vom|zur|zum|über|bei|mit|durch)\s+(?:(?:the|a|an|le|la|les|l['’]|un|une|el|los|las|una|der|die|das|den|dem|"
    r"ein|eine|einer|einem)\s+)?([^\W\d_]+)", re.IGNORECASE)


# a list asked for in the imperative ("List the rights of the data subject", "Name the principles ...", "Liste les
# droits ...", "Enumera los derechos ...", "Nenne die Rechte ..."): read as the question it stands for
LIST_IMPERATIVE_RE = re.compile(
    r"^\W*(?:please\s+|veuillez\s+|por favor\s+|bitte\s+)?(?:(?P<en>list|name|enumerate)|"
    r"(?P<fr>liste[zr]?|énumére[zr]?|énumère|cite[zr])|(?P<es>enumera|enumere|nombra|nombre|lista)|"
    r"(?P<de>nenne(?:n\s+sie)?|liste(?:n\s+sie)?|zähle(?:n\s+sie)?))\s+(?:(?:all|tous|toutes|todos|todas|alle)\s+)?"
    r"(?=(?:the|les|des|los|las|die|der)\s)", re.IGNORECASE)
ASKED_AS = {"en": "What are ", "fr": "Quels sont ", "es": "¿Cuáles son ", "de": "Welche sind "}


def read_as_question(question: str) -> str:
    """A list asked for in the imperative as the question it stands for (:data:`LIST_IMPERATIVE_RE`): "List the rights
    of the data subject" -> "What are the rights of the data subject"; any other question as it is."""
    found = LIST_IMPERATIVE_RE.match(question)
    if not found:
        return question
    language = next(name for name, value in found.groupdict().items() if value)
    rest = question[found.end():].rstrip()
    return ASKED_AS[language] + (rest[:-1] if rest.endswith((".", "!")) else rest) + ("?" if language != "fr" else " ?")


def listed_noun_stems(question: str, language: str) -> set[str] | None:
    """The words (stems) of a list question asking for a noun in general, the act's name, the question words and the
    words introduced by a preposition aside ("What are the lawful bases for processing?" -> lawful, basi); when the
    noun follows the interrogative, the words of its noun phrase only (:func:`listed_noun_phrase`: "What rights does
    the data subject have?" -> right; "Which grounds make processing lawful?" -> ground, not the "processing" that
    heads eight GDPR articles); None when it says more than ``LISTED_MAX_WORDS`` (complements counted), so asks about
    something narrower, or when no noun follows its interrogative: "What must the processing contract include?" asks
    for a document's contents, and read as a list of "processing" it quoted the openings of Articles 10, 11, 29, 85,
    86 and 88."""
    text = load_catalog().without_mentions(read_as_question(question))
    asked = content_stems(text, language)
    phrase = listed_phrase_stems(text, language)
    if len(asked) > LISTED_MAX_WORDS or not phrase:
        return None
    complements = {stem for match in COMPLEMENT_RE.finditer(text) for stem in tokenize(match.group(1), language)}
    return (asked & phrase) - complements


# the noun a list question asks for, right after its interrogative ("Quels sont les *droits* ...", "Welche *Rechte*
# ...", "¿Qué *derechos* ...", "What *rights* ..."); a question opening otherwise ("Was muss ein Vertrag
# enthalten?") lists none
LISTED_NOUN_RE = re.compile(
    r"^\W*(?:what|which|quel(?:le)?s?|welche[rsnm]?|qu[ée]|cu[áa]les)\s+(?:(?:are|sont|son|sind)\s+)?"
    r"(?:(?:the|les|los|las|die)\s+)?(?:différent(?:e)?s\s+|diferentes\s+|verschiedenen\s+)?([^\W\d_]+)",
    re.IGNORECASE)


def listed_noun_phrase(question: str, language: str) -> str:
    """The noun phrase a list question asks for, as written: from the word after its interrogative
    (:data:`LISTED_NOUN_RE`) up to the first word that is no content word, a stop word or an auxiliary ("What *data
    subject's rights* ...", "Which *grounds* make processing lawful?", "¿Cuáles son los *principios* del tratamiento
    ...?"); "" when the question does not open on a noun. What comes after the phrase is what the listed things do or
    belong to, not what is listed."""
    question = read_as_question(question)
    found = LISTED_NOUN_RE.match(question)
    if not found:
        return ""
    noise = question_noise_stems(language)
    words: list[str] = []
    for word in WORD_RE.findall(question[found.start(1):]):
        if not [stem for stem in tokenize(word, language) if stem not in noise]:
            break
        words.append(word)
    return " ".join(words)


def listed_phrase_stems(question: str, language: str) -> set[str]:
    """The stems of :func:`listed_noun_phrase` (none when the question does not open on a noun)."""
    return set(tokenize(listed_noun_phrase(question, language), language)) - question_noise_stems(language)


def listed_noun(question: str) -> str:
    """The noun a list question asks for, as written ("droits" in "Quels sont les droits de la personne concernée
    ?"); "" when the question does not open on it."""
    found = LISTED_NOUN_RE.match(read_as_question(question))
    return found.group(1) if found else ""


def one_word_equivalents(noun: str, language: str, target: str, glossary: Any) -> list[str]:
    """The one-word wordings in ``target`` of the term list's entries for ``noun`` ("Vorfälle" -> "incident",
    "incidents"; "droits" -> "right"). A heading's lead word is matched on them alone: a longer wording's first word
    is a modifier that opens other headings ("ICT-related incident": "ICT" opens a dozen DORA headings on risk
    management, which a French list of the incidents to report quoted)."""
    found: list[str] = []
    for match in glossary.matches(noun, language):
        for phrase in glossary.equivalents(match, noun, target):
            if len(WORD_RE.findall(phrase)) == 1 and phrase not in found:
                found.append(phrase)
    return found


def listed_article_chunk_ids(chunks: Iterable[Chunk], document_id: str, asked: set[str]) -> list[str]:
    """The first passage of each article of ``document_id`` whose heading opens with one of the ``asked`` stems, in
    the act's order; none unless one such noun heads at least ``LISTED_MIN_ARTICLES`` articles."""
    by_lead: dict[str, list[str]] = {}
    seen: set[str] = set()
    for chunk in chunks:
        if chunk.document_id != document_id or not chunk.heading:
            continue
        ref, part = split_part(chunk.ref)
        if (part or 1) != 1 or ref in seen or not HEADING_NUMBER_RE.match(chunk.heading):
            continue  # an article's first part, once (its definitions units share its heading)
        lead = heading_lead_word(chunk.heading, chunk.language)
        if lead in asked:
            seen.add(ref)
            by_lead.setdefault(lead, []).append(chunk.chunk_id)
    listed = [ids for ids in by_lead.values() if len(ids) >= LISTED_MIN_ARTICLES]
    return listed[0] if len(listed) == 1 else []
