"""Retrieval for applicability questions: "Does the GDPR apply to a private person's address book?", "Which
financial entities are covered by DORA?", "¿Se aplica DORA a los intermediarios de seguros?", "Who is exempt from
DORA?".

Such a question is answered by the scope provisions of the act it names ("Article 2 — Material scope", "Article 3 —
Territorial scope", "Article 2 — Scope"), but it is told with the asker's case ("a private person", "a US online
shop"), and the case's words pull retrieval towards articles that share them (public access to official documents
for "a private person"). So when a question asks whether a named act applies, that act's scope units are searched
too and the best passage of each leads the hits (moved up when the hits hold it lower). Led by them
(:func:`led_by_scope`), a question about the act as a whole is answered from the scope article closest to it in
meaning by the offline composer and is not stopped by weak similarity (the engine); a question on whether one
provision applies, whose words another passage holds, is answered from that passage as before. Measured on the dev
split of data/eval (docs/benchmarks.md, sessions 14 and 15); questions naming no act, or an act without a scope unit
(the VAT Directive), are searched as before.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence

from regintel.retrieval.act_overview import words_besides_named_acts
from regintel.retrieval.chunking import Chunk
from regintel.retrieval.instruments import load_catalog
from regintel.retrieval.sources import Source

_I = re.IGNORECASE
# "does X apply / is X applicable / are we covered by / does X cover / subject to / in scope / fall under", in EN,
# FR, ES, DE ("what must the contract cover?" asks about content, not applicability)
APPLICABILITY_RE = re.compile(
    r"\b(?:apply|applies|applicable|covered|(?:does|do|would|will)\s(?P<subject>[^?.]{1,40}?)\scover|subject to|"
    r"in scope|"
    r"within (?:the |its )?scope|"
    r"falls? (?:under|within)|"
    r"s['’]appliqu\w*|relève(?:nt)? d[ue]s?|soumis\w* à|"
    r"champ d['’]application|concerné\w* par|"
    r"se aplica\w*|aplicable|sujet[oa]s? a|ámbito de aplicación|cubiert[oa]s? por|"
    r"gilt|gelten|anwendbar|anzuwenden|f[äa]llt\b[^?.]{0,60}\bunter|fallen\b[^?.]{0,60}\bunter|unterliegt|unterliegen|"
    r"Anwendungsbereich)\b", _I)
# "What penalties apply under DORA?", "Quelles sanctions s'appliquent ?": which rules of a kind apply, not whether (or
# to whom) the act applies: answered by those rules, not by the act's scope article
RULES_THAT_APPLY_RE = re.compile(
    r"\b(?:what|which)\s+(?:\w+\s+){0,2}(?:penalties|sanctions|fines|rules|rates?|requirements|obligations|conditions|"
    r"exemptions|deadlines|time limits|measures|provisions|principles|thresholds|procedures|formalities)\s+"
    r"(?:\w+\s+)?(?:apply|applies)\b|"
    r"\bquel(?:le)?s\s+(?:\w+\s+){0,2}(?:sanctions|amendes|règles|taux|exigences|obligations|conditions|exonérations|"
    r"délais|mesures|dispositions|seuils|procédures|formalités)\s+(?:\w+\s+)?s['’]appliqu\w*|"
    r"\bqu[ée]\s+(?:\w+\s+){0,2}(?:sanciones|multas|normas|reglas|tipos|requisitos|obligaciones|condiciones|"
    r"exenciones|plazos|medidas|disposiciones|umbrales|procedimientos)\s+(?:\w+\s+)?se\s+aplica\w*|"
    r"\bwelche\s+(?:\w+\s+){0,2}(?:sanktionen|strafen|bußgelder|geldbußen|regeln|vorschriften|sätze|steuersätze|"
    r"anforderungen|pflichten|bedingungen|voraussetzungen|befreiungen|fristen|maßnahmen|bestimmungen|schwellenwerte|"
    r"verfahren)\s+(?:\w+\s+)?(?:gilt|gelten)\b", _I)
# a unit headed by the act's scope ("Material scope", "Champ d'application"), not "Scope 3 GHG emissions"
SCOPE_HEADING_RE = re.compile(
    r"\b(?:scope|champ d['’]application|ámbito de aplicación|anwendungsbereich)\b(?!\s*\d)", _I)
SCOPE_HITS = 4  # passages searched among the scope units: the best one of each unit leads the hits


# "Who is exempt from DORA?", "Which entities are excluded?", "Who is not covered?", "Qui est exclu ?", "¿Quién está
# exento?", "Wer ist ausgenommen?": whom the act leaves out, not whom it covers
EXCLUSION_RE = re.compile(
    r"\b(?:exempt\w*|exclu(?!siv)\w*|not\s+(?:apply|covered|subject|in\s+scope)|outside\s+(?:the\s+|its\s+)?scope|"
    r"ne\s+s['’]appliqu\w*(?:-t-(?:il|elle|ils|elles))?\s+pas|pas\s+concern\w*|exent[oa]s?|excluid[oa]s?|"
    r"no\s+se\s+aplica\w*|ausgenommen|"
    r"befreit|(?:gilt|gelten)\b(?P<between>[^?.]{0,60})\bnicht|nicht\s+(?:anwendbar|erfasst))\b", _I)
# where an act says whom or what it leaves out: "This Regulation does not apply to:", "Member States may exclude from
# the scope of this Regulation ...", "shall not apply to", "ne s'applique pas"
NON_APPLICATION_RE = re.compile(
    r"\b(?:does\s+not\s+apply|shall\s+not\s+apply|not\s+be\s+applicable|may\s+exclude|excluded\s+from|"
    r"ne\s+s['’]appliqu\w*\s+pas|n['’]est\s+pas\s+applicable|exclu\w*\s+du\s+champ)\b", _I)


# "exempt from DORA", "excluded from the GDPR", "exclus du RGPD", "exento del RGPD", "von DORA ausgenommen": exempt from
# the act itself (not "exempt from keeping the record", "exempt from VAT"), read with the act's name next to it
EXEMPT_RE = re.compile(r"\b(?:exempt(?:ed)?\s+from|excluded\s+from|exempt[ée]e?s?\s+d[ue]|exclue?s?\s+d[ue]|"
                       r"exent[oa]s?\s+del?|excluid[oa]s?\s+del?|ausgenommen|befreit)\b", _I)
ACT_NEAR = 12  # characters between "exempt from" and the act's name ("the "), or the act's name and "ausgenommen"


# "When does DORA apply?", "Ab wann gilt die DSGVO?", "¿Desde cuándo se aplica el RGPD?": the date an act applies from
# (its final provisions), asked with nothing but the act's name besides these words (folded: no accents, lower case);
# "When does the GDPR apply to a shop outside the EU?" asks in which cases, an applicability question
WHEN_IT_APPLIES_WORDS = frozenset("""
    when from since as of does do did will shall the this it start starts begin begins apply applies applicable entered
    application become becomes be take effect enter into force
    quand partir depuis quelle date le la les l ce present presente s applique appliquent t il elle est sera
    applicable entre entree entrera vigueur en a de du
    cuando desde partir que fecha se aplica aplican aplicara es sera aplicable el la los entra vigor en a de del
    wann ab seit welchem datum gilt gelten galt ist wird die der das anwendbar anzuwenden tritt kraft in
