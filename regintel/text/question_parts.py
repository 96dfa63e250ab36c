"""The parts of a compound question: several questions in one message, "what must X do, and by when?", or the two
sides of a comparison ("the difference between X and Y"). The offline composer answers each part in its own shape
and retrieval searches each part too (:mod:`regintel.retrieval.compound_search`), so that the passage answering the
second part is not crowded out by the first part's."""

from __future__ import annotations

import re

from regintel.text.analysis import tokenize

_I = re.IGNORECASE
COMPARISON_RE = re.compile(
    r"\b(?:difference|differences|distinguish|differ|compare|comparison|contrast)\b.*?\bbetween (?P<a>.+?) and "
    r"(?P<b>.+?)\s*\??$|\b(?:différences?|distinguer|comparer)\b.*?\bentre (?P<c>.+?) et (?P<d>.+?)\s*\??$|"
    r"\b(?:diferencias?|distinguir|comparar)\b.*?\bentre (?P<e>.+?) y (?P<f>.+?)\s*\??$|"
    r"\b(?:unterschied\w*|unterscheid\w*|vergleich\w*)\b.*?\bzwischen (?P<g>.+?) und (?P<h>.+?)\s*\??$", _I)
# "How does X differ from Y?", "How do X compare with Y?", "En quoi X diffère-t-il de Y ?", "¿En qué se diferencia X
# de Y?", "Wie unterscheidet sich X von Y?": the sides stand around the verb, not after "between"
DIFFER_FROM_RES = [re.compile(p, _I) for p in (
    r"\b(?:how|in what ways?|where|why)\s+(?:does|do|did|would|will)\s+(?P<a>.+?)\s+(?:differ|compare)\s+"
    r"(?:from|with|to|against)\s+(?P<b>.+?)\s*\??$",
    r"\ben quoi\s+(?P<a>.+?)\s+(?:diff[èe]re(?:nt)?|se distingue(?:nt)?)(?:-t-(?:il|elle)|-(?:ils|elles))?\s+"
    r"(?:de la|de l['’]|des|du|de|d['’])\s*(?P<b>.+?)\s*\??$",
    r"\b(?:en qué|cómo)\s+se\s+(?:diferencia|diferencian|distingue|distinguen|compara|comparan)\s+(?P<a>.+?)\s+"
    r"(?:de|del|con|frente a)\s+(?P<b>.+?)\s*\??$",
    r"\b(?:wie|worin)\s+unterscheide[tn]\s+sich\s+(?P<a>.+?)\s+von\s+(?P<b>.+?)\s*\??$",
    r"\b(?:wie|worin)\s+unterscheiden\s+sich\s+(?P<a>.+?)\s+und\s+(?P<b>.+?)\s*\??$",
    r"\bhow\s+(?:is|are)\s+(?P<a>.+?)\s+different\s+(?:from|to|than)\s+(?P<b>.+?)\s*\??$",
    # "physical risks vs transition risks", "X versus Y - how do they differ?"
    r"^(?P<a>[^?]+?)\s+(?:vs\.?|versus)\s+(?P<b>[^?]+?)(?:\s*[-–—:,]\s+[^?]*\??|\s*\?)?$",
    # two terms, then the ask: "Recycling and reuse - what's the difference?", "X et Y : quelle différence ?",
    # "X y Y: ¿qué diferencia hay?", "X und Y: was ist der Unterschied?"
    r"^(?P<a>[^?]+?)\s+(?:and|et|y|und)\s+(?P<b>[^?]+?)\s*[-–—:,]\s*(?:what(?:['’]s| is| are) the differences?|"
    r"(?:quelle|quelles) (?:est la |sont les )?différences?|¿?qu[ée] diferencias?|was (?:ist|sind) (?:der|die) unterschied)",
    # "How does the ESRS tell apart X from Y?", "distinguer X de Y", "distinguir X de Y"
    r"\b(?:tells?|telling)\s+apart\s+(?P<a>.+?)\s+from\s+(?P<b>.+?)\s*\??$",
    r"\bdistinguish(?:es|ing)?\s+(?!between\b)(?P<a>.+?)\s+from\s+(?P<b>.+?)\s*\??$",
    r"\bdistingu(?:er|e-t-on|e)\s+(?!entre\b)(?P<a>.+?)\s+(?:de la|de l['’]|des|du|de|d['’])\s*(?P<b>.+?)\s*\??$",
    r"\bdistinguir\s+(?!entre\b)(?P<a>.+?)\s+(?:de la|del|de)\s+(?P<b>.+?)\s*\??$",
    # an instruction: "Compare X with Y.", "Comparez X avec Y", "Compara X con Y", "Vergleiche X mit Y"
    r"^(?:please\s+|can you\s+|could you\s+)?compare\s+(?P<a>.+?)\s+(?:with|to|against)\s+(?P<b>.+?)\s*[?.!]?$",
    r"^(?:please\s+|can you\s+|could you\s+)?compare\s+(?!.*\b(?:with|to|against)\b)(?P<a>.+?)\s+and\s+(?P<b>.+?)\s*[?.!]?$",
    r"^(?:pouvez-vous\s+)?compar(?:ez|er|e)\s+(?P<a>.+?)\s+(?:avec|et)\s+(?P<b>.+?)\s*[?.!]?$",
    r"^(?:¿?puedes\s+)?compar(?:a|e|ar)\s+(?P<a>.+?)\s+(?:con|y)\s+(?P<b>.+?)\s*[?.!]?$",
    r"^vergleiche[n]?\s+(?:Sie\s+)?(?P<a>.+?)\s+(?:mit|und)\s+(?P<b>.+?)\s*[?.!]?$",
    # whether two terms are one: "Is a processor the same as a third party?", "Un sous-traitant est-il la même chose
    # qu'un tiers ?", "¿Es un encargado lo mismo que un tercero?", "Ist ein Auftragsverarbeiter dasselbe wie ein Dritter?"
    r"^(?:is|are)\s+(?P<a>.+?)\s+(?:the\s+same(?:\s+thing)?|identical|equivalent)\s+(?:as|to)\s+"
    r"(?!(?:under|in|for|with|at|on|by|before|after)\b)(?P<b>.+?)\s*\??$",  # not "the same as under the old directive"
    r"^(?:est-ce qu['’]\s*)?(?P<a>.+?)\s+(?:est(?:-(?:il|elle))?|sont(?:-(?:ils|elles))?)\s+(?:la\s+même\s+chose|identiques?)\s+"
    r"(?:qu['’]|que\s+|à\s+)\s*(?P<b>.+?)\s*\??$",
    r"^¿?\s*(?:es|son)\s+(?P<a>.+?)\s+(?:lo\s+mismo|igual(?:es)?)\s+(?:que|a)\s+(?P<b>.+?)\s*\??$",
    r"^(?:ist|sind)\s+(?P<a>.+?)\s+(?:dasselbe|das\s+gleiche|gleich(?:bedeutend)?)\s+(?:wie|mit)\s+(?P<b>.+?)\s*\??$",
)]
# A question that sets two things against each other, whether or not its sides can be cut out ("How does ESRS treat
# these two situations differently?", "X, as opposed to Y", "par rapport à", "im Gegensatz zu", "dans chacun des deux
# cas"): its answer needs the article on each side (:func:`sets_two_things_against_each_other`)
CONTRAST_RE = re.compile(
    r"\b(?:differ\w*|difference\w*|distinguish\w*|compar\w*|versus|vs\.?|as opposed to|in contrast|unlike|"
    r"diff[ée]ren\w*|diff[èe]re\w*|distingu\w*|par rapport|contrairement|alors que|"
    r"diferencia\w*|frente a|a diferencia|en comparaci[óo]n|"
    r"unterschied\w*|unterscheid\w*|vergleich\w*|im gegensatz|gegenüber|"
    # "these two requests", "entre les deux cas", "en ambos casos", "in beiden Fällen": two things named as such
    r"(?:these|those|both|each of the)\s+two|(?:les|ces|chacun\w* des)\s+deux|"
    r"(?:los|las|estos|estas|ambos|ambas)\s+(?:dos\s+)?(?:casos|supuestos|situaciones|solicitudes)|"
    r"(?:die|diese|den)\s+beiden|in beiden|"
    # two things set side by side: "on the one hand ... on the other", "d'une part ... d'autre part", "por un lado ...
    # por otro", "einerseits ... andererseits"
    r"on the one hand|on the other hand|d['’]une part|d['’]autre part|por una parte|por otra parte|por un lado|"
    r"por otro lado|einerseits|andererseits)\b", _I)
