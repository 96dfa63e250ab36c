"""The term a question asks about ("What is a 'personal data breach'?", "which one is its 'main establishment'?",
"Qu'entend-on par « assujetti » ?"), in English, French, Spanish and German.

Read by the offline composer (a definition answers with the defining sentence), the evidence grade (the passage
defining the asked term anchors an answer) and the learned ranker (a feature: the candidate defines it).
"""

from __future__ import annotations

import re

from regintel.text.back_references import STANDING_PRONOUNS

_I = re.IGNORECASE
# where a German question's term ends: at the act it is read in ("nach der DSGVO", "gemäß", "laut", "im Sinne der",
# "in der", "in den", "in dem", "im"), or at the question mark
_DE_END = r"(?:\?|$| nach | gemäß | laut | im sinne| in der | in den | in dem | im )"
# after "who is": a role borne or a duty, not a term ("liable", "responsible", a participle, a preposition: "für uns");
# not the French and Spanish "responsable", which opens the controller's name ("responsable du traitement")
_ROLE_WORDS = (r"(?:liable|responsible|accountable|competent|eligible|exempt|subject|bound|in charge|\w+ed\b|"
               r"redevable|tenue?s?\b|compétente?s?\b|habilitée?s?\b|exonérée?s?\b|soumise?s?\b|"
               r"obligée?s?\b|autorisée?s?\b|competentes?|obligad[oa]s?|exent[oa]s?|"
               r"verantwortlich|zuständig|haftbar|verpflichtet|befreit|für|fuer|zu|von)\b")
