"""PDF sources (Official Journal prints, Council documents, regulators' guidance) to corpus markdown with pypdf,
page by page, keeping where each page starts (``<!-- page N -->``) so that a passage can cite "p. 12".

What real files need, in order:

1. **Running headers and footers** ("4.5.2016 L 119/2 Official Journal of the European Union EN",
   "PE-CONS 41/22 MCA 129" / "ECOFIN EN", "Circular 10/2017 (BA) … Page 5 of 33", bare page numbers): a line is
   boilerplate when, with its digits replaced by ``#``, it sits in the top or bottom lines of many pages; such lines
   are removed wherever they are. A guidance PDF that repeats its current section's name at the top of each page
   (BAIT) loses those repeats too. Footnotes under a footnote rule (a long run of spaces) are dropped and counted.
2. **Structure**: "Article N" lines (numbers must increase, so a wrapped cross-reference is not a heading) with the
   title on the following line(s), CHAPTER / TITLE / PART, Section and ANNEX headings with their title lines,
   "Whereas:" opening the recitals. A document without articles (guidance) gets its numbered headings ("1.
   Introduction", "II. Requirements") and short lines that open numbered paragraphs as sections.
3. **Text**: lines joined into paragraphs (a new one at a list point or paragraph number, after a short line that
   ends a sentence, or after a blank line), end-of-line hyphens removed when the joined word occurs in the document
   ("obliga-" + "tion"), kept when the hyphenated form does ("ICT-" + "related").

The page marker of page N is written before the first heading or paragraph that starts on page N; a paragraph that
runs over a page break stays whole and keeps the page it starts on.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from regintel.sources.parsers.model import (MarkdownWriter, ParsedDocument, ParseError, clean_text, count_articles,
                                            detect, heading_text)

ZONE = 4  # lines at the top and at the bottom of a page where running headers and footers sit
BULLETS = {"\uf0b7": "•", "\uf0a7": "•", "\uf0d8": "•", "\uf076": "•", "\uf0fc": "•", "\u25aa": "•", "\u25cf": "•"}
ARTICLE_RE = re.compile(r"^Article\s+(\d{1,3})\s*([a-z]{0,2})$")
DIVISION_RE = re.compile(r"^(CHAPTER|Chapter|TITLE|Title|PART|Part)\s+([IVXLC]{1,6}|\d{1,2})$")
SECTION_RE = re.compile(r"^(SECTION|Section)\s+([IVXLC]{1,6}|\d{1,2}|[A-Z])$")
ANNEX_RE = re.compile(r"^(ANNEX|Annex)(?:\s+([IVXLC]{1,6}|\d{1,2}|[A-Z]))?$")
ACT_TITLE_RE = re.compile(r"^(?:COMMISSION\s+|COUNCIL\s+)?(?:IMPLEMENTING\s+|DELEGATED\s+)?"
                          r"(REGULATION|DIRECTIVE|DECISION)\b(?!S)")
TITLE_END_RE = re.compile(r"^(?:\(Text with EEA relevance\)|THE EUROPEAN PARLIAMENT|THE COUNCIL|THE EUROPEAN COMMISSION|"
                          r"Having regard)", re.IGNORECASE)
POINT_START_RE = re.compile(
    r"^(?:\((?:\d{1,3}[a-z]?|[a-z]{1,3}|[ivxlc]{1,6})\)|(?:\d{1,3}[a-z]?\.)+(?=\s)|[a-z]\)|[–—•\-*]|Re \([a-z0-9]+\):)\s")
PREAMBLE_START_RE = re.compile(r"^(?:Having regard|After (?:transmission|consulting|having)|Acting in accordance|"
                               r"Whereas|HAVE ADOPTED|HAS ADOPTED)")
FOOTNOTE_CALL_RE = re.compile(r"(?<=\s)\((\d{1,3})\)(?=[\s,.;:]|$)")
FOOTNOTE_START_RE = re.compile(r"^\((\d{1,3})\)\s+((?:OJ|Position|Regulation|Directive|Decision|Council|Commission|"
                               r"Framework|Opinion|Recommendation|Judgment|Case|See|Convention|Communication)\b)?")
SENTENCE_END_RE = re.compile(r"[.:;!?][’'”)\]]?$")
NUMBERED_HEADING_RE = re.compile(r"^((?:\d{1,2}|[IVX]{1,5}|[A-H])\.)\s+([A-ZÀ-Ý].{1,85})$")
NUMBERED_PARAGRAPH_RE = re.compile(r"^\d{1,2}(?:\.\d{1,2})+\.?\s|^\d{1,2}\.\s|^Tz\.\s|^\(\d{1,3}\)\s")
TOC_LINE_RE = re.compile(r"\s\d{1,3}$")
WORD_RE = re.compile(r"[A-Za-zÀ-ÿ]+(?:-[A-Za-zÀ-ÿ]+)*")
OJ_FOOTER_RE = re.compile(r"(\d{1,2}\.\d{1,2}\.\d{4})\s+(L|C)\s+(\d+)/\d+\s+Official Journal", re.IGNORECASE)
ACT_NUMBER_RE = re.compile(r"^\D{0,80}?\((EU|EC|EEC|Euratom)\)\s*(?:No\s*)?((?:19|20)\d{2})/(\d{1,4})\b")


@dataclass
class _Line:
    page: int
    text: str
    blank_before: bool = False  # a blank line (or the page top) precedes it in the extracted text


@dataclass
class _Block:
    kind: str  # "heading" | "para"
    page: int
    text: str
    level: int = 0


def _key(line: str) -> str:
    return re.sub(r"\d+", "#", line)


def _is_heading_line(line: str) -> bool:
    return bool(ARTICLE_RE.match(line) or DIVISION_RE.match(line) or SECTION_RE.match(line)
                or ANNEX_RE.match(line))


def _open(path: Path):
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted:
            try:
                unlocked = reader.decrypt("")
            except Exception as exc:  # missing crypto support, broken encryption dictionary
                raise ParseError(f"{path.name}: the PDF is encrypted and cannot be opened ({exc})") from exc
            if not unlocked:
                raise ParseError(f"{path.name}: the PDF is password-protected; remove the password and add it again")
        count = len(reader.pages)
    except ParseError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
        raise ParseError(f"{path.name}: not a readable PDF ({exc})") from exc
    if count == 0:
        raise ParseError(f"{path.name}: the PDF has no pages")
    return reader


def _page_texts(reader, path: Path) -> tuple[list[list[str]], list[str]]:
    """Raw lines of every page (odd spaces and symbol-font bullets normalised, not yet stripped)."""
    pages: list[list[str]] = []
    problems: list[str] = []
    for number, page in enumerate(reader.pages, start=1):
        try:
            text = page.extract_text() or ""
        except Exception as exc:  # pypdf raises many kinds of errors on damaged content streams
            problems.append(f"page {number}: text could not be extracted ({type(exc).__name__})")
            text = ""
        for symbol, bullet in BULLETS.items():
            text = text.replace(symbol, bullet)
        pages.append(text.splitlines())
    return pages, problems


def _ranges(numbers: list[int]) -> str:
    parts, start, prev = [], None, None
    for n in numbers:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            parts.append(f"{start}-{prev}" if start != prev else str(start))
            start = prev = n
    if start is not None:
        parts.append(f"{start}-{prev}" if start != prev else str(start))
    return ", ".join(parts)


def _strip_furniture(raw_pages: list[list[str]]) -> tuple[list[_Line], int, dict[str, str]]:
    """Lines of the document without running headers, footers, page numbers and footnotes."""
    pages = []
    footnotes = 0
    for raw in raw_pages:
        lines: list[tuple[str, bool]] = []
        blank = True
        for raw_line in raw:
            if len(raw_line) >= 20 and not raw_line.strip() and lines:  # footnote rule: the rest are footnotes
                footnotes += sum(1 for r in raw[raw.index(raw_line) + 1:] if re.match(r"^\s*\(?\d{1,3}\)?\s", r))
                break
            line = clean_text(raw_line)
            if not line:
                blank = True
                continue
            lines.append((line, blank))
            blank = False
        pages.append(lines)
    n = len(pages)
    zone_counts: Counter[str] = Counter()
    headings: set[str] = set()  # keys of heading lines ("Article #" at the top of many pages is not a header)
    for lines in pages:
        zone = {_key(text) for text, _ in lines[:ZONE] + lines[-ZONE:]}
        zone_counts.update(zone)
        headings.update(_key(text) for text, _ in lines if _is_heading_line(text))
    threshold = max(3, int(0.4 * n)) if n >= 4 else n + 1
    boiler = {key for key, count in zone_counts.items() if count >= threshold and key not in headings}
    boiler_long = [key for key in boiler if len(key) >= 12]  # "PE-CONS #/#" alone is a piece of "PE-CONS #/# MCA #"
    metadata: dict[str, str] = {}
    # running section names at the top of guidance pages (BAIT): the same top line on several pages
    tops = Counter(_key(lines[0][0]) for lines in pages if lines)
    repeated_tops = {key for key, count in tops.items() if count >= 2 and key not in headings}
    running = (repeated_tops if n >= 4 and sum(tops[k] for k in repeated_tops) >= 0.5 * n else set())
    out: list[_Line] = []
    for page_number, lines in enumerate(pages, start=1):
        kept: list[tuple[str, bool]] = []
        for index, (text, blank) in enumerate(lines):
            key = _key(text)
            in_zone = index < ZONE or index >= len(lines) - ZONE
            if key in boiler or (len(key) >= 8 and any(b.startswith(key) for b in boiler_long)) or (in_zone and re.fullmatch(r"(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|-\s*\d{1,4}\s*-",
                                                            text, re.IGNORECASE)):
                footer = OJ_FOOTER_RE.search(text)
                if footer and "oj" not in metadata:
                    metadata["oj"] = f"OJ {footer.group(2).upper()} {footer.group(3)}, {footer.group(1)}"
                continue
            if index < 2 and (key in running or any(t == text for t, _ in lines[index + 1:index + 4])):
                continue  # a running section name (the real heading follows or was on an earlier page)
            kept.append((text, blank))
        cut = _oj_footnotes_start(kept)
        footnotes += len([t for t, _ in kept[cut:] if FOOTNOTE_START_RE.match(t)])
        kept = kept[:cut]
        out.extend(_Line(page_number, text, blank or i == 0) for i, (text, blank) in enumerate(kept))
    return out, footnotes, metadata


def _oj_footnotes_start(lines: list[tuple[str, bool]]) -> int:
    """Index where the Official Journal's footnotes start at the bottom of a page (len(lines) when none). OJ
    footnotes have no rule above them: they are the trailing run of "(n) OJ C 229 …" / "(n) Directive …" notes whose
    numbers are consecutive and are called in the page's text as " (n)". Recitals and points ("(3) The …",
    "(a) …") do not qualify: their numbers are not called in the text, or the run is not consecutive to the end."""
    text = " ".join(t for t, _ in lines)
    called = {int(n) for n in FOOTNOTE_CALL_RE.findall(text)}
    if not called:
        return len(lines)
    start = len(lines)
    expected = None
    for index in range(len(lines) - 1, -1, -1):
        match = FOOTNOTE_START_RE.match(lines[index][0])
        if not match:
            continue
        number = int(match.group(1))
        if number not in called or (expected is not None and number != expected) or not match.group(2):
            break
        start = index
        expected = number - 1
        if expected == 0:
            break
    if start < len(lines):
        first = FOOTNOTE_START_RE.match(lines[start][0])
        tail_numbers = [int(m.group(1)) for t, _ in lines[start:] if (m := FOOTNOTE_START_RE.match(t))]
        if not first or tail_numbers != list(range(tail_numbers[0], tail_numbers[0] + len(tail_numbers))):
            return len(lines)
    return start


class _Dehyphenator:
    """Joins "obliga-" + "tion" when "obligation" is a word of the document; keeps "ICT-" + "related"."""

    def __init__(self, lines: list[_Line]) -> None:
        self.words: set[str] = set()
        self.compounds: set[str] = set()
        after_break = False
        for line in lines:
            tokens = WORD_RE.findall(line.text)
            if after_break and tokens:
                tokens = tokens[1:]  # nor is the piece that starts the next line ("ing")
            after_break = line.text.endswith("-")
            if after_break and tokens:
                tokens = tokens[:-1]  # the broken word at the line end is not evidence
            for token in tokens:
                lowered = token.lower()
                (self.compounds if "-" in lowered else self.words).add(lowered)
                self.words.update(lowered.split("-"))

    def join(self, left: str, right: str) -> str:
        match = re.search(r"([A-Za-zÀ-ÿ]+(?:-[A-Za-zÀ-ÿ]+)*)-$", left)
        nxt = re.match(r"[a-zà-ÿ]+", right)
        if not match or not nxt:
            return f"{left} {right}"
        first, second = match.group(1), nxt.group(0)
        last_piece = first.split("-")[-1]
        joined = (last_piece + second).lower()
        if f"{first}-{second}".lower() in self.compounds and joined not in self.words:
            return f"{left}{right}"  # a real hyphen: "ICT-related"
        if "-" in first and joined not in self.words and (second.lower() in self.words or len(last_piece) <= 3):
            return f"{left}{right}"  # a compound in progress: "end-of-" + "life" (but "far-reach-" + "ing")
        if joined in self.words or (last_piece.islower() and len(last_piece) >= 2):
            return f"{left[:-1]}{right}"
        return f"{left}{right}"


def _find_title(lines: list[_Line], reader) -> tuple[str, set[int]]:
    """The act's title (lines consumed from the text), else the PDF's title property, else page 1's first line."""
    for index, line in enumerate(lines):
        if line.page > 3:
            break
        if ACT_TITLE_RE.match(line.text) and not line.text.endswith(("REGULATIONS", "DIRECTIVES")):
            used = {index}
            parts = [line.text]
            for j in range(index + 1, min(index + 8, len(lines))):
                if TITLE_END_RE.match(lines[j].text) or _is_heading_line(lines[j].text):
                    if lines[j].text.lower().startswith("(text with eea relevance)"):
                        used.add(j)
                    break
                parts.append(lines[j].text)
                used.add(j)
            return clean_text(" ".join(parts)), used
    info = reader.metadata or {}
    meta_title = clean_text(str(info.get("/Title") or ""))
    if len(meta_title.split()) >= 3 and not re.search(r"\.(?:docx?|pdf|indd)$|^Microsoft", meta_title, re.I):
        return re.sub(r"\s*/\s*", "/", re.sub(r" - ", " ", meta_title)), set()
    for index, line in enumerate(lines[:15]):  # a line naming its acronym: "… in Financial Institutions (BAIT)"
        if line.page == 1 and re.search(r"\([A-Z][A-Za-z]{1,9}\)$", line.text) and len(line.text.split()) >= 3:
            return line.text, {index}
    for index, line in enumerate(lines[:15]):
        if len(line.text.split()) >= 3 and not re.match(r"^(?:www\.|https?://)", line.text):
            used = {index}
            parts = [line.text]
            j = index + 1
            while (j < len(lines) and len(parts) < 4 and not lines[j].blank_before and lines[j].page == line.page
                   and not SENTENCE_END_RE.search(parts[-1]) and not NUMBERED_HEADING_RE.match(lines[j].text)):
                parts.append(lines[j].text)
                used.add(j)
                j += 1
            return clean_text(" ".join(parts)), used
    return "", set()