SENTENCE_END_RE = re.compile(r"(?<=[?.!])\s+(?=\S)")
_DASH = r"\s+[-–—]\s+"  # a dash between spaces sets off what follows ("X vs Y – who else?"); a hyphen does not


def sentences(question: str) -> list[str]:
    """The question's sentences, whitespace collapsed (a situation told, then what is asked)."""
    return SENTENCE_END_RE.split(" ".join(question.split()))


def asking_sentences(question: str) -> list[str]:
    """The sentences of the question that end with a question mark (not the situation told before them)."""
    return [s for s in sentences(question) if s.rstrip().endswith("?")]


def asking_sentence(question: str) -> str:
    """The last sentence of the question that ends with a question mark ("" when none does)."""
    asked = asking_sentences(question)
    return asked[-1] if asked else ""

# a further ask coordinated after the second side ("..., y en qué país puede hacer cada una?", "... – wer kann was
# verlangen?") is not part of it, nor
# is the situation a clause after it sets ("... differ from the 'VAT unit' criterion when deciding whether ...")
SIDE_TAIL_RE = re.compile(rf",\s+(?:and|or|et|ou|y|e|o|und|oder)\s+.*$|{_DASH}.*$|"
                          r",?\s+(?:when|whenever|if|whether|lorsque|lorsqu['’]|quand|cuando|wenn|falls)\b.*$", _I)
