"""EUR-Lex HTML (consolidated texts, the Official Journal "convex" rendering, and pages saved from the EUR-Lex
site) to article-aware corpus markdown, with BeautifulSoup over lxml.

Both layouts mark their structure with CSS classes and ids, which this parser reads instead of guessing from text:

- consolidated: ``p.title-article-norm`` "Article 5" + ``p.stitle-article-norm`` title, ``p.title-division-1/2``
  chapters and sections, points as ``div.grid-list`` (label column + text column), paragraph numbers in
  ``span.no-parag``, amendment markers (``►C1`` … ``◄``, ``▼B`` in ``p.arrow``/``p.modref``) removed;
- OJ convex: ``p.oj-ti-art`` + ``p.oj-sti-art``, ``p.oj-ti-section-1/2``, recitals in ``div#rct_N``, points as
  two-column tables (label | text), annexes as ``div.eli-container#anx_N`` opened by ``p.oj-doc-ti`` "ANNEX III"
  and its subtitle, annex sub-headings ``p.oj-ti-grseq-1``, data tables rendered row by row ("a | b | c").

Scripts, styles, navigation, the OJ page header, footnotes and the EUR-Lex site chrome are dropped. The body is the
smallest element holding every ``eli-container``; the document's ELI is the canonical link or the ELI carrying the
act's own number (the footer of a saved page lists related acts' ELIs too). Headings keep their EUR-Lex ids as
anchors (``art_5``, ``cpt_II``, ``anx_III``, ``rct_1``) so that a citation can open the article itself.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from regintel.sources.parsers.model import (MarkdownWriter, ParsedDocument, ParseError, clean_text, count_articles,
                                            detect, heading_text)

BLOCK_TAGS = ["p", "div", "table", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "section",
              "article", "dl", "dt", "dd", "tr", "td", "th", "tbody", "thead", "pre", "center"]
DROP_TAGS = ["script", "style", "noscript", "nav", "header", "footer", "form", "button", "select", "input", "img",
             "svg", "iframe", "object", "template", "head", "link", "meta"]
DROP_CLASSES = {"arrow", "modref", "oj-note", "footnote", "note", "disclaimer", "reference", "hd-modifiers",
                "title-fam-member", "title-doc-oj-reference", "oj-hd-ti", "oj-hd-lg", "oj-hd-coll", "oj-hd-uniq",
                "oj-hd-date", "oj-final", "oj-doc-end", "oj-separator", "separator", "separator-short"}
ARTICLE_LABELS = {"title-article-norm", "oj-ti-art", "ti-art"}
ARTICLE_TITLES = {"stitle-article-norm", "oj-sti-art", "sti-art"}
DIVISION_LABELS = {"title-division-1", "oj-ti-section-1", "ti-section-1"}
DIVISION_TITLES = {"title-division-2", "oj-ti-section-2", "ti-section-2"}
ANNEX_LABELS = {"title-annex-1", "oj-doc-ti", "doc-ti", "title-doc-first"}
ANNEX_TITLES = {"title-annex-2", "oj-doc-ti", "doc-ti", "title-doc-first"}
GRSEQ = {"oj-ti-grseq-1", "ti-grseq-1", "title-gr-seq-level-1", "oj-ti-grseq-2", "title-gr-seq-level-2"}
MAIN_TITLE = {"eli-main-title"}
MARKER_RE = re.compile(r"[►▼]\s*[A-Z]{1,2}\d*(?:\s*\(\d+\))?|◄")
POINT_LABEL_RE = re.compile(r"^(?:\(?(?:\d{1,3}[a-z]?|[a-z]{1,3}|[ivxlcIVXLC]{1,6}|[A-Z])[.)]?|[—–\-•*]|\d{1,2}(?:\.\d{1,2})+\.?)$")
SPACE_BEFORE_PUNCT_RE = re.compile(r"(?<=\w)\s+([,;.:](?:\s|$))")  # "Committee ," once a footnote call is gone
OJ_FOOTER_RE = re.compile(r"^(?:ELI:\s*https?://\S+|ISSN \d{4}-\d{3}[\dX]\b.{0,40})$")
TRAILING_PUNCT_RE = re.compile(r"^[;,.:’'”]+$")
SHORT_DIVISION_RE = re.compile(r"^(?:section|part|chapter|title|sub-section|subsection)\s+\S{1,6}$", re.IGNORECASE)
ANNEX_RE = re.compile(r"^(?:ANNEX|Annex|APPENDIX|Appendix)\b")
ID_ANCHOR_RE = re.compile(r"^(?:cpt|tis|prt|ttl|sct|art|anx|rct|pbl)_[^ ]*$")
ELI_RE = re.compile(r"(?:https?://)?data\.europa\.eu/eli/[\w/.\-]+|https?://eur-lex\.europa\.eu/eli/[\w/.\-]+")
ACT_NUMBER_RE = re.compile(r"\((EU|EC|EEC|Euratom)\)\s*(?:No\s*)?(\d{2,4})/(\d{1,4})|\b(\d{4})/(\d{1,4})\b")
CELEX_RE = re.compile(r"\b([0-9]\d{4}[A-Z]{1,2}\d{4}(?:\(\d+\))?)\b")


def _classes(tag) -> set[str]:
    return set(tag.get("class") or [])


def _text(tag) -> str:
    """The element's text on one line: markers gone, spaces normalised, ``<br>`` as a space."""
    for br in tag.find_all("br"):
        br.replace_with(" ")
    return clean_text(MARKER_RE.sub(" ", tag.get_text("")))


