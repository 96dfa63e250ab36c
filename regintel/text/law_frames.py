"""What a question asks, named in the law's own words where its everyday words name nothing the texts write.

"Where is a service to a business taxed?" asks for the place of supply ("Le lieu des prestations de services ... est
l'endroit où ..."), "What must an invoice say?" for the contents of invoices (the texts' "mentions ... doivent
figurer"). Retrieval searches such a question with that name too (:func:`regintel.retrieval.crosslingual.
with_the_laws_frame`), which the legal term list carries into the texts' language.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

# asks where a transaction is taxed: the law calls it the place of supply ("Where is a service supplied to a business
# taxed?", "In which country is VAT due on ...?", "Où est imposée une prestation ... ?", "¿Dónde tributa ...?", "Wo wird
# eine Dienstleistung besteuert?"); not where something is kept or sent ("Where must invoices be stored?")
WHERE_TAXED_RE = re.compile(
    r"(?:\bwhere\b|\b(?:in )?which (?:country|member state)\b).{0,120}?\b(?:taxed|taxable|supplied|"
    r"(?:vat|tax) (?:is |be )?(?:due|payable|charged|chargeable)|subject to (?:vat|tax))\b|"
    r"(?:\boù\b|\bdans quel (?:pays|état membre)\b).{0,120}?\b(?:imposée?s?|imposables?|taxée?s?|"
    r"soumise?s? à (?:la )?tva|(?:la )?tva (?:est )?due)\b|"
    r"(?:\bdónde\b|\ben qué (?:país|estado miembro)\b).{0,120}?\b(?:tributan?|se gravan?|gravad[oa]s?|"
    r"sujet[oa]s? (?:al|a) iva|se entiende(?:n)? (?:prestad|realizad|efectuad)[oa]s?)\b|"
    r"(?:\bwo\b|\bin welchem (?:land|mitgliedstaat)\b).{0,120}?\b(?:steuerbar|besteuert|versteuert|"
    r"zu versteuern|umsatzsteuerpflichtig|mehrwertsteuerpflichtig)\b", _I)

# asks what a document must contain, in everyday words: the law lists its contents ("seules les mentions suivantes
# doivent obligatoirement figurer ... sur les factures", "The notification ... shall at least: ..."). The document is
# the group "doc": "What must an invoice say?", "What has to be on an invoice?", "What information must an invoice
# include?", "Que doit contenir une facture ?", "¿Qué tiene que aparecer en una factura?", "Was muss auf einer
# Rechnung stehen?"
_ARTICLE = (r"(?:a|an|the|our|my|your|each|every|une?|les?|la|l['’]|nos|mes|vos|chaque|una?|el|los|las|nuestras?|"
            r"eine[mr]?|der|die|das|dem|den|unsere[mr]?|jede[mr]?)\s+")
_DETERMINER = f"(?:{_ARTICLE})?"
_REQUIRED_DETERMINER = _ARTICLE  # after "on" / "in": "What must be in place ...?" names no document
_DOCUMENT = r"(?P<doc>[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*){0,2}?)"
_EN_MUST = r"\bwhat\b(?:\s+\w+)?\s+(?:must|should|shall|has to|have to|needs? to|do (?:we|i|you) (?:have|need) to)\s+"
_ES_MUST = r"\bqué\s+(?:\w+\s+)?(?:debe|deben|tiene que|tienen que|hay que)\s+"
_END = r"\s*[?.]"
CONTENTS_ASKED_RES = {
    "en": [re.compile(_EN_MUST + _DETERMINER + _DOCUMENT
                      + r"\s+(?:contain|include|say|show|state|mention|list|specify)\b", _I),
           re.compile(_EN_MUST + r"(?:be\s+|go\s+|appear\s+|be (?:put|written|shown|stated|included)\s+|put\s+|"
                      r"write\s+|show\s+)(?:on|in)\s+" + _REQUIRED_DETERMINER + _DOCUMENT + _END, _I)],
    "fr": [re.compile(r"\b(?:que|quoi)\s+(?:doi(?:t|vent)|faut-il)(?:-on|-elle|-il)?\s+(?:contenir|indiquer|"
                      r"mentionner|mettre|faire figurer)\s+(?:sur\s+|dans\s+)?" + _DETERMINER + _DOCUMENT + _END, _I),
           re.compile(r"\b(?:qu['’]est-ce qui|quelles? (?:informations?|mentions?|données?))\s+"
                      r"(?:doi(?:t|vent)|faut-il)\s+(?:figurer|apparaître|être indiquée?s?|être mentionnée?s?)\s+"
                      r"(?:sur|dans)\s+" + _REQUIRED_DETERMINER + _DOCUMENT + _END, _I)],
    "es": [re.compile(_ES_MUST + r"(?:contener|incluir|indicar|mencionar|decir)\s+" + _DETERMINER + _DOCUMENT + _END,
                      _I),
           re.compile(_ES_MUST + r"(?:aparecer|figurar|constar|ir|poner)\s+en\s+" + _REQUIRED_DETERMINER + _DOCUMENT
                      + _END, _I)],
    "de": [re.compile(r"\bwas\s+(?:muss|müssen|sollte|sollten|soll)\s+" + _DETERMINER + _DOCUMENT
                      + r"\s+(?:enthalten|beinhalten|angeben|aufführen)\b", _I),
           re.compile(r"\bwas\s+(?:muss|müssen|sollte|soll)\s+(?:auf|in)\s+" + _REQUIRED_DETERMINER + _DOCUMENT
                      + r"\s+(?:stehen|enthalten sein|angegeben werden|aufgeführt werden)\b", _I)],
}
CONTENTS_OF = {"en": "contents of {doc}", "fr": "contenu des {doc}", "es": "contenido de {doc}", "de": "Inhalt der {doc}"}


def asks_where_taxed(question: str) -> bool:
    """Whether the question asks where a supply is taxed: its place of supply, in the law's words."""
    return bool(WHERE_TAXED_RE.search(question))