_ASK_WORDS = {
    "en": r"(?:by when|when|what|which|how|who|whom|whether|where|within|is|are|does|do|did|must|can|could|should|"
          r"shall|may|has|have|in which|in what|on which|under which|under what|for which|for how long|to whom)",
    "fr": r"(?:quand|quel|quelle|quels|quelles|comment|qui|que|qu['’]|dans quel|dans quels|dans quelle|combien|"
          r"de combien|doit|doivent|peut|peuvent|faut-il|est-ce|où|à partir|à qui|pour quel|pendant combien)",
    "es": r"(?:cuándo|qué|cuál|cuáles|cómo|quién|quiénes|en qué|cuánto|cuántos|cuánta|debe|deben|puede|pueden|hay|dónde|"
          r"hasta|desde|en cuáles|a quién|por cuánto|durante cuánto)",
    "de": r"(?:wann|was|welche|welcher|welches|wie|wer|bis wann|innerhalb|muss|müssen|kann|können|gibt|wo|ab wann|"
          r"in welchen|unter welchen|für wie lange|an wen)",
}
_CONJUNCTIONS = {"en": r"(?:and|or)", "fr": r"(?:et|ou)", "es": r"(?:y|e|o)", "de": r"(?:und|oder)"}
# an ask opened by a preposition and an interrogative ("and on what amount?", "et de quels documents", "y a qué tipo",
# "und ab welchem Alter"), or by a verb before its subject ("et pouvons-nous", "und müssen wir")
_PREPOSED_ASKS = {
    "en": r"(?:on|at|from|for|to|in|by|under|with|of|after|before|until|up to)\s+(?:what|which|whom|how)",
    "fr": r"(?:(?:de|d['’]|sur|à|pour|par|dans|en|avec|sous|selon|jusqu['’]à|après|avant)\s*(?:quel|quelle|quels|quelles|"
          r"qui|quoi|combien|lequel|laquelle|lesquels|lesquelles)|[\wàâçéèêëîïôûùüÿœ]+-(?:t-)?(?:nous|on|il|elle|ils|elles|vous)|"
          r"y a-t-il|existe-t-il|"
          # a subject, then its verb asking ("et l'exonération peut-elle couvrir ...?", "et ce délai court-il ...?")
          r"(?:l['’]|le\s|la\s|les\s|ce\s|cet\s|cette\s|ces\s|leur\s|leurs\s|son\s|sa\s|ses\s|notre\s|nos\s)"
          r"[^,;.!?]{0,60}?[\wàâçéèêëîïôûùüÿœ]+-(?:t-)?(?:il|elle|ils|elles)\b)",
    "es": r"(?:(?:de|a|en|sobre|por|para|con|bajo|hasta|desde|según)\s+(?:qué|cuál|cuáles|quién|quiénes|cuánto|cuánta|"
          r"cuántos|cuántas|dónde|cuándo)|podemos|debemos|tenemos|hay que|se puede|se debe|es|son|está|están)",
    "de": r"(?:(?:ab|auf|für|in|mit|nach|bei|unter|von|bis|an|aus|zu|gegen|über)\s+(?:welche|welcher|welches|welchem|"
          r"welchen|wen|wem|was|wann|wie)|wo(?:r)?(?:auf|für|zu|mit|nach|bei|von|an|aus|über)|dürfen|darf|sollen|soll|"
          r"ist|sind|hat|haben|gilt|gelten|brauchen|benötigen)",
}
# (the latter only in the sentence that asks: told sentences before it, "Wir sind ein Softwarehaus und haben ...",
# are not asks)
# "X, and if so, what ...?", "..., et si oui, qu'est-ce que ...?", "... y, en caso afirmativo, qué ...?", "... und wenn
# ja, was ...?": the second ask follows the condition on the first's answer
_IF_SO = {"en": r"(?:if so|if yes|if that is the case|in that case)",
          "fr": r"(?:si oui|si c['’]est le cas|dans ce cas|dans l['’]affirmative)",
          "es": r"(?:en caso afirmativo|si es así|en ese caso|si así fuera)",
          "de": r"(?:wenn ja|falls ja|in diesem fall|gegebenenfalls)"}