def _anchor_of(tag) -> str:
    """The EUR-Lex id of the structure a heading opens (art_5, cpt_II, cpt_III.sct_1, anx_III)."""
    for node in [tag, *tag.parents]:
        ident = node.get("id") if hasattr(node, "get") else None
        if ident and ID_ANCHOR_RE.match(ident) and ".tit_" not in ident:
            return ident
    return ""


class _Walker:
    """Walks the document body in order, writing markdown. A heading label ("Article 5") waits for its title line
    ("Prohibited AI practices"); a point label ("(a)", "1.") waits for the text it prefixes."""

    def __init__(self, writer: MarkdownWriter, title: str = "") -> None:
        self.out = writer
        self.title = title
        self.pending: tuple[int, str, str, set[str]] | None = None  # level, label, anchor, classes its title may have
        self.prefix = ""
        self.in_annex = False
        self.recitals_open = False

    # -- emitting -----------------------------------------------------------------------------------------------
    def flush_heading(self, title: str = "") -> None:
        if self.pending:
            level, label, anchor, _ = self.pending
            self.pending = None
            self.flush_prefix()
            self.out.heading(level, heading_text(label, title), anchor)

    def flush_prefix(self) -> None:
        if self.prefix:
            prefix, self.prefix = self.prefix, ""
            self.out.paragraph(prefix)

    def paragraph(self, text: str) -> None:
        text = SPACE_BEFORE_PUNCT_RE.sub(r"\1", clean_text(MARKER_RE.sub(" ", text)))
        if not text:
            return
        self.flush_heading()
        if OJ_FOOTER_RE.match(text):  # the OJ's closing "ELI: …" / "ISSN …" lines (the ELI is in metadata)
            return
        if TRAILING_PUNCT_RE.match(text) and self.out.blocks and not self.out.blocks[-1].startswith(("#", "<!--")):
            self.out.blocks[-1] += text  # the ";" closing a quoted amendment
            return
        if POINT_LABEL_RE.match(text) and not text.isalpha():  # "1." alone: the label of the next paragraph
            self.flush_prefix()
            self.prefix = text
            return
        if self.prefix:
            text = f"{self.prefix} {text}"
            self.prefix = ""
        self.out.paragraph(text)

    # -- walking ------------------------------------------------------------------------------------------------
    def walk(self, element) -> None:
        inline: list[str] = []
        for child in list(element.children):
            if isinstance(child, str):  # NavigableString (comments were removed beforehand)
                if child.strip():
                    inline.append(str(child))
                continue
            if child.name not in BLOCK_TAGS and not child.find(BLOCK_TAGS) and "no-parag" not in _classes(child):
                inline.append(child.get_text(""))
                continue
            if inline:
                self.paragraph("".join(inline))
                inline = []
            self.block(child)
        if inline:
            self.paragraph("".join(inline))

    def block(self, tag) -> None:
        classes = _classes(tag)
        ident = tag.get("id") or ""
        if ident == "pbl_1":
            self.flush_heading()
            self.out.heading(2, "Preamble", "pbl_1")
        elif ident.startswith("rct_") and not self.recitals_open:
            self.recitals_open = True
            self.flush_heading()
            self.out.heading(2, "Recitals", ident)
        if ident.startswith("anx_") or ident.startswith("enc_"):
            self.in_annex = ident.startswith("anx_")
        if classes & MAIN_TITLE:
            return  # already written as the "# Title"
        if tag.name == "table":
            self.table(tag)
            return
        if classes & {"grid-list-column-1", "list"} and not tag.find(["p", "table"]):
            self.flush_prefix()
            self.prefix = _text(tag)
            return
        if tag.name == "span" and classes & {"no-parag"}:
            self.flush_prefix()
            self.prefix = _text(tag)
            return
        if tag.name in {"p", "h1", "h2", "h3", "h4", "h5", "h6"} or not tag.find(BLOCK_TAGS):
            self.leaf(tag, classes)
            return
        self.walk(tag)

    def leaf(self, tag, classes: set[str]) -> None:
        text = _text(tag)
        if not text:
            return
        if self.pending and classes & self.pending[3]:
            self.flush_heading(text)
            return
        if self.pending and self.pending[3] == GRSEQ and classes & GRSEQ:
            self.flush_heading(text)
            return
        self.flush_heading()
        if classes & ARTICLE_LABELS and re.match(r"^Article\s+\d", text):
            self.pending = (3, text, _anchor_of(tag), ARTICLE_TITLES)
        elif classes & DIVISION_LABELS:
            level = 4 if re.match(r"^(?:section|sub-?section)\b", text, re.IGNORECASE) else 2
            label = re.sub(r"^SECTION\b", "Section", text)
            self.pending = (level, label, _anchor_of(tag), DIVISION_TITLES)
        elif classes & ANNEX_LABELS and ANNEX_RE.match(text) and len(text) < 40:
            self.in_annex = True
            self.pending = (2, text, _anchor_of(tag), ANNEX_TITLES)
        elif classes & GRSEQ:
            level = 3 if self.in_annex else 4
            if SHORT_DIVISION_RE.match(text):
                self.pending = (level, text, "", GRSEQ)
            else:
                self.out.heading(level, text)
        elif tag.name == "h1" and text == self.title:
            pass  # the "# Title" already
        elif tag.name in {"h1", "h2", "h3", "h4", "h5", "h6"}:  # plain HTML: an "Article N" heading is an article
            article = re.match(r"^Article\s+(\d{1,3}[a-z]?)\b\s*[—–\-:.]?\s*(.*)$", text)
            if article:
                self.out.heading(3, heading_text(f"Article {article.group(1)}", article.group(2)))
            else:
                self.out.heading(min(int(tag.name[1]) + 1, 6), text)
        else:
            self.paragraph(text)

    def table(self, table) -> None:
        rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
        cells_of = [[c for c in row.find_all(["td", "th"]) if c.find_parent("tr") is row] for row in rows]
        point_rows = [[c for c in cells if _text(c)] for cells in cells_of]
        point_rows = [cells for cells in point_rows if cells]
        if point_rows and all(len(cells) <= 2 for cells in cells_of) and all(
                len(cells) == 1 or POINT_LABEL_RE.match(_text(cells[0])) for cells in point_rows):
            for cells in point_rows:  # a list point laid out as a table: label | text (label blank: text only)
                self.flush_prefix()
                if len(cells) == 2:
                    self.prefix = _text(cells[0])
                self.walk(cells[-1])
                self.flush_prefix()
            return
        for cells in cells_of:
            texts = []
            for cell in cells:
                if cell.find("table"):
                    self.flush_row(texts)
                    texts = []
                    self.walk(cell)
                    continue
                parts = [_text(p) for p in cell.find_all(["p", "li"])] or [_text(cell)]
                texts.append(" ".join(p for p in parts if p))
            self.flush_row(texts)

    def flush_row(self, texts: list[str]) -> None:
        texts = [t for t in texts if t]
        if texts:
            self.paragraph(" | ".join(t for t in texts))