def contents_asked(question: str, language: str) -> str:
    """The law's way of naming what the question asks when it asks what a document must contain ("contents of
    invoice" for "What must an invoice say?"), in ``language``; "" when it asks nothing of the kind."""
    for pattern in CONTENTS_ASKED_RES.get(language, ()):
        match = pattern.search(question)
        if match:
            return CONTENTS_OF[language].format(doc=match.group("doc"))
    return ""


# a sentence leading in the cases in which something holds: "Processing shall be lawful only if and to the extent that
# at least one of the following applies:", "... shall in particular be required in the case of:", "... shall designate
# a data protection officer in any case where:", "Les États membres exonèrent ... lorsque les conditions suivantes sont
# remplies:"; the marker stands after the sentence's subject (a sentence opening "When assessing the adequacy ..., the
# Commission shall take account of the following elements:" says how, not in which cases)
CONDITIONS_LEAD_RE = re.compile(
    r"^\W*\S.*?\b(?:only (?:if|where|when)|if|where|provided that|on condition that|to the extent that|"
    r"in (?:any|the|all) cases? (?:of|where|in which)|in the following cases|"
    r"(?:uniquement |seulement )?(?:si|lorsque|lorsqu['’]|dès lors que|pour autant que)|à condition que|"
    r"dans (?:les|l['’]un des) cas|(?:sólo |solo |únicamente )?(?:si|cuando)|siempre que|en (?:los|el) casos?|"
    r"(?:nur )?(?:wenn|sofern|soweit|falls)|in (?:den|folgenden) fällen)\b", re.IGNORECASE | re.DOTALL)


def sets_conditions(text: str) -> bool:
    """Whether a sentence leads in the cases in which something holds (:data:`CONDITIONS_LEAD_RE`)."""
    return bool(CONDITIONS_LEAD_RE.search(text))


