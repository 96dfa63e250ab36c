"""Retrieval for questions about an act as a whole: "What is DORA?", "What is the purpose of the GDPR?",
"Qu'est-ce que la directive TVA ?", "¿Cuál es el objeto del RGPD?", "Was regelt die DSGVO?".

Such a question names the act and nothing else, and the act answers it in its opening provision: "Article 1 —
Subject matter" ("In order to achieve a high common level of digital operational resilience, this Regulation lays
down uniform requirements ..."), "Subject-matter and objectives", the VAT Directive's "Article 1" ("La présente
directive établit le système commun de taxe sur la valeur ajoutée"), ESRS 1's "Objective". Searched like any
question, its one content word (the act's name) reaches every passage that repeats the name or the act's recurring
words: "What is the purpose of DORA?" quoted Article 9's "For the purposes of the first subparagraph, point (b)";
"What is DORA?" was too vague to search for (one content word); "Qu'est-ce que la directive TVA ?" quoted Article 171
on refunds "déterminées par la directive 86/560/CEE". So when a question asks what a named act is (the words left
once the act's name is taken out are all question and overview words: what, purpose, objective, subject matter,
regulate, qu'est-ce que, objet, finalité, Zweck, Gegenstand ...), the passages of the act's opening unit lead the
hits; the evidence grade and the offline composer then answer from it (like an applicability question from the
act's scope). The opening unit is the act's first one headed by its subject matter or objective (or its first
article), not the closest by meaning: asked "What are the ESRS?", a search among the standards' "Objective"
sections found ESRS E1's, whose text names every other standard.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from regintel.retrieval.chunking import Chunk
from regintel.retrieval.instruments import InstrumentCatalog, load_catalog
from regintel.text.normalise import fold

# a unit headed by what the act is for: "Subject matter", "Subject-matter and objectives", "Objective" (ESRS), "Objet",
# "Objeto", "Gegenstand" (a heading, not a definition of "objets d'art")
OPENING_HEADING_RE = re.compile(
    r"^\s*(?:subject[- ]matter|objectives?|objet|objectifs?|objeto|objetivos?|gegenstand|ziele?)\b", re.IGNORECASE)
# the act's first article, whatever its heading: "Article 1", "Article premier", "Artículo 1", "Artikel 1"
FIRST_ARTICLE_RE = re.compile(r"^\s*(?:article|artículo|artikel|articolo|art\.)\s*(?:1(?!\d)|premier\b|1er\b)",
                              re.IGNORECASE)
# the words a question about an act as a whole is made of, besides the act's name (folded: no accents, lower case)
OVERVIEW_WORDS = frozenset("""
    what whats is are was the a an of about this that its it does do regulate regulates govern governs lay lays down
    purpose purposes aim aims goal goals objective objectives subject matter main overall general tell me explain
    briefly brief summary summarise summarize overview in short nutshell for why act regulation directive law
    require requires requirements obligations rules key principal core impose imposes set sets out under
    qu est ce que quoi quel quelle quels quelles le la les l de du des un une objet objectif objectifs but buts
    finalite sert a regle regit reglemente porte sur present presente reglement loi texte en resume
    sont exige impose principales principaux grandes obligations exigences regles selon
    que es son el los las del objeto objetivo objetivos finalidad para sirve regula trata cual cuales reglamento
    directiva ley exige impone principales obligaciones requisitos normas segun
    was ist sind die der das den dem des zweck ziel ziele gegenstand regelt geht es worum um wozu dient verordnung
    richtlinie gesetz verlangt fordert wichtigsten wesentlichen pflichten anforderungen vorschriften nach gemass
""".split())


def words_besides_named_acts(question: str, catalog: InstrumentCatalog | None = None) -> list[str] | None:
    """The question's words (folded) once the names of the acts it names are taken out; None when it names none."""
    catalog = catalog or load_catalog()
    mentions = catalog.mentions(question)
    if not mentions:
        return None
    rest, last = [], 0
    for mention in sorted(mentions, key=lambda m: m.start):
        rest.append(question[last:mention.start])
        last = max(last, mention.end)
    rest.append(question[last:])
    return re.findall(r"\w+", fold(" ".join(rest)))