def _lowest_common_ancestor(tags):
    if not tags:
        return None
    chains = [[tag, *tag.parents] for tag in tags]
    common = chains[0]
    for chain in chains[1:]:
        ids = {id(node) for node in chain}
        common = [node for node in common if id(node) in ids]
    return common[0] if common else None


def _main_title(soup, root) -> str:
    container = root.find(class_="eli-main-title") or soup.find(class_="eli-main-title")
    lines = []
    if container is not None:
        lines = [_text(p) for p in container.find_all("p")] or [_text(container)]
    else:
        lines = [_text(p) for p in soup.find_all("p", class_=["oj-doc-ti", "title-doc-first"])[:3]]
    lines = [line for line in lines if line and not re.fullmatch(r"\(Text with EEA relevance\)", line, re.I)]
    if lines:
        return clean_text(" ".join(lines))
    heading = soup.find("h1") or soup.find("title")
    return _text(heading) if heading is not None else ""


def _metadata(soup, title: str) -> dict[str, str]:
    meta: dict[str, str] = {}
    if soup.title is not None and soup.title.get_text(strip=True):
        meta["html_title"] = clean_text(soup.title.get_text())
    reference = soup.find("p", class_="reference")
    if reference is not None:
        meta["reference"] = _text(reference)  # "02016R0679 — EN — 04.05.2016 — 000.002"
        parts = [part.strip() for part in meta["reference"].split("—")]
        if len(parts) >= 3:
            meta["date"] = parts[2]
        if len(parts) >= 4:
            meta["version"] = parts[3]
    oj_ref = soup.find("p", class_="title-doc-oj-reference")
    if oj_ref is not None:
        meta["oj"] = _text(oj_ref).strip("()")
    for cls, key in (("oj-hd-date", "date"), ("oj-hd-uniq", "oj_number")):
        tag = soup.find("p", class_=cls)
        if tag is not None and key not in meta:
            meta[key] = _text(tag)
    number = ACT_NUMBER_RE.search(title)
    year, num = ((number.group(2), number.group(3)) if number and number.group(2)
                 else (number.group(4), number.group(5)) if number else ("", ""))
    if year and len(year) == 2:
        year = ("19" if int(year) > 50 else "20") + year
    canonical = soup.find("link", rel="canonical")
    elis = ([canonical["href"]] if canonical is not None and canonical.get("href") and "/eli/" in canonical["href"]
            else [])
    found = ELI_RE.findall(str(soup))
    own = [eli for eli in found if year and num and f"/{year}/{num}/" in eli + "/"]
    eli = (elis or own or [""])[0]
    if eli:
        meta["eli"] = eli if eli.startswith("http") else "http://" + eli
    celex = ""
    if "reference" in meta:
        match = CELEX_RE.search(meta["reference"])
        if match:
            celex = "3" + match.group(1)[1:] if match.group(1).startswith("0") else match.group(1)
    if not celex and year and num:
        kind = ("L" if re.search(r"\bDIRECTIVE\b", title, re.I) else
                "D" if re.search(r"\bDECISION\b", title, re.I) else
                "R" if re.search(r"\bREGULATION\b", title, re.I) else "")
        if kind:
            celex = f"3{year}{kind}{int(num):04d}"
    if celex:
        meta["celex"] = celex
    return {key: value for key, value in meta.items() if value}