# "X, and if the assessment shows a high risk, what ...?", "..., and once it is major, what ...?", "..., et si nous
# passons par l'OSS, quand ...?": a clause setting the condition of the second ask, which stays with that ask (its
# words are what the second ask is about: the high risk of Article 36's prior consultation)
_CONDITIONS = {"en": r"(?:once|if|when|where|after|before|unless|provided)",
               "fr": r"(?:une fois|si|s['’]il|s['’]ils|lorsque|lorsqu['’]|quand|dès que|dès lors que|après|avant)",
               "es": r"(?:una vez|si|cuando|después de|antes de|en cuanto)",
               "de": r"(?:wenn|falls|sobald|nachdem|bevor|sofern)"}
_CONDITION_CLAUSE = {lang: rf"{words}\b[^,;.!?]{{1,80}},\s*" for lang, words in _CONDITIONS.items()}
_ASK_AHEAD = {lang: rf"(?:{_ASK_WORDS[lang]}\b|(?:{_PREPOSED_ASKS[lang]})\b[^.!?]*\?)" for lang in _ASK_WORDS}
# (a dash sets off a second ask too: "How do X relate to Y - can a country rely on Z instead?")
SPLIT_RES = {lang: re.compile(rf"(?:,?\s+{_CONJUNCTIONS[lang]}(?:\s*,?\s*{_IF_SO[lang]}\s*,?)?"
                              # "y, una vez registrados, qué ...": a comma after the conjunction only before a condition
                              # *and* its ask ("and, where possible, the individuals?" asks nothing more: "where" is
                              # no ask there)
                              rf"(?:\s*,\s*(?={_CONDITION_CLAUSE[lang]}{_ASK_AHEAD[lang]})|"
                              rf"\s+(?=(?:{_CONDITION_CLAUSE[lang]})?{_ASK_AHEAD[lang]}))|"
                              rf"{_DASH}(?={_ASK_AHEAD[lang]}))", _I)
             for lang in _ASK_WORDS}


def comparison_sides(question: str) -> list[str]:
    """The two sides of a comparison ("the difference between X and Y", "how does X differ from Y" -> X, Y), in the
    question or in one of its sentences (a case told first, then "how do our duties differ between X and Y? ..."); a
    further ask coordinated after the second side is left out of it. Empty when it compares nothing."""
    text = " ".join(question.split())
    for sentence in dict.fromkeys([*sentences(text), text]):  # each sentence, then the whole question
        comparison = COMPARISON_RE.search(sentence) or next(filter(None, (p.search(sentence) for p in DIFFER_FROM_RES)),
                                                            None)
        sides = [g for g in comparison.groups() if g] if comparison else []
        if len(sides) == 2:
            sides = [sides[0], SIDE_TAIL_RE.sub("", sides[1]).strip()]
            if all(1 <= len(s.split()) <= 12 and "?" not in s for s in sides):
                return sides
    return []