DEFINITION_TERM_RES = [re.compile(p, _I) for p in (
    r"\bwhat (?:exactly )?(?:does|do) (?:the (?:term|expression|notion|concept) )?(?P<t>.+?) (?:mean(?! by\b)|refer to|cover)\b",
    r"\bhow (?:does|do|is|are) .{0,60}?\bdefin\w* (?:the (?:term|notion|concept) )?(?P<t>.+?)(?:\?|$| under | in the | for the )",
    r"\bhow (?:is|are) (?P<t>.+?) defined\b",
    r"\b(?:definition|meaning) of (?:the (?:term|notion|concept) )?(?P<t>.+?)(?:\?|$| under | in the | for the | according)",
    r"\bwhat is meant by (?:an? |the )?(?P<t>.+?)(?:\?|$| under | in the | for the | according)",
    r"\b(?:what|who) (?:counts|qualifies) as (?:an? |the )?(?P<t>.+?)(?:\?|$| under | in the | for the | according)",
    r"\b(?:what|who) is (?:considered|regarded as|deemed) (?:to be )?(?:an? |the )?(?P<t>.+?)(?:\?|$| under | in the | for the | according)",
    r"\bdefine (?:an? |the )?(?P<t>.+?)(?:\?|$| under | in the | for the | according)",
    r"\bwhat (?:is|are) (?:an? |the )?(?P<t>.+?)(?:\?|$| under | in the | in | for the | according)",
    # who bears a role ("Who is liable to pay the VAT?", "qui est redevable", "wer ist für uns zuständig") is no term
    rf"\bwho (?:is|are) (?!{_ROLE_WORDS})(?:an? |the )?(?P<t>.+?)(?:\?|$| under | in the | for the | according)",
    r"\b(?:qu['’]entend-on|que (?:faut-il|doit-on) (?:entendre|comprendre)) par (?:une? |les? |la |l['’])?(?P<t>.+?)"
    r"(?:\?|$| au sens| selon| dans | en matière)",
    r"\bque (?:signifie|désigne|veut dire) (?:une? |les? |la |l['’])?(?P<t>.+?)(?:\?|$| au sens| selon| dans )",
    r"\bqu['’]est-ce qu['’](?!(?:il|ils|elle|elles|on(?! appelle))\b)(?:une? |on appelle )?(?:les? |la |l['’])?(?P<t>.+?)(?:\?|$| au sens| selon| dans | en matière)",
    # "Qu'est-ce que la pseudonymisation ?": a noun phrase of at most three words closing the question ("Qu'est-ce que
    # l'OSS permet de faire ?" asks what a thing does, "Qu'est-ce que nous devons faire ?" is no definition question)
    r"\bqu['’]est-ce que (?!(?:je|j['’]|tu|il|ils|elle|elles|on|nous|vous|ce|cela|ça)\b)(?:les? |la |l['’])?(?P<t>[^?\s]+(?:\s+[^?\s]+){0,2}?)\s*(?:\?|$| au sens| selon| dans | en matière)",
    r"\bdéfinition (?:de |du |des |d['’])(?:la |l['’])?(?P<t>.+?)(?:\?|$| au sens| selon| dans )",
    rf"(?<!\bce )\bqui est (?!{_ROLE_WORDS})(?:un |une |le |la |l['’])?(?P<t>.+?)(?:\?|$| au sens| selon| dans | en matière)",
    r"\bqué (?:se entiende por|significa|se considera) (?:una? |el |la |los |las )?(?P<t>.+?)(?:\?|$| según| en el | en la | a efectos)",
    # the spoken "C'est quoi un mécanisme de réclamation ?" (a noun phrase of at most three words, as for "qu'est-ce
    # que": "C'est quoi le problème avec notre facture ?" asks about no term), and "Was gilt als ...?" below
    r"\bc['’]est quoi (?:une? |les? |la |l['’])?(?P<t>[^?\s]+(?:\s+[^?\s]+){0,2}?)\s*(?:\?|$| au sens| selon| dans | en matière)",
    r"\bqué (?:es|son) (?:una? |el |la |los |las )?(?P<t>.+?)(?:\?|$| según| en el | en la | a efectos)",
    rf"\bquién (?:es|son) (?!{_ROLE_WORDS})(?:una? |el |la |los |las )?(?P<t>.+?)(?:\?|$| según| en el | en la | a efectos)",
    r"\bdefinición de (?:una? |el |la |los |las )?(?P<t>.+?)(?:\?|$| según| en el | en la | a efectos)",
    r"\bwas (?:bedeutet|versteht man unter|heißt) (?:ein |eine |einem |einer |einen |der |die |das |den |dem )?(?P<t>.+?)" + _DE_END,
    # the act as the one meaning it: "What does DORA mean by ...?", "Qu'entend le RGPD par ... ?", "¿Qué entiende DORA
    # por ...?", "Was versteht die DSGVO unter einem ...?"
    r"\bwhat (?:does|do) (?:the )?[\w-]+(?: [\w-]+){0,3} (?:exactly )?mean by (?:an? |the )?(?P<t>.+?)(?:\?|$| under | in the | for the )",
    r"\bqu['’]entend(?:ent)? (?!-on\b)(?:le |la |les |l['’])?[\w-]+(?: [\w-]+){0,3} (?:exactement )?par (?:une? |les? |la |l['’])?(?P<t>.+?)(?:\?|$| au sens| selon| dans )",
    r"\bqué entiende(?:n)? (?:el |la |los |las )?[\w-]+(?: [\w-]+){0,3} (?:exactamente )?por (?:una? |el |la |los |las )?(?P<t>.+?)(?:\?|$| según| en el | en la | a efectos)",
    r"\bwas versteh(?:t|en) (?!man\b)(?:der |die |das |den )?[\w-]+(?: [\w-]+){0,3} (?:genau )?unter (?:einem |einer |einen |ein |eine |dem |der |den |die |das )?(?P<t>.+?)" + _DE_END,
    r"\bwas (?:ist|sind) (?:ein |eine |der |die |das )?(?P<t>.+?)" + _DE_END,
    rf"\b(?:wer (?:ist|gilt als)|was gilt als) (?!{_ROLE_WORDS})(?:ein |eine |der |die |das )?(?P<t>.+?)" + _DE_END,
    r"\bwie (?:definiert|bestimmt) .{0,40}?(?:den begriff |die |den |das |der )?(?P<t>.+?)(?:\?|$)",
)]
QUOTED_TERM_RE = re.compile(r"(?<!\w)[‘'\"“«]\s*([^’'\"”»]{2,80}?)\s*[’'\"”»](?!\w)")  # not the ' of qu'un