def parse_html(path: Path) -> ParsedDocument:
    """Parse a EUR-Lex (or any) HTML/XHTML file; raise ParseError when it holds no text."""
    from bs4 import BeautifulSoup, Comment, XMLParsedAsHTMLWarning

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ParseError(f"{path.name}: cannot be read ({exc.strerror})") from exc
    if not raw.strip():
        raise ParseError(f"{path.name}: the file is empty")
    if raw.lstrip()[:5] in (b"%PDF-",) or raw[:4] == b"PK\x03\x04":
        raise ParseError(f"{path.name}: not an HTML document (the content is a PDF or a zip archive)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        try:
            soup = BeautifulSoup(raw, "lxml")
        except Exception as exc:  # lxml raises several parser errors on garbage input
            raise ParseError(f"{path.name}: not readable as HTML ({exc})") from exc
    metadata_soup = soup  # metadata reads the head (canonical link) before chrome is dropped
    title = _main_title(soup, soup)
    metadata = _metadata(metadata_soup, title)
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for tag in soup.find_all(DROP_TAGS):
        tag.decompose()
    for tag in soup.find_all(class_=lambda c: c in DROP_CLASSES):
        tag.decompose()
    for link in soup.find_all("a", href=re.compile(r"^#ntr")):  # footnote calls "(1)" in the text
        link.decompose()
    containers = soup.find_all(class_="eli-container")
    root = _lowest_common_ancestor(containers) or soup.body or soup
    if not clean_text(root.get_text(" ")):
        raise ParseError(f"{path.name}: the HTML page has no text")
    writer = MarkdownWriter()
    if title:
        writer.heading(1, title)
    walker = _Walker(writer, title)
    walker.walk(root)
    walker.flush_heading()
    walker.flush_prefix()
    markdown = writer.render()
    articles = count_articles(markdown)
    problems = [] if articles else ["no article headings found"]
    body_text = "\n".join(b for b in writer.blocks if not b.startswith("#"))
    if not body_text.strip():
        raise ParseError(f"{path.name}: the HTML page has no text")
    return ParsedDocument(markdown=markdown, format="html", title=title or path.stem, language=detect(body_text),
                          pages=None, articles=articles, anchors=dict(writer.anchors), problems=problems,
                          metadata=metadata)