# asks in which cases a duty does not hold ("Are there cases where we don't have to tell them?", "Dans quels cas
# n'est-on pas obligé d'informer ... ?", "¿Cuándo no hace falta notificar ...?", "Wann muss man die Betroffenen nicht
# benachrichtigen?"): the answer is the sentence lifting the duty ("The communication to the data subject ... shall not
# be required if ..."), not the one laying it down, which shares more of the question's words. Not an exemption from a
# tax ("exempt from VAT" is a rule of its own, answered by the exempting list). So do the exceptions to a rule ("Are
# there exceptions?", "What are the exceptions to the right to erasure?", "Y a-t-il des dérogations ?", "¿Hay
# excepciones?", "Gibt es Ausnahmen?"), which the texts write as "shall not apply", "by way of derogation", seldom
# with the word
EXCEPTIONS_ASKED = (r"(?<!with the )(?<!à l['’])(?<!con )\bexceptions?\b|\bderogations?\b|\bdérogations?\b|"
                    r"\bexcepci(?:ón|on|ones)\b|\bausnahmen?\b")
EXCEPTIONS_ASKED_RE = re.compile(EXCEPTIONS_ASKED, _I)
NO_DUTY_ASKED_RE = re.compile(
    r"\b(?:(?:don['’]t|do not|doesn['’]t|does not|didn['’]t|not)\s+(?:\w+\s+)?(?:have|need|got)\s+to|need not|"
    r"needn['’]t|no need to|not\s+(?:be\s+)?(?:required|obliged|obligated|necessary|mandatory)\b|"
    r"(?:exempt(?:ed)?|released|relieved|dispensed)\s+from\s+(?!(?:the\s+)?(?:vat|tax|taxes)\b)\w+ing\b|"
    r"pas\s+(?:besoin|obligée?s?|tenue?s?|nécessaire|obligatoire)|dispens\w*\s+d[e'’]|"
    r"no\s+(?:\w+\s+)?(?:hace falta|es necesario|es obligatorio|tiene[ns]? que|tenemos que|tengo que|"
    r"est(?:á|án|amos|oy)\s+obligad[oa]s?)|"
    r"nicht\s+(?:notwendig|erforderlich|nötig|verpflichtet|müssen)|keine\s+pflicht|"
    r"(?:muss|müssen|musst|müsst)\s+(?:\w+\s+){0,6}nicht\b|(?:braucht|brauchen)\s+(?:\w+\s+){0,6}nicht|"
    + EXCEPTIONS_ASKED + r")", _I)
# where a text lifts a duty: "shall not be required", "shall not apply", "need not", "is not obliged", "n'est pas
# tenu", "ne s'applique pas", "peuvent dispenser"
NO_DUTY_STATED_RE = re.compile(
    r"\b(?:shall\s+not\s+(?:be\s+)?(?:required|obliged|necessary|apply)|(?:does|do)\s+not\s+apply|"
    r"(?:is|are)\s+not\s+(?:required|obliged)|need\s+not|not\s+be\s+applicable|(?:exempt(?:ed)?|released)\s+from|"
    r"by\s+way\s+of\s+derogation|"
    r"n['’](?:est|sont)\s+pas\s+(?:requise?s?|nécessaires?|tenue?s?|obligée?s?|applicables?)|"
    r"ne\s+s['’]appliqu\w*\s+pas|dispens\w*|par\s+dérogation)\b", _I)


def asks_where_no_duty(question: str) -> bool:
    """Whether the question asks in which cases a duty does not hold (:data:`NO_DUTY_ASKED_RE`)."""
    return bool(NO_DUTY_ASKED_RE.search(" ".join(question.split())))


def without_exception_words(question: str) -> str:
    """The question without the words asking for exceptions (:data:`EXCEPTIONS_ASKED_RE`), which the sentences stating
    them do not write: "Are there exceptions to the ban on solely automated decisions?" is about the ban."""
    return EXCEPTIONS_ASKED_RE.sub(" ", question)


def lifts_a_duty(text: str) -> bool:
    """Whether a sentence says that a duty does not hold, or in which cases it does not (:data:`NO_DUTY_STATED_RE`)."""
    return bool(NO_DUTY_STATED_RE.search(" ".join(text.split())))