""".split())
WHEN_OPENING_RE = re.compile(r"^\W*(?:(?:from|since|as of|à partir de|depuis|desde|a partir de|ab|seit)\s+)?"
                             r"(?:when|quand|cu[áa]ndo|wann)\b", _I)


def asks_when_it_applies(question: str) -> bool:
    """Whether the question asks from when an act it names applies, and nothing more."""
    text = " ".join(question.split())
    if not WHEN_OPENING_RE.search(text):
        return False
    words = words_besides_named_acts(text)
    return words is not None and all(word in WHEN_IT_APPLIES_WORDS for word in words)


def asks_applicability(question: str) -> bool:
    """Whether the question asks if (or to whom) an act applies (not which of its rules of a kind apply, nor from
    when it applies), or whom an act it names leaves out ("Who is exempt from DORA?")."""
    text = " ".join(question.split())
    if RULES_THAT_APPLY_RE.search(text) or asks_when_it_applies(text):
        return False
    return bool(APPLICABILITY_RE.search(text)) or _exempt_from_a_named_act(text)


def _exempt_from_a_named_act(text: str) -> bool:
    exempt = list(EXEMPT_RE.finditer(text))
    if not exempt:
        return False
    return any(0 <= mention.start - word.end() <= ACT_NEAR or 0 <= word.start() - mention.end <= ACT_NEAR
               for word in exempt for mention in load_catalog().mentions(text))


def asks_exclusion(question: str) -> bool:
    """Whether an applicability question asks whom (or what) the act leaves out rather than whom it covers."""
    return asks_applicability(question) and bool(EXCLUSION_RE.search(" ".join(question.split())))


def without_exclusion_frame(question: str) -> str:
    """The question without the words framing an exclusion ask and the names of the acts it names ("Who is exempt
    from DORA?" -> "Who is from ?"): what is left is its own subject, if any ("small companies", "record-keeping";
    "das Recht auf Löschung" between "gilt" and "nicht")."""
    without_acts = load_catalog().without_mentions(question)
    return EXCLUSION_RE.sub(lambda frame: f" {frame.group('between') or ''} ", without_acts)


def without_applicability_frame(question: str) -> str:
    """The question without the words asking whether something applies ("does ... cover", "are covered by",
    "s'applique", "gilt"; :data:`APPLICABILITY_RE`): "Which financial entities does DORA cover?" -> "Which financial
    entities DORA ?". What is left names whom or what the question is about."""
    return APPLICABILITY_RE.sub(lambda frame: f" {frame.group('subject') or ''} ", question)