def asked_term(text: str) -> str:
    """The term a question asks about: a definition question's ("What is a 'personal data breach'?"), else a short
    quoted term ("which one is its 'main establishment'?"); empty when it asks about none."""
    term = definition_term(text)
    if term:
        return term
    quoted = QUOTED_TERM_RE.search(text)
    return quoted.group(1).strip() if quoted and len(quoted.group(1).split()) <= 6 else ""


PURPOSE_TAIL_RE = re.compile(
    r"\s+(?:for (?:the )?(?:[\w-]+ ){0,2}purposes?\b|aux fins\b|à des fins\b|pour les besoins\b|a (?:los )?efectos\b|"
    r"para fines\b|für (?:die )?zwecke\b|im sinne\b).*$", _I)
# the tax or act the term belongs to, by its abbreviation, closing the term: "taxable person for VAT", "assujetti à la
# TVA", "sujeto pasivo del IVA", "Steuerpflichtiger für die MwSt" (not a place, "a member of the EU", nor a thing, "a
# copy of an ID")
ABBREVIATION_TAIL_RE = re.compile(
    r"\s+(?:for|under|in|à la|au|de la|du|del|en|für die|der|nach)\s+(?:the\s+|l['’]\s*)?"
    r"(?!(?-i:EU|UE|EC|CE|EEA|EWR|UK|US|ID)\b)(?-i:[A-Z]{2,6}|MwSt|USt)\s*$", _I)


# "What is the threshold for distance sales?", "¿Qué es el plazo para presentar ...?": the value a rule sets, not what
# a term means
VALUE_OF_RE = re.compile(
    r"^(?:(?:standard|reduced|minimum|maximum|applicable|current)\s+)?(?:threshold|rate|deadline|time limit|period|"
    r"amount|limit|ceiling|cap|fine|penalty|percentage|number|seuil|taux|délai|montant|plafond|plazo|umbral|tipo|"
    r"importe|límite|schwellenwert|frist|betrag|höchstbetrag|satz|steuersatz)\s+(?:for|of|on|to|applicable|de|du|des|"
    r"d['’]|pour|para|del|für|von|bei)\b", _I)


# a "term" opening with a pronoun or a possessive stands for something said before ("What are their tasks?", "What
# does it cover?", "Qu'est-ce que ce mécanisme ?"): the question asks about that, not what a term means
POINTING_BACK_RE = re.compile(
    r"(?:it|its|they|them|their|this|that|these|those|his|her|il|elle|ils|elles|leur|leurs|son|sa|ses|ce|cet|cette|"
    r"ces|cela|ça|su|sus|ello|esto|eso|este|esta|estos|estas|él|ella|es|sein|seine|seiner|ihr|ihre|ihrer|dies|diese|"
    r"dieser|dieses)\b", _I)


def definition_term(text: str) -> str:
    """The term a definition question asks about ("What is a 'personal data breach'?" -> personal data breach); none
    when it asks for the value a rule sets ("What is the threshold for distance sales of goods?": the threshold, not
    what a distance sale is)."""
    quoted = QUOTED_TERM_RE.search(text)
    for pattern in DEFINITION_TERM_RES:
        match = pattern.search(text)
        if match:
            if quoted:
                return quoted.group(1).strip()
            term = match.group("t").strip(" ?¿!.,;:\"'‘’“”«»")
            term = LEADING_ARTICLE_RE.sub("", term)
            if VALUE_OF_RE.search(term) or POINTING_BACK_RE.match(term):
                return ""
            term = PURPOSE_TAIL_RE.sub("", term)  # "carbon credit for ESRS purposes" -> carbon credit
            term = ABBREVIATION_TAIL_RE.sub("", term)  # "taxable person for VAT" -> taxable person
            if 0 < len(term.split()) <= 8:
                return term
    return ""