def asks_about_the_act(question: str, catalog: InstrumentCatalog | None = None) -> bool:
    """Whether the question asks what an act it names is, is for or regulates, and nothing more."""
    words = words_besides_named_acts(question, catalog)
    return words is not None and all(word in OVERVIEW_WORDS for word in words)


# the unit saying from when the act applies: "Entry into force and application" (GDPR Article 99, DORA Article 64),
# "Transposition et entrée en vigueur" (the VAT Directive's closing chapter), "Inkrafttreten", "Entrada en vigor"
APPLICATION_HEADING_RE = re.compile(r"\b(?:entry into force|entrée en vigueur|entrada en vigor|inkrafttreten)\b",
                                    re.IGNORECASE)


# a sentence stating from when an act applies or has force: "It shall apply from 25 May 2018.", "This Regulation shall
# enter into force on the twentieth day ...", "La présente directive entre en vigueur le 1er janvier 2007."
APPLIES_FROM_RE = re.compile(r"\b(?:shall\s+apply\s+from|appl(?:y|ies)\s+from|enter\s+into\s+force|entre(?:nt)?\s+en\s+"
                             r"vigueur|s['’]appliqu\w*\s+à\s+partir|entrará\s+en\s+vigor|será\s+aplicable|tritt\b[^.]{0,60}"
                             r"\bin\s+Kraft|gilt\s+ab)\b", re.IGNORECASE)


def application_chunk_ids(chunks: Iterable[Chunk], titles: set[str]) -> list[str]:
    """The passages, in reading order, of the units of the documents titled ``titles`` headed by their entry into
    force and application: what answers "When does DORA apply?" (searched like any question, it found the scope
    article first, whose entity list was quoted)."""
    chosen = [c for c in chunks if c.title in titles and APPLICATION_HEADING_RE.search(c.heading or c.ref)]
    return [c.chunk_id for c in sorted(chosen, key=lambda c: (c.document_id, c.position))]


def is_opening_unit(heading: str, ref: str = "") -> bool:
    """Whether a unit states what its act is for: headed by its subject matter or objective, or its first article."""
    own_heading = heading.split(" — ", 1)[-1].split("›")[-1]
    return bool(OPENING_HEADING_RE.search(own_heading) or FIRST_ARTICLE_RE.search(ref or heading))


def opening_chunk_ids(chunks: Iterable[Chunk], titles: set[str], named: Sequence[str] = ()) -> list[str]:
    """The passages, in reading order, of the opening unit of each document titled ``titles``: the opening unit of
    the part the question names when the document is a set of standards ("ESRS E1" -> "ESRS E1 › Objective"),
    otherwise the document's first (its "Article 1 — Subject matter", not a later standard's "Objective")."""
    units: dict[str, dict[str, list[Chunk]]] = {}
    for chunk in chunks:
        if chunk.title in titles and is_opening_unit(chunk.heading or chunk.ref, chunk.ref):
            units.setdefault(chunk.document_id, {}).setdefault(chunk.parent_id, []).append(chunk)
    chosen: list[Chunk] = []
    for document_units in units.values():
        ordered = sorted(document_units.values(), key=lambda unit: min(c.position for c in unit))
        of_named = [unit for unit in ordered if any(_names_part(unit[0].ref, label) for label in named)]
        chosen.extend(sorted((of_named or ordered)[0], key=lambda c: c.position))
    return [c.chunk_id for c in chosen]


def _names_part(ref: str, label: str) -> bool:
    """Whether a unit's reference starts with the named part: "ESRS E1 › Objective" for "ESRS E1"."""
    return fold(ref).startswith(fold(label) + " ›")
