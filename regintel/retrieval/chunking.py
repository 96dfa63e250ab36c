"""Article-aware chunking of regulatory markdown.

The demo corpus uses several heading styles: ``### Article 6 — Lawfulness of processing`` (EUR-Lex English),
``##### Article 2 bis`` (French consolidated texts), ``## CHAPTER I — ...`` / ``### CHAPITRE 2 - ...`` /
``#### Section 1 - ...`` / ``## TITRE ...`` (structure), ``### Appendix A`` (ESRS), and plain question headings
in Belgian guidance. Every heading opens a unit; structural headings only add to the path. A converted PDF's
headings that only number a paragraph (``#### 37.``, ``#### AR 12``) or mark a list point (``#### (b)``) are read as
that paragraph or point of the section above them (``demote_stray_headings``).
A unit shorter than ``min_chars`` is merged with its neighbour in the same document.

Structure kept by the chunker (issue 16 item 4):

- **Definitions articles** (heading or enclosing section says Definitions / Définitions / Begriffsbestimmungen, or
  most paragraphs read ``(n) ‘term’ means …`` / ``n) «terme», …`` / ``n. “terme”: …``) become one chunk per
  numbered definition: ref ``Article 4(7)`` (``Article 311(1)(5)`` when the list is paragraph 1), heading
  ``Article 4 — Definitions — ‘controller’``, id ``eu-gdpr#art-4~def-7``, and ``parent`` naming the article.
  Consecutive definitions that are each tiny (< ``min_chars``) share a chunk. A short lead-in ("For the purposes
  of this Regulation:") opens the first definition's chunk only (repeated in all of them, its words made every
  definition match any question saying "purposes" or "regulation"); paragraphs after the list (and a long lead-in)
  stay an ``Article N`` chunk. A definitions article is never merged with a small neighbour.
- **Lists stay whole**: a unit longer than ``max_chars`` is split on paragraph boundaries (sentence boundaries inside
  giant paragraphs), with whole-paragraph overlap, but a list's lead-in ("… at least one of the following
  applies:") never ends a part away from its points, a list that fits in a part is never cut, and a list longer
  than a part repeats its lead-in at the top of each continuation part.
- A document's front matter (formal title and source note under its ``#`` heading) is not chunked.
- **Divisions** (chapter, section, annex) are the path of the units under them, never a passage: a title line under a
  division's heading, or the wrapped end of its title, joins the heading; a division set as a plain line ("Sous-section
  2 - …") is a heading; an editorial note under it ("*(articles 31 à 39 de la directive 2006/112/CE)*") opens the next
  article; a small unit merges only with a neighbour of its own division.
- Every part keeps its unit's heading ("Article 6 — Lawfulness of processing") in what is embedded and in what
  BM25 indexes, and ``parent`` (the unit's base id) links the parts of one article, for parent-document retrieval
  (``regintel.chat.context``).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from regintel.retrieval.corpus import CorpusDocument
from regintel.retrieval.search_titles import SearchTitles, load_search_titles
from regintel.text.article_numbers import LATIN_SUFFIX

# up to three spaces may indent a heading (CommonMark): " #### Article 5 ter" in the VAT Implementing Regulation
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# Where a page of a PDF source starts, written by regintel.sources.parsers.pdf (issue 23): "<!-- page 12 -->".
PAGE_MARKER_RE = re.compile(r"^\s*<!--\s*page\s+(\d+)\s*-->\s*$")
# A requirement's label written as a plain line in a converted PDF ("Disclosure Requirement S1-8 – Collective
# bargaining coverage and social dialogue", the ESRS), where its siblings are markdown headings (S3-4's label runs to
# 206 characters after its code)
LABEL_HEADING_RE = re.compile(r"^Disclosure Requirements?\s+[A-Z0-9]{1,4}\s*[-–]\s*\d{1,2}\b.{0,250}$")
NUMBERED_LABEL_RE = re.compile(r"^\d{1,3}\.\s+(?P<label>Disclosure Requirements?\s.*)$")
NUMBERED_START_RE = re.compile(r"^(?:\d{1,3}[a-z]?\.|AR\s+\d{1,3}[a-z]?\.?)\s+\S")
EURLEX_URL_RE = re.compile(r"^https?://(?:www\.)?eur-lex\.europa\.eu/", re.IGNORECASE)
PAGE_MARKERS_RE = re.compile(r"^\s*<!--\s*page\s+\d+\s*-->\s*$", re.MULTILINE)
ARTICLE_RE = re.compile(
    rf"^(?:Article|Artikel|Art\.)\s+(premier|first|\d+[a-z]?(?:\s+{LATIN_SUFFIX})?)"
    r"\s*(?:[—–\-:.]\s*(.*))?$",
    re.IGNORECASE,
)
STRUCTURE_RE = re.compile(
    r"^(?:chapter|chapitre|title|titre|part|partie|section|sous-section|subsection|annex|annexe|book|livre)\b",
    re.IGNORECASE,
)
SENTENCE_SPLIT_RE = re.compile(r"(?<=[.;:!?])\s+(?=[(\[‘'\"«A-ZÀ-Ý0-9])")
# Chunking also breaks before a French-style point ("…: a) …; b) …") so that inline lists split into their points.
# A paragraph number ("1. Processing shall …") is not a sentence.
PIECE_SPLIT_RE = re.compile(
    r"(?<=[.;:!?])(?<!^\d\.)(?<!^\d\d\.)(?<!^\d\d\d\.)\s+(?=[(\[‘'\"«“„A-ZÀ-Ý0-9]|(?:[a-z]{1,3}|[ivx]{1,5})\)\s)")
# A list point at the start of a paragraph or sentence: "(a) ", "- (a) ", "a) ", "(iv) ", "(12) ", "12) ".
LIST_ITEM_RE = re.compile(r"^(?:[-*•–]\s+)?(?:\((?:[a-z]{1,3}|[ivxlc]{1,6}|\d{1,3}[a-z]?)\)|(?:[a-z]{1,3}|[ivxlc]{1,6}|\d{1,3}[a-z]?)\))\s")
BULLET_RE = re.compile(r"^[-*•]\s+\S")  # a markdown bullet without a point letter ("- working conditions …")
PARAGRAPH_NUMBER_RE = re.compile(r"^(\d{1,3}[a-z]?)\.\s+\S")

# -- definitions -----------------------------------------------------------------------------------------------
DEFINITIONS_HEADING_RE = re.compile(
    r"\b(?:Definitions|Définitions?|Begriffsbestimmungen|Definities|Definizioni|Definiciones)\b", re.IGNORECASE)
DEFINITIONS_LABEL = {"en": "Definitions", "fr": "Définitions", "de": "Begriffsbestimmungen", "nl": "Definities",
                     "it": "Definizioni", "es": "Definiciones"}
_TERM = r"(?:‘[^’\n]{1,160}’|“[^”\n]{1,160}”|«[^»\n]{1,160}»|„[^“\n]{1,160}“|\"[^\"\n]{1,160}\")"
DEFINITION_RE = re.compile(
    r"^(?:[-*•–]\s+)?(?:\((?P<paren>\d{1,3}[a-z]?)\)|(?P<close>\d{1,3}[a-z]?)\)|(?P<dot>\d{1,3}[a-z]?)\.)?\s*"
    rf"(?P<terms>{_TERM}(?:\s+(?:and|or|et|ou|und|oder)\s+{_TERM})*)(?P<rest>.*)",
    re.DOTALL,
)
# An unnumbered paragraph is a definition only when the quoted term is followed by a defining word or ",", ":".
DEFINING_RE = re.compile(r"^\s*(?:[,:]|means\b|shall mean\b|désigne\b|s['’]entend\b|bezeichnet\b)", re.IGNORECASE)
# GDPR Article 4 is one paragraph: "For the purposes of this Regulation: (1) ‘personal data’ means …; (2) ‘processing’ …"
INLINE_DEFINITION_SPLIT_RE = re.compile(r"(?<=[:;.])\s+(?=(?:\(\d{1,3}[a-z]?\)|\d{1,3}[a-z]?\))\s*[‘“«„\"])")


CONTEXT_HEADINGS = 2  # the chapter and section of an untitled article (the title above them is too broad)


PART_SUFFIX_RE = re.compile(r"\s*\((\d+)/(\d+)\)\s*$")  # a unit split into parts: "Article 6 (2/4)"


def split_part(ref: str) -> tuple[str, int | None]:
    """A reference without the part number chunking gives each part of a split unit ("ANNEX II › Grievance mechanism
    (2/2)" -> ("ANNEX II › Grievance mechanism", 2)); ``None`` for a unit in one piece."""
    match = PART_SUFFIX_RE.search(ref or "")
    return ((ref or "")[:match.start()], int(match.group(1))) if match else (ref or "", None)


def is_definition(chunk: "Chunk") -> bool:
    """Whether a chunk is one definition (or a few tiny ones) of a definitions article."""
    return is_definition_id(chunk.chunk_id)


def is_definition_id(chunk_id: str) -> bool:
    return "~def-" in chunk_id


def clean_heading(text: str) -> str:
    """Heading text without markdown emphasis and surrounding punctuation noise."""
    text = re.sub(r"[*_`]+", "", text).strip()
    return re.sub(r"\s+", " ", text)


def is_structural(heading: str) -> bool:
    return bool(STRUCTURE_RE.match(heading))


def is_untitled_article(heading: str) -> bool:
    """A heading that is only an article's number ("Article 132", "Article 6 bis", "Art. 44"), no title after it."""
    match = ARTICLE_RE.match(heading)
    return bool(match) and not match.group(2)


# A part of a document that is a standard of its own, named by its code ("ESRS 1 General requirements", "ESRS E1
# Climate change", "IFRS 9 Financial Instruments"): references name it by the code ("ESRS 1 › 3.4 Impact materiality").
PART_CODE_RE = re.compile(r"^(?P<code>[A-Z]{2,6}\s+[A-Z]{0,2}\d{1,3}[a-z]?)(?:$|(?:\s*[-–—:]\s*|\s+)[A-Za-z])")


def is_coded_part(heading: str) -> bool:
    """Whether a heading opens a standard named by its code ("ESRS S1", "ESRS 1 General requirements")."""
    return bool(PART_CODE_RE.match(heading)) and not is_structural(heading)


def part_name(heading: str) -> str:
    """How a reference names a part: a standard's code ("ESRS E1") for a coded heading, else the heading itself."""
    return PART_CODE_RE.match(heading).group("code") if is_coded_part(heading) else heading


def article_number(heading: str) -> str | None:
    match = ARTICLE_RE.match(heading)
    if not match:
        return None
    return "1" if match.group(1).lower() in {"premier", "first"} else match.group(1)


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage with everything a citation needs."""

    chunk_id: str
    document_id: str
    title: str
    ref: str
    heading: str
    section_path: str
    text: str
    jurisdiction: str
    language: str
    authority_level: str
    source_url: str
    position: int
    parent: str = ""  # base id of the article / section unit the chunk belongs to (its parts and definitions share it)
    page: int = 0  # the page the passage starts on, for sources parsed from a PDF (0: not paginated)
    # the unit's search titles in other languages (regintel.retrieval.search_titles): indexed and embedded, never
    # quoted or shown
    gloss: str = ""

    @property
    def parent_id(self) -> str:
        """The unit this chunk is a part of; records written before ``parent`` existed fall back on the id."""
        return self.parent or self.chunk_id.split("~", 1)[0]

    @property
    def label(self) -> str:
        """The heading the answer step reads (a model's prompt, the offline composer, the evidence check). An
        untitled article ("Article 132": most articles of the French VAT Directive and Implementing Regulation)
        takes the headings of the chapter and section it sits in ("Article 132 (TITRE IX - EXONÉRATIONS › CHAPITRE 2 -
        Exonérations en faveur de certaines activités d'intérêt général)"), its only topical words; a titled one
        ("Article 6 — Lawfulness of processing") keeps its own. Search does not read it: in what is indexed and
        embedded the chapter's words made every article of a chapter alike (dev answers -3 / -2, docs/benchmarks.md)."""
        if self.section_path and is_untitled_article(self.heading):
            return f"{self.heading} ({' › '.join(self.section_path.split(' › ')[-CONTEXT_HEADINGS:])})"
        return self.heading

    @property
    def index_text(self) -> str:
        """What BM25 indexes: document title and section heading (or reference), the unit's search titles, then
        the passage.

        The title helps lexical search when a question names the act ("under the AML Rules ..."); the search titles
        let a language run match a question asked in another language ("invoice" in a French article's titles)."""
        label = self.heading or self.ref
        header = f"{self.title} — {label}" if label else self.title
        if self.gloss:  # the unit's search titles (regintel.retrieval.search_titles)
            header = f"{header}\n{self.gloss}"
        return f"{header}\n{self.text}".strip()

    @property
    def embed_text(self) -> str:
        """What is embedded: the section heading (when there is one) and the passage, without the document title.

        Measured on ObliQA dev: the title and a numeric reference in front of every passage dilute its vector
        (dense Recall@10 0.70 with them, 0.74 without); see docs/benchmarks.md."""
        if not self.text.strip():
            return self.index_text
        return f"{self.heading}\n{self.text}" if self.heading else self.text

    @property
    def crosslingual_embed_text(self) -> str:
        """What is embedded for questions in another language than the passage's: the heading, the search titles
        and the passage ("" without search titles). Kept apart from ``embed_text``: in the one vector, the other
        languages' titles lowered same-language cosines (dev: English GDPR questions abstained LOW_SIMILARITY with
        their article first; docs/benchmarks.md, session 19)."""
        if not self.gloss:
            return ""
        return "\n".join(part for part in (self.heading, self.gloss, self.text) if part)

    @property
    def titles_embed_text(self) -> str:
        """The heading and search titles alone ("" without search titles): what a unit is about, undiluted by a
        long text. The ranker compares the question with it (``titles_cosine``): in a long article's vector the
        body outweighs its titles, in a short one's the titles dominate, so "what must an invoice contain?" met
        the short storage-of-invoices article before the long article on invoice contents."""
        if not self.gloss:
            return ""
        return "\n".join(part for part in (self.heading, self.gloss) if part)

    @property
    def search_title_embed_texts(self) -> tuple[str, ...]:
        """The texts embedded beside ``embed_text`` for a passage with search titles (its cross-language text and
        its titles text), none without: what ingestion puts in the embedding cache and the seed cache ships."""
        return (self.crosslingual_embed_text, self.titles_embed_text) if self.gloss else ()

    @property
    def content_hash(self) -> str:
        """Changes when either the indexed or the embedded text changes (re-ingestion re-embeds it)."""
        return hashlib.sha256(f"{self.index_text}\x00{self.embed_text}".encode("utf-8")).hexdigest()

    def metadata(self) -> dict[str, str | int | float]:
        """Flat metadata for the vector store (scalars only)."""
        from regintel.retrieval.corpus import authority_score

        return {
            "chunk_id": self.chunk_id,
            "document_id": self.document_id,
            "title": self.title,
            "ref": self.ref,
            "heading": self.heading,
            "section_path": self.section_path,
            "jurisdiction": self.jurisdiction,
            "language": self.language,
            "authority_level": self.authority_level,
            "authority_score": authority_score(self.authority_level),
            "source_url": self.source_url,
            "content_hash": self.content_hash,
            "position": self.position,
            "parent": self.parent_id,
            "page": self.page,
        }


@dataclass
class DocumentUnit:
    heading: str  # cleaned heading text ("Article 6 — Lawfulness of processing")
    ref: str  # short reference ("Article 6")
    path: list[str]  # the headings of the divisions it sits in, as shown (a title continued on the next line included)
    paragraphs: list[str] = field(default_factory=list)
    top: str = ""  # the heading of its top division as refs name it ("ANNEX II", not "ANNEX II - ACRONYMS AND …")

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.paragraphs) + 2 * max(len(self.paragraphs) - 1, 0)


# A converted PDF's heading that is only a paragraph's number ("#### 37.", "#### AR 12") or a list point's marker
# ("#### (b)", "#### ii. chronic risks"): the numbered paragraph or point of the section above it, not a section.
STRAY_NUMBER_HEADING_RE = re.compile(r"^(?P<label>(?:AR\s+)?\d{1,3}[a-z]?)\.?$")
STRAY_POINT_HEADING_RE = re.compile(
    r"^(?P<label>\((?:[a-z]{1,2}|[ivx]{1,5}|\d{1,3})\)|[ivx]{1,5}\.)(?:\s+(?P<text>[a-z‘“\"«].*))?$")
# A heading that starts in lower case ("#### and", "#### on Fundamental Principles and Rights at Work or OECD …") is
# a line of the sentence around it that a converted PDF set as a heading: the ESRS's "#### and" between points (d)
# and (e) of GOV-1 made the rest of GOV-1 a unit cited as "ESRS 2 › and". A first word in mixed case is a name
# ("eIDAS trust services"), not a fragment.
STRAY_FRAGMENT_HEADING_RE = re.compile(r"^[a-zà-ÿ]+(?:[\s,;:]|$)")


def demote_stray_headings(lines: list[str]) -> list[str]:
    """Headings that only number a paragraph, mark a list point or continue a sentence become text again:
    "#### 37." + "Double materiality has two dimensions …" -> "37. Double materiality has two dimensions …", and
    "#### (b)" + "In the case of …" -> "- (b) In the case of …". Left as headings, each paragraph of a section was a
    unit of its own with a meaningless ref ("ESRS 2 › 38.") cut off from its section's title; "Appendix A › AR 24"
    named five paragraphs of five standards. A bare number followed by a real heading (nothing to number) is
    dropped."""
    out: list[str] = []
    pending: str | None = None  # the label waiting for the text it numbers
    for line in lines:
        heading = HEADING_RE.match(line)
        if pending is not None and line.strip() and not PAGE_MARKER_RE.match(line):
            if not heading:
                out.append(f"{pending} {line.strip()}")
                pending = None
                continue
            pending = None  # a bare number before a real heading numbers nothing
        if heading:
            text = clean_heading(heading.group(2))
            stray_number = STRAY_NUMBER_HEADING_RE.match(text)
            stray_point = STRAY_POINT_HEADING_RE.match(text)
            if stray_number:
                pending = f"{stray_number.group('label')}."
                continue
            if stray_point and stray_point.group("text"):
                out.append(f"- {text}")
                continue
            if stray_point:
                pending = f"- {stray_point.group('label')}"
                continue
            if STRAY_FRAGMENT_HEADING_RE.match(text):
                out.append(text)
                continue
        out.append(line)
    return out


def promote_label_headings(lines: list[str]) -> list[str]:
    """Lines that label a requirement without markdown ("Disclosure Requirement S1-8 – …" standing alone, its
    numbered paragraphs after it) become headings: at the level of the requirement heading before them, else at the
    level of the current heading (its sibling: a converted PDF's stray headings such as "45." are no parent of a
    requirement). A list of labels (a table of contents: lines one after another, no numbered paragraph after the
    last) stays text."""
    out: list[str] = []
    level, label_level = 1, None
    for number, line in enumerate(lines):
        heading = HEADING_RE.match(line)
        if heading:
            level = len(heading.group(1))
            label_level = level if LABEL_HEADING_RE.match(clean_heading(heading.group(2))) else None
            out.append(line)
            continue
        stripped = line.strip()
        alone = (number == 0 or not lines[number - 1].strip()) and (number + 1 == len(lines) or not lines[number + 1].strip())
        paragraphs = 1
        numbered = NUMBERED_LABEL_RE.match(stripped)
        if numbered:
            # "38. Disclosure Requirement SBM-1 – Strategy, business model and value chain": the conversion glued the
            # first paragraph's number to the label; that paragraph's text follows unnumbered, the next one numbered
            stripped, paragraphs = numbered.group("label"), 2
        if alone and LABEL_HEADING_RE.match(stripped) and _numbered_text_follows(lines, number + 1, paragraphs):
            promoted = label_level or max(level, 2)
            out.append(f"{'#' * promoted} {stripped}")
            label_level = level = promoted
            continue
        out.append(line)
    return out


# A requirement label's subtitle line, at most this long ("GHG removals and storage in own operations and the upstream
# and downstream value chain", 88 characters, under ESRS E1-7's label); a longer line is a paragraph.
SUBTITLE_MAX_CHARS = 120


def _numbered_text_follows(lines: list[str], start: int, paragraphs: int = 1) -> bool:
    """Whether a numbered paragraph ("58. …", "AR 66. …") comes next, directly or after one short subtitle line
    ("Collective bargaining coverage"); with ``paragraphs`` 2, also after one paragraph of any length (the
    unnumbered text of a label that carried its paragraph's number)."""
    texts = [line.strip() for line in lines[start:start + 12] if line.strip() and not PAGE_MARKER_RE.match(line)]
    if any(NUMBERED_START_RE.match(text) for text in texts[:paragraphs]):
        return True
    subtitle = (len(texts) > 1 and len(texts[0]) <= SUBTITLE_MAX_CHARS and not HEADING_RE.match(texts[0])
                and texts[0][-1].isalnum())
    return bool(subtitle and NUMBERED_START_RE.match(texts[1]))


# A division's heading written as a plain line of its own ("Sous-section 2 - Prestations de services rattachées à un
# bien immeuble" between two articles of the French VAT Directive): a heading, not the last paragraph of the article
# before it.
STRUCTURE_LINE_RE = re.compile(
    r"^(?P<kind>sous-section|subsection|section|chapitre|chapter|titre|partie|part|livre|book)\s+"
    r"(?:\d{1,3}|[IVXLC]{1,7})(?:\s+(?:bis|ter|quater))?\s*[-–—.:]\s+\S.{0,280}(?<![.;:,!?])$", re.IGNORECASE)
# An editorial note under a division's heading ("*(articles 31 à 39 de la directive 2006/112/CE)*" in the French VAT
# Implementing Regulation): it tells what the articles after it implement, so it opens the next article's text.
EDITORIAL_NOTE_RE = re.compile(r"^\*{0,2}\([^()\n]{3,200}\)\*{0,2}$")
HEADING_CONTINUATION_MAX_CHARS = 300  # a wrapped title of the VAT Directive runs on for 282 characters


def _heading_continuation(paragraph: str) -> bool:
    """Whether a paragraph right under a division's heading is the rest of that heading: one short line that is not
    a sentence, a numbered paragraph, a list point or a table ("### CHAPITRE 5" + "Dispositions communes aux
    chapitres 1 et 3"; "### CHAPITRE 9 - Exonérations des prestations de services effectuées par des" +
    "intermédiaires", a title the conversion wrapped)."""
    line = clean_heading(paragraph)
    return ("\n" not in paragraph and 0 < len(line) <= HEADING_CONTINUATION_MAX_CHARS
            and line[-1] not in ".;:!?," and not line.startswith("|") and not EDITORIAL_NOTE_RE.match(paragraph)
            and not NUMBERED_START_RE.match(line) and not LIST_ITEM_RE.match(line) and not BULLET_RE.match(line))


def _continued_heading(heading: str, continuation: str) -> str:
    """A division's heading with its continuation line: a title the conversion wrapped gets its last words
    ("… effectuées par des" + "intermédiaires"; "… ET DE CERTAINES" + "PERSONNES NON ASSUJETTIES"), anything else
    follows a dash ("CHAPITRE 5 - Dispositions communes …")."""
    titled = re.search(r"[-–—.:]\s", heading)  # "CHAPITRE 9 - …", "SECTION 2. …"; not a bare "CHAPITRE 5", "ANNEX II"
    wrapped = titled and (continuation[:1].islower() or (heading.split()[-1].isupper() and continuation.isupper()))
    joiner = " " if wrapped else " - "
    return f"{heading}{joiner}{clean_heading(continuation)}"


def _structure_line_level(kind: str, stack: Sequence[tuple[float, str, str]]) -> float:
    """The level of a division's heading written as a plain line: a sibling of the open heading of the same kind
    ("Sous-section 2" after "Sous-section 1"), else half a level under the deepest open division, so that the
    articles after it (whose headings are a whole level down) sit inside it."""
    for level, heading, _ in reversed(stack):
        if heading.lower().startswith(kind.lower() + " "):
            return level
    divisions = [level for level, heading, _ in stack if is_structural(heading)]
    return (max(divisions) if divisions else 1) + 0.5


def parse_units(text: str) -> list[DocumentUnit]:
    """Split markdown into heading units, tracking the path of structural ancestors.

    A division's heading ("CHAPITRE 5", "Section 4") keeps the title line under it and takes the plain lines that
    continue it; a division written as a plain line ("Sous-section 2 - …") is a heading; an editorial note under a
    division opens the next unit. Left as text, each made the division a unit of its own, too small to stand alone and
    merged with the article next to it ("CHAPITRE 6 - …; Article 358; Section 2 - …": 44 passages of the French VAT
    texts, cited under the division's name)."""
    units: list[DocumentUnit] = []
    stack: list[tuple[float, str, str]] = []  # (level, heading, name in refs) of open ancestors
    current = DocumentUnit(heading="", ref="Preamble", path=[])
    buffer: list[str] = []
    notes: list[str] = []  # editorial notes waiting for the next unit

    def flush_paragraph() -> None:
        paragraph = "\n".join(buffer).strip()
        buffer.clear()
        if not paragraph:
            return
        if is_structural(current.heading) and not current.paragraphs and stack:
            if EDITORIAL_NOTE_RE.match(paragraph):
                notes.append(paragraph)
                return
            if _heading_continuation(paragraph) and not notes:
                current.heading = _continued_heading(current.heading, paragraph)
                stack[-1] = (stack[-1][0], current.heading, stack[-1][2])
                return
        current.paragraphs.extend(notes)  # the notes open the first unit after them with a text
        notes.clear()
        current.paragraphs.append(paragraph)

    lines = promote_label_headings(demote_stray_headings(text.splitlines()))
    for number, line in enumerate(lines):
        match = HEADING_RE.match(line)
        structure_line = None
        if not match and not buffer and (number + 1 == len(lines) or not lines[number + 1].strip()):
            structure_line = STRUCTURE_LINE_RE.match(line.strip())
        if not match and not structure_line:
            if PAGE_MARKER_RE.match(line):
                flush_paragraph()
                continue
            if line.strip():
                buffer.append(line.rstrip())
            else:
                flush_paragraph()
            continue
        flush_paragraph()
        units.append(current)
        if structure_line:
            level, heading = _structure_line_level(structure_line.group("kind"), stack), clean_heading(line)
        else:
            level, heading = len(match.group(1)), clean_heading(match.group(2))
        while stack and stack[-1][0] >= level:
            stack.pop()
        path = [h for lvl, h, _ in stack if lvl > 1]
        names = [name for lvl, _, name in stack if lvl > 1]  # as refs name them: without a continued title
        number = article_number(heading)
        if level == 1:
            ref = "Title"
        elif number:
            ref = f"Article {number}"
        else:
            parent = part_name(names[-1]) if names and not is_structural(heading) else ""
            ref = f"{parent} › {heading}" if parent and not article_number(parent) else part_name(heading)
            if parent and len(names) > 1 and is_coded_part(names[0]):  # "ESRS 1 › Appendix A › Double materiality"
                ref = f"{part_name(names[0])} › {ref}"
        current = DocumentUnit(heading=heading, ref=ref, path=path, top=names[0] if names else "")
        stack.append((level, heading, heading))
    flush_paragraph()
    current.paragraphs.extend(notes)  # notes after the last text of a document stay its last paragraphs
    units.append(current)
    return _qualify_repeated_refs([u for u in units if u.paragraphs])


def _qualify_repeated_refs(units: list[DocumentUnit]) -> list[DocumentUnit]:
    """A section ref that several units share ("Appendix A › Application Requirements", once per standard of the
    ESRS) is prefixed with the unit's top-level heading ("ESRS E1 › Appendix A › Application Requirements"), so that
    a citation says which one it is. Article refs are left alone (an article's number is its name)."""
    counts = Counter(unit.ref for unit in units)
    for unit in units:
        top = part_name(unit.top) if unit.top else ""
        if counts[unit.ref] > 1 and top and not unit.ref.startswith(("Article ", top)):
            unit.ref = f"{top} › {unit.ref}"
    return units


def split_long_paragraph(paragraph: str, max_chars: int) -> list[str]:
    """Break a paragraph bigger than max_chars into sentence-aligned pieces (hard cut as a last resort)."""
    sentences = SENTENCE_SPLIT_RE.split(paragraph)
    pieces: list[str] = []
    current = ""
    for sentence in sentences:
        while len(sentence) > max_chars:  # a single giant "sentence": cut at a space
            cut = sentence.rfind(" ", 0, max_chars) if " " in sentence[:max_chars] else max_chars
            cut = cut if cut > 0 else max_chars
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


@dataclass
class _Piece:
    """A paragraph, or one sentence / line of a paragraph longer than a part. Pieces of one ``group`` (a list: its
    lead-in and points; the lines of a bulleted paragraph) stay in one part when they fit in one."""

    text: str
    paragraph: int  # pieces of one paragraph are joined with ``joiner``, paragraphs with a blank line
    joiner: str = " "  # " " between sentences, "\n" between the lines of a bulleted paragraph
    is_lead: bool = False  # a list's lead-in ("… at least one of the following applies:")
    group: object = None


def _sentences(paragraph: str, max_chars: int) -> list[str]:
    """Sentences (and inline list points) of a paragraph; a sentence longer than max_chars is cut at spaces."""
    pieces: list[str] = []
    for sentence in PIECE_SPLIT_RE.split(paragraph):
        while len(sentence) > max_chars:
            cut = sentence.rfind(" ", 0, max_chars) if " " in sentence[:max_chars] else max_chars
            cut = cut if cut > 0 else max_chars
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if sentence.strip():
            pieces.append(sentence.strip())
    return pieces


def _is_lead_in(text: str) -> bool:
    return text.rstrip().endswith(":")


def _is_point(text: str) -> bool:
    return bool(LIST_ITEM_RE.match(text) or BULLET_RE.match(text))


def _paragraph_number(text: str) -> str | None:
    match = PARAGRAPH_NUMBER_RE.match(text)
    return match.group(1) if match else None


def _lead_repeat(lead: _Piece, max_chars: int) -> _Piece:
    """What a continuation part repeats of a list's lead-in: all of it, or its last sentence when it is long."""
    text = lead.text
    if len(text) > max_chars // 4:
        text = PIECE_SPLIT_RE.split(text)[-1]
        if len(text) > max_chars // 4:
            text = ""
    return _Piece(text, lead.paragraph, lead.joiner, is_lead=True, group=lead.group)


def _paragraph_pieces(number: int, paragraph: str, max_chars: int) -> list[_Piece]:
    lines = [line for line in paragraph.split("\n") if line.strip()]
    if len(lines) > 1 and sum(1 for line in lines if _is_point(line)) >= 2:  # a bulleted paragraph: one per line
        group = ("lines", number)
        pieces = []
        for line in lines:
            texts = [line] if len(line) <= max_chars else _sentences(line, max_chars)
            pieces += [_Piece(t, number, "\n" if i == 0 else " ", group=group) for i, t in enumerate(texts)]
        return pieces
    texts = [paragraph] if len(paragraph) <= max_chars else _sentences(paragraph, max_chars)
    return [_Piece(text, number) for text in texts if text]


def _pieces(paragraphs: Sequence[str], max_chars: int) -> list[_Piece]:
    pieces: list[_Piece] = []
    for number, paragraph in enumerate(paragraphs):
        pieces.extend(_paragraph_pieces(number, paragraph, max_chars))
    # a lead-in ending with ":" followed by list points: the points (and the rest of a point's paragraph) belong to it
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        following = pieces[index + 1] if index + 1 < len(pieces) else None
        numbered = following is not None and _paragraph_number(following.text) == "1"
        if following is None or not _is_lead_in(piece.text) or not (_is_point(following.text) or numbered):
            index += 1
            continue
        piece.is_lead, piece.group = True, ("list", index)
        expected = 1 if numbered else 0  # "…, on entend par:" followed by "1. …", "2. …": numbered points
        index += 1
        while index < len(pieces):
            current = pieces[index]
            if current.paragraph == pieces[index - 1].paragraph or _is_point(current.text):
                pass
            elif expected and _paragraph_number(current.text) == str(expected + 1):
                expected += 1
            elif expected and _paragraph_number(current.text) == "1" and pieces[index - 1] is piece:
                pass
            else:
                break
            current.group = piece.group
            index += 1
    return pieces


def _groups(pieces: list[_Piece]) -> list[list[_Piece]]:
    """Consecutive pieces of one group together; any other piece is a group of its own."""
    groups: list[list[_Piece]] = []
    for piece in pieces:
        if piece.group is not None and groups and groups[-1][-1].group == piece.group:
            groups[-1].append(piece)
        else:
            groups.append([piece])
    return groups


def _joined_size(pieces: Sequence[_Piece]) -> int:
    size = 0
    for position, piece in enumerate(pieces):
        if position:
            size += len(piece.joiner) if pieces[position - 1].paragraph == piece.paragraph else 2
        size += len(piece.text)
    return size


def _render(pieces: Sequence[_Piece]) -> list[str]:
    """Pieces back to paragraphs: consecutive pieces of one paragraph are joined with their joiner."""
    paragraphs: list[str] = []
    previous: _Piece | None = None
    for piece in pieces:
        if previous is not None and previous.paragraph == piece.paragraph:
            paragraphs[-1] = f"{paragraphs[-1]}{piece.joiner}{piece.text}"
        else:
            paragraphs.append(piece.text)
        previous = piece
    return paragraphs


def _pack(paragraphs: Sequence[str], max_chars: int, overlap_chars: int) -> list[list[str]]:
    """Group paragraphs into parts of at most max_chars, each repeating the tail of the previous part; a list is
    never cut when it fits in a part, and a list longer than a part repeats its lead-in in each continuation."""
    pieces = _pieces(paragraphs, max_chars)
    parts: list[list[_Piece]] = []
    current: list[_Piece] = []

    def fits(extra: Sequence[_Piece]) -> bool:
        return _joined_size([*current, *extra]) <= max_chars

    def new_part(upcoming: Sequence[_Piece], overlap: bool = True) -> None:
        nonlocal current
        parts.append(current)
        carried: list[_Piece] = []
        if overlap:
            for previous in reversed(current):
                if previous.group is not None or len(carried) + 1 >= len(current):
                    break  # a list's point or lead-in is not carried without the rest of its list
                if _joined_size([previous, *carried]) > overlap_chars:
                    break
                carried.insert(0, previous)
            if _joined_size([*carried, *upcoming]) > max_chars:
                carried = []
        current = carried

    for group in _groups(pieces):
        if fits(group):
            current.extend(group)
            continue
        if _joined_size(group) <= max_chars:  # a paragraph, or a whole list, that fits in a part of its own
            if current:
                new_part(group)
            current.extend(group)
            continue
        repeat = _lead_repeat(group[0], max_chars) if group[0].is_lead else None
        for position, piece in enumerate(group):
            glued = (piece.is_lead or _is_lead_in(piece.text)) and position + 1 < len(group)
            upcoming = [piece, group[position + 1]] if glued else [piece]  # a lead-in never ends a part
            if fits(upcoming):
                current.append(piece)
                continue
            if current:
                new_part(upcoming, overlap=repeat is None)
            if repeat is not None and repeat.text and piece is not group[0] and fits([repeat, piece]):
                current.append(repeat)
            current.append(piece)
    if current:
        parts.append(current)
    return [_render(part) for part in parts if part]


def _merge_small(units: list[DocumentUnit], min_chars: int, max_chars: int,
                 fixed: Callable[[DocumentUnit], bool] = lambda unit: False) -> list[DocumentUnit]:
    """Merge each unit below min_chars into the next unit, else the previous one, when the result fits and both sit
    in the same part of the document (a coded standard: ESRS E4's last application requirement is not one passage
    with ESRS E5's table of contents) and the same division (chapter, section). A ``fixed`` unit (a definitions
    article) is never merged with another."""
    merged: list[DocumentUnit] = []
    pending: DocumentUnit | None = None

    def joinable(first: DocumentUnit, second: DocumentUnit) -> bool:
        return (not fixed(first) and not fixed(second) and first.size + second.size + 2 <= max_chars
                and _coded_part(first) == _coded_part(second) and _division(first) == _division(second))

    for unit in units:
        if pending is not None:
            if joinable(pending, unit):
                unit = _join(pending, unit)
            elif merged and joinable(merged[-1], pending):
                merged[-1] = _join(merged[-1], pending)
            else:
                merged.append(pending)
            pending = None
        if unit.size < min_chars and not fixed(unit):
            pending = unit
        else:
            merged.append(unit)
    if pending is not None:
        if merged and joinable(merged[-1], pending):
            merged[-1] = _join(merged[-1], pending)
        else:
            merged.append(pending)
    return merged


def _division(unit: DocumentUnit) -> tuple[str, ...]:
    """The chapter, section ... a unit sits in (a division's own text sits in that division): the last article of
    one chapter and the first of the next are no one passage ("Article 152; Article 153" of the VAT Directive are
    exemptions for gold and for intermediaries)."""
    own = [unit.heading] if is_structural(unit.heading) else []
    return tuple(heading for heading in [*unit.path, *own] if is_structural(heading))


def _coded_part(unit: DocumentUnit) -> str:
    """The coded standard a unit belongs to ("ESRS E5"), or "" outside any."""
    top = unit.path[0] if unit.path else unit.heading
    return part_name(top) if is_coded_part(top) else ""


def _join(first: DocumentUnit, second: DocumentUnit) -> DocumentUnit:
    return DocumentUnit(
        heading=f"{first.heading}; {second.heading}".strip("; "),
        ref=f"{first.ref}; {second.ref}",
        path=first.path,
        paragraphs=[*first.paragraphs, *second.paragraphs],
    )


def _chunk_base_id(doc_id: str, unit: DocumentUnit) -> str:
    """Stable id of a unit: ``doc#art-6`` for articles, a slug of parent and heading otherwise."""
    first_ref = unit.ref.split("; ")[0]
    number = first_ref.removeprefix("Article ") if first_ref.startswith("Article ") else None
    if number:
        return f"{doc_id}#art-{number.replace(' ', '-').lower()}"
    slug = re.sub(r"[^a-z0-9]+", "-", first_ref.lower()).strip("-")[:60].strip("-")
    return f"{doc_id}#{slug or 'part'}"


@dataclass
class _Definition:
    number: str  # the point number ("7"), "" when unnumbered
    terms: str  # the quoted term(s) as written ("‘controller’", "«Communauté» et «territoire de la Communauté»")
    pieces: list[str]

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.pieces) + 2 * max(len(self.pieces) - 1, 0)


@dataclass
class _DefinitionsArticle:
    lead: list[str]  # paragraphs before the first definition
    definitions: list[_Definition]
    trailing: list[str]  # paragraphs after the list ("2. Member States may …")
    label: str  # "Definitions" when the heading does not say it


def _definition_match(text: str) -> tuple[str, str, str] | None:
    """(style, number, terms) of a paragraph that opens a definition, else None."""
    match = DEFINITION_RE.match(text)
    if not match:
        return None
    for style in ("paren", "close", "dot"):
        if match.group(style):
            return style, match.group(style), match.group("terms")
    if DEFINING_RE.match(match.group("rest")):
        return "", "", match.group("terms")
    return None


def _numbered(text: str) -> tuple[str, str] | None:
    """(style, number) of a paragraph opening with "(n)", "n)" or "n." (a point or a paragraph number)."""
    match = re.match(r"^(?:[-*•–]\s+)?(?:\((\d{1,3}[a-z]?)\)|(\d{1,3}[a-z]?)\)|(\d{1,3}[a-z]?)\.)\s", text)
    if not match:
        return None
    style = next(name for name, group in zip(("paren", "close", "dot"), match.groups()) if group)
    return style, next(g for g in match.groups() if g)


def _definitions_article(unit: DocumentUnit, language: str) -> _DefinitionsArticle | None:
    """The definitions of a definitions article, or None when the unit is not one (see the module docstring)."""
    if not unit.ref.startswith("Article "):
        return None
    pieces: list[str] = []
    for paragraph in unit.paragraphs:
        split = [p.strip() for p in INLINE_DEFINITION_SPLIT_RE.split(paragraph) if p.strip()]
        pieces.extend(split if len(split) >= 3 else [paragraph])
    matches = [_definition_match(p) for p in pieces]
    first = next((i for i, m in enumerate(matches) if m), None)
    if first is None or sum(1 for m in matches if m) < 2:
        return None
    counted = [i for i, p in enumerate(pieces)
               if matches[i] or not (LIST_ITEM_RE.match(p) or (i == first - 1 and _is_lead_in(p)))]
    ratio = sum(1 for m in matches if m) / len(counted)
    named = DEFINITIONS_HEADING_RE.search(unit.heading)
    in_section = DEFINITIONS_HEADING_RE.search(unit.path[-1]) if unit.path else None
    if not (named or in_section or ratio >= 0.5):
        return None
    label = "" if named else (in_section.group(0) if in_section else DEFINITIONS_LABEL.get(language, "Definitions"))
    style = matches[first][0]
    definitions: list[_Definition] = []
    trailing: list[str] = []
    for piece, match in zip(pieces[first:], matches[first:]):
        if trailing:
            trailing.append(piece)
        elif match:
            definitions.append(_Definition(match[1], match[2], [piece]))
        else:
            numbered = _numbered(piece)
            last = definitions[-1].number
            if numbered and numbered[0] == style and last.isdigit() and numbered[1] == str(int(last) + 1):
                definitions.append(_Definition(numbered[1], "", [piece]))  # a point of the list without a quoted term
            elif numbered and numbered[0] == "dot" and style != "dot":
                trailing.append(piece)  # "2. Member States may …": the next paragraph of the article
            else:
                definitions[-1].pieces.append(piece)  # "(a) …" sub-points, a definition's second subparagraph
    return _DefinitionsArticle(pieces[:first], definitions, trailing, label)


def _definition_units(unit: DocumentUnit, article: _DefinitionsArticle, min_chars: int,
                      lead_max: int = 300) -> list[tuple[DocumentUnit, str]]:
    """(unit, id suffix) per definition (tiny neighbours merged), and the article's other paragraphs as one unit."""
    lead = "\n\n".join(article.lead)
    lead_first = bool(lead) and len(lead) <= lead_max  # a short lead-in opens the first definition's chunk
    # a long lead-in is the article's own chunk, with the trailing paragraphs; but when it ends on a short lead-in
    # (a rule, then "Aux fins de la présente section, … on entend par:"), that lead-in opens the definitions
    own = [] if lead_first else list(article.lead)
    if own and _is_lead_in(own[-1]) and len(own[-1]) <= lead_max:
        lead, lead_first, own = own[-1], True, own[:-1]
    paragraph = PARAGRAPH_NUMBER_RE.match(article.lead[-1]) if article.lead else None
    point_prefix = f"({paragraph.group(1)})" if paragraph else ""
    heading = f"{unit.heading} — {article.label}" if article.label else unit.heading
    groups: list[list[_Definition]] = []
    for definition in article.definitions:
        tiny = definition.size < min_chars
        if tiny and groups and all(d.size < min_chars for d in groups[-1]) and \
                sum(d.size for d in groups[-1]) < min_chars:
            groups[-1].append(definition)
        else:
            groups.append([definition])
    out: list[tuple[DocumentUnit, str]] = []
    if own:  # with the trailing paragraphs; else those come after the definitions
        out.append((DocumentUnit(unit.heading, unit.ref, unit.path, [*own, *article.trailing]), ""))
    used: set[str] = set()
    for ordinal, group in enumerate(groups, start=1):
        refs = [f"{unit.ref}{point_prefix}({d.number})" if d.number else unit.ref for d in group]
        terms = "; ".join(d.terms for d in group if d.terms) or "; ".join(f"({d.number})" for d in group if d.number)
        suffix = f"def-{(group[0].number or str(ordinal)).lower()}"
        while suffix in used:
            suffix += "-2"
        used.add(suffix)
        paragraphs = ([lead] if lead_first and ordinal == 1 else []) + [p for d in group for p in d.pieces]
        out.append((DocumentUnit(f"{heading} — {terms}" if terms else heading, "; ".join(dict.fromkeys(refs)),
                                 unit.path, paragraphs), suffix))
    if article.trailing and not own:
        out.append((DocumentUnit(unit.heading, unit.ref, unit.path, list(article.trailing)), ""))
    return out


# Front matter under a document's level-1 heading: its formal title in emphasis, the "Source: EUR-Lex …" note,
# update notices in brackets, a bare number/date line.
FRONT_MATTER_RE = re.compile(r"^(?:[-*•]\s+)?(?:Source\s*:|©|_|\*|\[)")
WORDS_RE = re.compile(r"[a-zà-ÿ]{3,}\s+[a-zà-ÿ]{3,}")
OFFICIAL_JOURNAL_RE = re.compile(r"\((?:JO|OJ|ABl\.|DO)\s+L\s+\d+")  # "(JO L 77 du 23.03.2011, p. 1)"


def is_front_matter(unit: DocumentUnit) -> bool:
    """A document's title unit holding only front matter: not regulatory text, so not a retrievable passage (it
    matched every question naming the act: "Does the GDPR apply to …", and a consolidated text's update notes were
    quoted as the answer to a question on funeral services). Front matter is marked by the corpus builder's "Source: …"
    note or by the act's Official Journal reference ("... (JO L 77 du 23.03.2011, p. 1)"), and every paragraph of it
    is set off (italic, bold, a link, a "©") or holds no phrase. Any other text under a ``#`` heading is kept."""
    return (unit.ref == "Title"
            and any(p.startswith("Source:") or OFFICIAL_JOURNAL_RE.search(p) for p in unit.paragraphs)
            and all(FRONT_MATTER_RE.match(p) or not WORDS_RE.search(p) for p in unit.paragraphs))


class _PageFinder:
    """The page each paragraph of a paginated source starts on (its ``<!-- page N -->`` markers), so that a chunk,
    which is a run of paragraphs or a piece of one, can say "p. 12" and link to ``#page=12``."""

    def __init__(self, text: str) -> None:
        self.by_text: dict[str, int] = {}
        self.ordered: list[tuple[str, int]] = []
        page, buffer = 0, []
        for line in [*text.splitlines(), ""]:
            marker = PAGE_MARKER_RE.match(line)
            if marker or not line.strip() or HEADING_RE.match(line):
                paragraph = "\n".join(buffer).strip()
                buffer.clear()
                if paragraph:
                    self.by_text.setdefault(paragraph, page)
                    self.ordered.append((paragraph, page))
                if marker:
                    page = int(marker.group(1))
                continue
            buffer.append(line.rstrip())

    def page_of(self, paragraphs: Sequence[str]) -> int:
        """Page of the first paragraph found (a piece of a split paragraph is found by its opening words)."""
        for paragraph in paragraphs:
            if paragraph in self.by_text:
                return self.by_text[paragraph]
            probe = paragraph[:80]
            for whole, page in self.ordered:
                if probe in whole:
                    return page
        return 0


def _anchor_lookup(doc: CorpusDocument) -> dict[str, str]:
    """Heading and "Article N" -> URL fragment, from the anchors the HTML parser found."""
    lookup: dict[str, str] = {}
    for heading, fragment in doc.anchors.items():
        heading = clean_heading(heading)
        lookup.setdefault(heading, fragment)
        number = article_number(heading)
        if number:
            lookup.setdefault(f"Article {number}", fragment)
    return lookup


def _passage_url(doc: CorpusDocument, unit: DocumentUnit, page: int, anchors: dict[str, str]) -> str:
    """The official page at the passage: its PDF page (``#page=12``) or its article's anchor (EUR-Lex ``#art_33``,
    from the parser's anchors or EUR-Lex's ``art_N`` convention); the document's URL when neither is known."""
    base = doc.source_url
    if not base or "#" in base:
        return base
    first_heading = unit.heading.split("; ")[0].split(" — ")[0]
    fragment = (anchors.get(clean_heading(unit.heading.split("; ")[0])) or anchors.get(first_heading)
                or anchors.get(unit.ref.split("; ")[0].split("(")[0].strip()))
    if page and doc.format == "pdf":
        return f"{base}#page={page}"
    first_ref = unit.ref.split("; ")[0].split("(")[0].strip()
    eurlex = EURLEX_URL_RE.match(base) or any(f.startswith(("art_", "rct_")) for f in anchors.values())
    if not fragment and eurlex:  # EUR-Lex pages anchor every article and recital: id="art_N", id="rct_N"
        numbered = re.fullmatch(r"(Article|Recital|Considérant|Erwägungsgrund|Considerando|Overweging) (\d+)",
                                first_ref)
        if numbered:
            fragment = f"{'art' if numbered.group(1) == 'Article' else 'rct'}_{numbered.group(2)}"
    return f"{base}#{fragment}" if fragment else base


RECITALS_HEADING_RE = re.compile(r"^(?:Recitals|Considérants|Erwägungsgründe|Considerandos|Overwegingen|Considerando)\b",
                                 re.IGNORECASE)
RECITAL_NUMBER_RE = re.compile(r"^\((\d{1,3})\)\s")
RECITAL_LABEL = {"fr": "Considérant", "de": "Erwägungsgrund", "es": "Considerando", "nl": "Overweging",
                 "it": "Considerando"}


def _recital_units(unit: DocumentUnit, language: str) -> list[DocumentUnit] | None:
    """A preamble's recitals ("## Recitals" holding "(1) …", "(2) …") as one unit per recital ("Recital 27"), or
    None when the unit is not that. One unit of 180 recitals split into 165 parts made every part "the same unit"
    as the leading passages (a ranker feature) and its citation could only open recital 1."""
    if not RECITALS_HEADING_RE.match(unit.heading):
        return None
    numbered = [RECITAL_NUMBER_RE.match(p) for p in unit.paragraphs]
    if sum(1 for m in numbered if m) < 3:
        return None
    label = RECITAL_LABEL.get(language, "Recital")
    units: list[DocumentUnit] = []
    lead: list[str] = []
    for paragraph, number in zip(unit.paragraphs, numbered):
        if number:
            name = f"{label} {number.group(1)}"
            units.append(DocumentUnit(name, name, [*unit.path, unit.heading], [paragraph]))
        elif units:
            units[-1].paragraphs.append(paragraph)  # a recital of several paragraphs
        else:
            lead.append(paragraph)
    if lead:
        units.insert(0, DocumentUnit(unit.heading, unit.ref, unit.path, lead))
    return units


def chunk_document(
    doc: CorpusDocument, text: str, max_chars: int = 1800, min_chars: int = 200, overlap_chars: int = 200,
    titles: SearchTitles | None = None,
) -> list[Chunk]:
    """Chunks of one document, in reading order, with stable ids derived from document id and ref; ``titles``
    (default: the shipped search titles) give each unit its search titles in other languages."""
    titles = load_search_titles() if titles is None else titles
    pages = _PageFinder(text) if PAGE_MARKERS_RE.search(text) else None
    anchors = _anchor_lookup(doc)
    raw_units = []
    for unit in parse_units(text):
        if not is_front_matter(unit):
            raw_units += _recital_units(unit, doc.language) or [unit]
    definitions = {id(unit): _definitions_article(unit, doc.language) for unit in raw_units}
    units = _merge_small(raw_units, min_chars, max_chars, fixed=lambda unit: definitions.get(id(unit)) is not None)
    chunks: list[Chunk] = []
    used: set[str] = set()  # a repeated base gets "-2", "-3" ...; skip suffixes another unit's base already has
    for unit in units:
        first = base = _chunk_base_id(doc.id, unit)
        repeat = 1
        while base in used:
            repeat += 1
            base = f"{first}-{repeat}"
        used.add(base)
        article = definitions.get(id(unit))
        gloss = titles.gloss(doc.id, unit.ref, unit.heading, doc.language)
        pieces = _definition_units(unit, article, min_chars) if article else [(unit, "")]
        for piece, suffix in pieces:
            piece_id = f"{base}~{suffix}" if suffix else base
            parts = _pack(piece.paragraphs, max_chars, overlap_chars)
            for number, part in enumerate(parts, start=1):
                page = pages.page_of(part) if pages else 0
                chunks.append(
                    Chunk(
                        chunk_id=piece_id if len(parts) == 1 else f"{piece_id}~{number}",
                        document_id=doc.id,
                        title=doc.short_title,
                        ref=piece.ref if len(parts) == 1 else f"{piece.ref} ({number}/{len(parts)})",
                        heading=piece.heading,
                        section_path=" › ".join(unit.path),
                        text="\n\n".join(part),
                        jurisdiction=doc.jurisdiction,
                        language=doc.language,
                        authority_level=doc.authority_level,
                        source_url=_passage_url(doc, piece, page, anchors),
                        position=len(chunks),
                        parent=base,
                        page=page,
                        gloss=gloss,
                    )
                )
    return chunks


def corpus_version(chunks: Sequence[Chunk]) -> str:
    """A corpus's identity: its passage ids and their texts (the stored index, its calibration and a query adapter
    trained on its vectors belong to this version only)."""
    digest = hashlib.sha256()
    for chunk in sorted(chunks, key=lambda c: c.chunk_id):
        digest.update(f"{chunk.chunk_id}\x00{chunk.content_hash}\n".encode())
    return digest.hexdigest()