# what a comparison "between X and Y" compares the two on: the subject of "how does <topic> differ between", or what
# follows "the differences in <topic> between" (each language's form)
COMPARISON_TOPIC_RES = [re.compile(p, _I) for p in (
    r"\b(?:how|in what ways?|where)\s+(?:does|do|did|would|will|can|could|might)\s+(?P<t>.+?)\s+"
    r"(?:differ|compare|vary|change)\s+between\s",
    r"\bdifferences?\s+(?:in|of|regarding|as regards)\s+(?P<t>.+?)\s+between\s",
    r"\bdifférences?\s+(?:de|d['’]|en matière de|quant à|dans)\s*(?P<t>.+?)\s+entre\s",
    r"\b(?:en qué|cómo)\s+se\s+(?:diferencia|diferencian|distingue|distinguen)\s+(?P<t>.+?)\s+entre\s",
    r"\bdiferencias?\s+(?:de|en)\s+(?P<t>.+?)\s+entre\s",
    r"\b(?:wie|worin)\s+unterscheide[tn]\s+sich\s+(?P<t>.+?)\s+zwischen\s",
    r"\bunterschied\w*\s+(?:bei|in|im|hinsichtlich)\s+(?P<t>.+?)\s+zwischen\s",
)]
MIN_TOPIC_TERMS = 2  # "How do our obligations differ between ...": one word is no rule to search the sides with


def comparison_topic(question: str, language: str) -> str:
    """What a comparison "between X and Y" compares the two on, when it says so ("How does *the general
    place-of-supply rule for services* differ between a business customer and a private individual?", "the
    differences *in reporting deadlines* between ..."): its sides are then the cases that rule applies to, not terms
    to define. Empty for "What is the difference between X and Y?"."""
    text = " ".join(question.split())
    for pattern in COMPARISON_TOPIC_RES:
        found = pattern.search(text)
        if found:
            words = found.group("t").split()
            while words and not tokenize(words[0], language):  # a leading determiner ("the VAT treatment")
                words.pop(0)
            topic = " ".join(words)
            return topic if len(set(tokenize(topic, language))) >= MIN_TOPIC_TERMS else ""
    return ""


def split_question(question: str, language: str) -> list[str]:
    """The coordinated asks of a question: several questions in one message, "X, and by when?", or the two sides of a
    comparison ("the difference between X and Y" -> X, Y). One part when nothing splits."""
    text = " ".join(question.split())
    sides = comparison_sides(text)
    if sides:
        return sides
    parts = [p.strip() for p in re.split(r"(?<=\?)\s+(?=\S)", text) if p.strip()]
    splitter = SPLIT_RES.get(language, SPLIT_RES["en"])
    out: list[str] = []
    for part in parts:
        pieces = [p.strip(" ,;") for p in splitter.split(part) if p.strip(" ,;")]
        out.extend(pieces if len(pieces) > 1 else [part])
    return out


def sets_two_things_against_each_other(question: str) -> bool:
    """Whether the question compares or contrasts, whether or not its two sides can be cut out of it ("How does ESRS
    treat these two situations differently?", "X as opposed to Y", "par rapport à", "im Gegensatz zu"): its answer
    usually needs the article on each side."""
    return bool(CONTRAST_RE.search(question))


SIDE_DETERMINER_RE = re.compile(
    r"^(?:(?:an?|the|les?|la|l['’]|une?|des|du|de la|el|los|las|una?|der|die|das|den|dem|ein|eine|einem|einen|einer)"
    r"\s+)+", _I)
# what a side adds after its term about where it is defined: "under the GDPR", "for VAT purposes", "dans le RGPD", "au
# sens des ESRS", "nach DORA", "en las ESRS" (an act's acronym)
SIDE_ACT_TAIL_RE = re.compile(
    r"\s+(?:under|in|for|within|according to|au sens d\w*|selon|dans|en|pour|aux fins d\w*|nach|gemäß|im sinne d\w*|"
    r"in der|según|a efectos d\w*|para)\s+(?:the |le |la |les |l['’]|el |los |las |der |die |das |des |del )?"
    r"[A-Z]{2,}\b.*$")
MAX_SIDE_TERM_WORDS = 4  # "ICT third-party service provider"; a longer side says more than a term


def side_term(side: str) -> str:
    """The term a side of a comparison names ("a controller" -> controller, "a third party under the GDPR" -> third
    party); empty when the side says more than a term ("the full framework that most financial entities must
    have")."""
    term = SIDE_DETERMINER_RE.sub("", SIDE_ACT_TAIL_RE.sub("", side.strip(" ,;.:"))).strip()
    return term if term and len(term.split()) <= MAX_SIDE_TERM_WORDS else ""