def states_non_application(text: str) -> bool:
    """Whether a sentence says that the act (or a provision) does not apply to someone or something."""
    return bool(NON_APPLICATION_RE.search(text))


def scope_chunk_ids(chunks: Iterable[Chunk], titles: set[str]) -> list[str]:
    """The passages of the documents titled ``titles`` that belong to a unit headed by the act's scope."""
    return sorted(c.chunk_id for c in chunks
                  if c.title in titles and is_scope_heading(c.heading or c.ref))


def led_by_scope(question: str, sources: Sequence[Source]) -> bool:
    """An applicability question whose first passage is a scope article (put there by :func:`with_scope_hits`)."""
    return bool(sources) and asks_applicability(question) and is_scope_heading(sources[0].heading or sources[0].ref)


def is_scope_heading(heading: str) -> bool:
    """Whether a unit's heading says it is an act's scope ("Article 2 — Material scope"; not "Scope 3 emissions")."""
    return bool(SCOPE_HEADING_RE.search(_unit_heading(heading)))


def _unit_heading(heading: str) -> str:
    """The unit's own heading ("Article 2 — Material scope" -> "Material scope"; a path keeps its last step)."""
    return heading.split(" — ", 1)[-1].split("›")[-1]


def with_scope_hits(whole: Sequence[Source], scope_hits: Sequence[Source], unit_of: Callable[[Source], str],
                    k: int) -> list[Source]:
    """The whole question's top ``k`` hits led by the best passage of each scope unit (in the scope search's order;
    a passage of that unit already among the hits is moved up instead; the whole question's last hits make room)."""
    merged = list(whole[:k])
    leading: list[Source] = []
    for hit in scope_hits:
        unit = unit_of(hit)
        if any(unit_of(s) == unit for s in leading):
            continue
        held = next((s for s in merged if unit_of(s) == unit), None)
        if held is not None:
            merged.remove(held)
        leading.append(held or hit)
    return (leading + merged)[:k]