def _structure(lines: list[_Line], consumed: set[int]) -> tuple[list[_Block], int]:
    """Headings and paragraphs, in order. Returns the blocks and the number of articles found."""
    articles_possible = any(ARTICLE_RE.match(line.text) for line in lines)
    blocks: list[_Block] = []
    dehyphen = _Dehyphenator(lines)
    last_article = 0
    articles = 0
    have_roman = False  # with roman top sections (BAIT: I., II.), "1." headings sit one level below
    widths: dict[int, float] = {}
    for page in {line.page for line in lines}:
        lengths = sorted(len(line.text) for line in lines if line.page == page)
        widths[page] = lengths[int(0.8 * (len(lengths) - 1))] if lengths else 80
    para: list[_Line] = []

    def flush() -> None:
        if not para:
            return
        text = para[0].text
        for line in para[1:]:
            text = dehyphen.join(text, line.text) if text.endswith("-") else f"{text} {line.text}"
        blocks.append(_Block("para", para[0].page, text))
        para.clear()

    def title_lines(start: int) -> tuple[str, int]:
        """A heading's title: the next line, plus lines continuing it (lowercase start), unless it is body text."""
        if start >= len(lines) or start in consumed:
            return "", start
        first = lines[start].text
        if (POINT_START_RE.match(first) or _is_heading_line(first) or len(first) > 200
                or not re.match(r"^[A-ZÀ-Ý‘'“\"(]", first) or first.endswith((":", ";"))):
            return "", start
        if first.endswith(".") and len(first.split()) > 12:
            return "", start
        parts, j = [first], start + 1
        while (j < len(lines) and len(" ".join(parts)) < 250 and not SENTENCE_END_RE.search(parts[-1])
               and re.match(r"^[a-zà-ÿ(]", lines[j].text) and not POINT_START_RE.match(lines[j].text)):
            parts.append(lines[j].text)
            j += 1
        return clean_text(" ".join(parts)), j

    i = 0
    while i < len(lines):
        if i in consumed:  # title lines: they end whatever paragraph came before
            flush()
            i += 1
            continue
        line = lines[i]
        text = line.text
        article = ARTICLE_RE.match(text)
        if article and last_article < int(article.group(1)) <= last_article + 15 or (
                article and int(article.group(1)) == last_article and article.group(2)):
            flush()
            last_article = int(article.group(1))
            title, i = title_lines(i + 1)
            blocks.append(_Block("heading", line.page, heading_text(f"Article {article.group(1)}{article.group(2)}",
                                                                      title), 3))
            articles += 1
            continue
        division = DIVISION_RE.match(text) or ANNEX_RE.match(text)
        section = SECTION_RE.match(text)
        if (division or section) and (articles_possible or not para):
            flush()
            label = text if not section else f"Section {section.group(2)}"
            if division and division.group(1).isupper() is False and not ANNEX_RE.match(text):
                label = f"{division.group(1).upper()} {division.group(2)}"
            title, i = title_lines(i + 1)
            blocks.append(_Block("heading", line.page, heading_text(label, title), 4 if section else 2))
            continue
        if text == "Whereas:" and articles_possible:
            para.append(line)
            flush()
            blocks.append(_Block("heading", line.page, "Recitals", 2))
            i += 1
            continue
        if not articles_possible and (not para or line.blank_before or SENTENCE_END_RE.search(para[-1].text)
                                      or TOC_LINE_RE.search(para[-1].text)):
            heading = _guidance_heading(lines, i)
            if heading:
                flush()
                numbered = NUMBERED_HEADING_RE.match(text)
                roman = bool(numbered and re.fullmatch(r"[IVX]{1,5}\.", numbered.group(1)))
                level = 2 if roman or (numbered and not have_roman) else 3
                have_roman = have_roman or roman
                blocks.append(_Block("heading", line.page, text, level))
                i += 1
                continue
        if para:
            prev = para[-1].text
            new = (line.blank_before and (SENTENCE_END_RE.search(prev) or line.page == para[-1].page)
                   or POINT_START_RE.match(text) or PREAMBLE_START_RE.match(text)
                   or (SENTENCE_END_RE.search(prev) and len(prev) < 0.8 * widths.get(para[-1].page, 80)
                       and not re.match(r"^[a-zà-ÿ]", text)))
            if new:
                flush()
        para.append(line)
        i += 1
    flush()
    return blocks, articles