# how a follow-up asking the previous question of something else opens (see puts_another_in_its_place), and the question
# words that make it ask another aspect instead
IN_ITS_PLACE_OPENERS = {
    "en": r"and|what about|how about", "fr": r"et|qu['’]en est-il", "es": r"y",
    "de": r"und|was ist mit|wie (?:sieht|steht) es mit",
}


def _opening(*languages: str) -> re.Pattern[str]:
    return re.compile(r"^\W*(?:" + "|".join(IN_ITS_PLACE_OPENERS[language] for language in languages) + r")\b", _I)


IN_ITS_PLACE_RE = _opening(*IN_ITS_PLACE_OPENERS)
QUESTION_WORD_RE = re.compile(
    r"\b(?:who|whom|whose|when|where|how|what|which|why|qui|quand|comment|où|quel|quelle|quels|quelles|pourquoi|"
    r"combien|que|quoi|quién|quiénes|cuándo|cómo|dónde|cuál|cuáles|por qué|cuánto|cuánta|cuántos|cuántas|qué|wer|wem|"
    r"wen|wann|wie|was|wo|welche|welcher|welches|welchen|warum|wieso|weshalb)\b", _I)
# what stands in the place of the term is a case, not a term ("And if the client is a private individual?")
CASE_RE = re.compile(r"\b(?:if|when|where|si|lorsque|quand|cuando|wenn|falls|sofern)\b", _I)
# an article before a term ("a processor", "l'assujetti", "unter einer Einwilligung")
LEADING_ARTICLE_RE = re.compile(
    r"^(?:a|an|the|un|une|le|la|les|l['’]|des|el|los|las|ein|eine|einen|einer|einem|eines|der|die|das|den|dem)\s+",
    _I)
GERMAN_OPENING_RE = _opening("de")
ONE_RE = re.compile(r"\s*\bones?$", _I)
MAX_TERM_WORDS = 6


def puts_another_in_its_place(question: str) -> bool:
    """A follow-up asking the previous question again of something else, with no question word of its own: "And to
    the data subjects?" (after who must be told of a breach), "What about the processor?", "Et pour les petits
    montants, on peut ... ?", "¿Y si el cliente es un particular?", "Und wenn der Kunde vorher zahlt?". (Not "And by
    when?": another aspect of the same thing.)"""
    return bool(IN_ITS_PLACE_RE.search(question)) and not QUESTION_WORD_RE.search(IN_ITS_PLACE_RE.sub(" ", question))


def asked_of_another_term(question: str, previous_question: str) -> str:
    """The previous definition question asked again of the term this follow-up puts in its place: "And a processor?"
    after "What is a controller?" is "What is a processor?", "And impact materiality?" after "What is double
    materiality?" is "What is impact materiality?". "" when the previous question asked what no term means, or the
    follow-up names a case rather than a term ("And if it is late?"). Searched and answered as that question: with the
    previous term it found the previous definition again."""
    term = definition_term(previous_question)
    if not term or not puts_another_in_its_place(question):
        return ""
    other = IN_ITS_PLACE_RE.sub("", question).strip(" ?¿!.,;:")
    other = LEADING_ARTICLE_RE.sub("", other)
    if not other or CASE_RE.search(other) or len(other.split()) > MAX_TERM_WORDS:
        return ""
    if all(word.lower() in STANDING_PRONOUNS for word in other.split()):
        return ""  # "What about them?" refers back to something named, it puts no term in the defined one's place
    if ONE_RE.search(other):  # "And a critical one?": the term, qualified
        other = f"{ONE_RE.sub('', other)} {term}".strip()
    elif GERMAN_OPENING_RE.match(question) and not any(word[:1].isupper() for word in other.split()):
        other = f"{other} {term}"  # "Und ein kritischer?": German writes nouns capitalised, this qualifies the term
    start = previous_question.lower().find(term.lower())
    if start < 0:
        return ""
    return previous_question[:start] + other + previous_question[start + len(term):]