def _guidance_heading(lines: list[_Line], i: int) -> bool:
    """A section heading of a guidance document: "1. Introduction", "II. Requirements", or a short title-like line
    that opens numbered paragraphs ("IT governance" before "2.1. …")."""
    text = lines[i].text
    if len(text) > 90 or SENTENCE_END_RE.search(text) or text.endswith(",") or TOC_LINE_RE.search(text):
        return False
    nxt = lines[i + 1].text if i + 1 < len(lines) else ""
    if NUMBERED_HEADING_RE.match(text):
        return not nxt or not re.match(r"^[a-zà-ÿ]", nxt)
    if POINT_START_RE.match(text) or not re.match(r"^[A-ZÀ-Ý]", text) or len(text.split()) > 10:
        return False
    return bool(NUMBERED_PARAGRAPH_RE.match(nxt))


def parse_pdf(path: Path) -> ParsedDocument:
    """Parse a PDF with a text layer; raise ParseError when it is unreadable, locked or has no text at all."""
    import logging

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # "Overwriting cache …" and similar noise on real files
    try:
        head = path.read_bytes()[:1024]
    except OSError as exc:
        raise ParseError(f"{path.name}: cannot be read ({exc.strerror})") from exc
    if b"%PDF-" not in head:
        raise ParseError(f"{path.name}: not a PDF file (no %PDF header)")
    reader = _open(path)
    raw_pages, problems = _page_texts(reader, path)
    page_count = len(raw_pages)
    empty = [n for n, raw in enumerate(raw_pages, start=1) if len("".join(raw).strip()) < 10]
    if len(empty) == page_count:
        raise ParseError(f"{path.name} has no text layer: it looks scanned; run OCR first")
    if empty:
        problems.append(f"page{'s' if len(empty) > 1 else ''} {_ranges(empty)} "
                        f"{'have' if len(empty) > 1 else 'has'} no text layer (scanned?)")
    lines, footnotes, metadata = _strip_furniture(raw_pages)
    title, consumed = _find_title(lines, reader)
    blocks, _ = _structure(lines, consumed)
    writer = MarkdownWriter()
    writer.heading(1, title or path.stem)
    next_page = 1
    for block in blocks:
        while next_page <= block.page:
            writer.page(next_page)
            next_page += 1
        if block.kind == "heading":
            writer.heading(block.level, block.text)
        else:
            writer.paragraph(block.text)
    while next_page <= page_count:
        writer.page(next_page)
        next_page += 1
    markdown = writer.render()
    articles = count_articles(markdown)
    if not articles and not any(b.kind == "heading" for b in blocks):
        problems.append("no article headings found")
    elif not articles:
        problems.append("no article headings found: sections taken from the document's own headings")
    if footnotes:
        metadata["footnotes_removed"] = str(footnotes)
    info = reader.metadata or {}
    for key, name in (("/Author", "author"), ("/CreationDate", "created")):
        value = clean_text(str(info.get(key) or ""))
        if value:
            metadata[name] = value
    if info.get("/Title"):
        metadata["pdf_title"] = clean_text(str(info.get("/Title")))
    reference = re.search(r"\bPE-CONS\s+\d+/\d+|\bCircular\s+\d+/\d{4}\s*\(\w+\)", "\n".join(
        "\n".join(raw) for raw in raw_pages[:2]))
    if reference:
        metadata["reference"] = clean_text(reference.group(0))
    version = re.search(r"in the version of (\d{1,2}\.\d{1,2}\.\d{4})", "\n".join("\n".join(r) for r in raw_pages[:1]))
    if version:
        metadata["version"] = version.group(1)
    number = ACT_NUMBER_RE.search(title)
    kind = ACT_TITLE_RE.match(title)
    if number and kind:
        letter = {"REGULATION": "R", "DIRECTIVE": "L", "DECISION": "D"}[kind.group(1)]
        metadata["celex"] = f"3{number.group(2)}{letter}{int(number.group(3)):04d}"
    body = "\n".join(b.text for b in blocks if b.kind == "para")
    return ParsedDocument(markdown=markdown, format="pdf", title=title or path.stem, language=detect(body),
                          pages=page_count, articles=articles, anchors={}, problems=problems, metadata=metadata)
