"""Source parsers (issue 23) on the real documents of ../shared/data/sources/ (read there, never copied), and on bad
input built in tmp_path. Expected counts come from the shared README and from pypdf itself (page numbers)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from regintel.retrieval.chunking import PAGE_MARKER_RE, chunk_document
from regintel.retrieval.corpus import CorpusDocument
from regintel.sources.parsers import ParsedDocument, ParseError, parse_source, sniff_format
from regintel.sources.parsers.pdf import _Dehyphenator, _Line
from tests.shared_sources import require_sources

ARTICLE_HEADING_RE = re.compile(r"^### (Article \d+[a-z]*)(?: — (.*))?$", re.MULTILINE)


def _parse(name: str) -> ParsedDocument:
    return parse_source(require_sources() / name)


@pytest.fixture(scope="module")
def gdpr_html() -> ParsedDocument:
    return _parse("gdpr-2016-679-eurlex-consolidated.html")


@pytest.fixture(scope="module")
def ai_act() -> ParsedDocument:
    return _parse("ai-act-2024-1689-oj.html")


@pytest.fixture(scope="module")
def eidas_page() -> ParsedDocument:
    return _parse("eidas-impl-reg-2024-2977-eurlex-page.html")


@pytest.fixture(scope="module")
def ico_docx() -> ParsedDocument:
    return _parse("ico-dpia-template-2018.docx")


@pytest.fixture(scope="module")
def bait() -> ParsedDocument:
    return _parse("bafin-bait-circular-10-2017-en.pdf")


@pytest.fixture(scope="module")
def gdpr_pdf() -> ParsedDocument:
    return _parse("gdpr-2016-679-oj.pdf")


@pytest.fixture(scope="module")
def dora() -> ParsedDocument:
    return _parse("dora-2022-2554-pe-cons-41-22.pdf")


def article_text(parsed: ParsedDocument, number: int) -> str:
    """The markdown between "### Article N" and the next heading."""
    match = re.search(rf"^### Article {number}\b.*?$(.*?)(?=^#)", parsed.markdown, re.MULTILINE | re.DOTALL)
    assert match, f"Article {number} not found"
    return match.group(1)


def paragraphs(parsed: ParsedDocument) -> list[str]:
    return [block for block in parsed.markdown.split("\n\n")
            if block.strip() and not block.startswith("#") and not PAGE_MARKER_RE.match(block)]


def chunks_of(parsed: ParsedDocument, url: str = "", **sizes):
    doc = CorpusDocument(id="src", title=parsed.title, short_title="src", path=Path("src.md"), format=parsed.format,
                         language=parsed.language, source_url=url, anchors=parsed.anchors)
    return chunk_document(doc, parsed.markdown, **sizes)


def page_markers(parsed: ParsedDocument) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^<!-- page (\d+) -->$", parsed.markdown, re.MULTILINE)]


def assert_contract(parsed: ParsedDocument, fmt: str) -> None:
    assert parsed.format == fmt
    assert parsed.markdown.count("\n# ") + parsed.markdown.startswith("# ") == 1, "one # Title"
    assert parsed.articles == len(ARTICLE_HEADING_RE.findall(parsed.markdown))
    assert "\u00a0" not in parsed.markdown and "\n\n\n" not in parsed.markdown
    assert not re.search(r"<!--(?!\s*page\s+\d+\s*-->)", parsed.markdown), "only page markers in comments"
    for heading in parsed.anchors:
        assert re.search(rf"^#+ {re.escape(heading)}$", parsed.markdown, re.MULTILINE), heading


# -- EUR-Lex HTML ----------------------------------------------------------------------------------------------

def test_gdpr_consolidated_html_articles_markers_and_anchors(gdpr_html):
    assert_contract(gdpr_html, "html")
    assert gdpr_html.articles == 99
    assert [int(n.split()[1]) for n, _ in ARTICLE_HEADING_RE.findall(gdpr_html.markdown)] == list(range(1, 100))
    assert not re.search(r"[►▼◄]", gdpr_html.markdown), "consolidation markers removed"
    assert "72 hours" in article_text(gdpr_html, 33)
    assert gdpr_html.anchors["Article 33 — Notification of a personal data breach to the supervisory authority"] == "art_33"
    assert "## CHAPTER IV — Controller and processor" in gdpr_html.markdown
    assert "#### Section 2 — Security of personal data" in gdpr_html.markdown
    # points are their own paragraphs and paragraph numbers stay with their text
    art33 = article_text(gdpr_html, 33)
    assert "\n\n(a) describe the nature of the personal data breach" in art33
    assert "\n\n1. In the case of a personal data breach" in "\n\n" + art33.strip()
    assert gdpr_html.metadata["celex"] == "32016R0679"
    assert gdpr_html.metadata["reference"].startswith("02016R0679")
    assert "General Data Protection Regulation" in gdpr_html.title
    assert gdpr_html.language == "en" and gdpr_html.pages is None and gdpr_html.problems == []


def test_ai_act_oj_html_articles_recitals_annexes(ai_act):
    assert_contract(ai_act, "html")
    assert ai_act.articles == 113
    recitals = re.search(r"^## Recitals$(.*?)(?=^## )", ai_act.markdown, re.MULTILINE | re.DOTALL).group(1)
    numbers = [int(n) for n in re.findall(r"^\((\d+)\) ", recitals, re.MULTILINE)]
    assert numbers == list(range(1, 181))
    annexes = re.findall(r"^## (ANNEX [IVX]+) — ", ai_act.markdown, re.MULTILINE)
    assert len(annexes) == 13 and annexes[2] == "ANNEX III"
    assert ai_act.anchors["ANNEX III — High-risk AI systems referred to in Article 6(2)"] == "anx_III"
    assert "### Article 5 — Prohibited AI practices" in ai_act.markdown
    assert "subliminal techniques" in article_text(ai_act, 5)
    assert "\n\n(a) the placing on the market" in article_text(ai_act, 5)
    assert ai_act.metadata["eli"].endswith("/eli/reg/2024/1689/oj")
    assert ai_act.metadata["celex"] == "32024R1689"
    assert "(Artificial Intelligence Act)" in ai_act.title


def test_eurlex_page_with_site_chrome(eidas_page):
    assert_contract(eidas_page, "html")
    assert eidas_page.articles == 6
    text = eidas_page.markdown
    assert "jQuery" not in text and "generateTOC" not in text and "ISSN" not in text
    assert eidas_page.metadata["eli"].rstrip("/").split("/eli/")[1].startswith("reg_impl/2024/2977")
    recitals = re.findall(r"^\((\d+)\) ", text.split("## Recitals")[1].split("### Article 1")[0], re.MULTILINE)
    assert len(recitals) == 14
    # the annex tables are kept as text rows
    assert re.search(r"^family_name \| Current last name\(s\) or surname\(s\) .* \| mandatory$", text, re.MULTILINE)
    assert re.search(r"^## ANNEX — ", text, re.MULTILINE)


def test_html_chunks_cite_articles_with_anchors(ai_act):
    chunks = chunks_of(ai_act, url="https://eur-lex.europa.eu/eli/reg/2024/1689/oj")
    article5 = [c for c in chunks if c.ref.split(" (")[0] == "Article 5"]
    assert article5 and all(c.source_url.endswith("#art_5") for c in article5)
    assert any("subliminal techniques" in c.text for c in article5)
    refs = {part.split(" (")[0].split("(")[0] for c in chunks for part in c.ref.split("; ")}  # small ones merge
    assert {f"Article {n}" for n in range(1, 114)} <= refs


# -- DOCX ------------------------------------------------------------------------------------------------------

def test_ico_docx_steps_and_table_text(ico_docx):
    assert_contract(ico_docx, "docx")
    headings = re.findall(r"^#{2,6} (.+)$", ico_docx.markdown, re.MULTILINE)
    steps = [h for h in headings if h.startswith("Step ")]
    assert [s.split(":")[0] for s in steps] == [f"Step {n}" for n in range(1, 8)]
    assert "Step 1: Identify the need for a DPIA" in steps
    assert ico_docx.title == "DPIA suggested process and template"
    # most of the text sits in table cells
    assert "Likelihood of harm" in ico_docx.markdown
    assert "Explain broadly what project aims to achieve" in ico_docx.markdown
    assert "Measures approved by: | Integrate actions back into project plan" in ico_docx.markdown
    assert ico_docx.markdown.count("Identify additional measures you could take") == 1, "merged cells once"
    chunks = chunks_of(ico_docx)
    assert any("Step 5: Identify and assess risks" in c.heading for c in chunks)


def test_docx_article_paragraphs_lists_and_tables(tmp_path):
    import docx

    document = docx.Document()
    document.core_properties.title = "Internal data policy"
    document.add_heading("CHAPTER I — Scope", level=1)
    document.add_paragraph("Article 1")
    document.add_paragraph("Subject matter")
    document.add_paragraph("This policy applies to every team processing customer data.")
    document.add_paragraph("first point", style="List Bullet")
    document.add_paragraph("Article 2 — Retention")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Record", "Retention period"
    table.cell(1, 0).text, table.cell(1, 1).text = "Invoices", "ten years"
    path = tmp_path / "policy.docx"
    document.save(path)
    parsed = parse_source(path)
    assert parsed.title == "Internal data policy" and parsed.articles == 1  # "Article 2 — …" in body text is prose
    assert "### Article 1 — Subject matter" in parsed.markdown
    assert "## CHAPTER I — Scope" in parsed.markdown
    assert "- first point" in parsed.markdown
    assert "Invoices | ten years" in parsed.markdown


# -- PDF -------------------------------------------------------------------------------------------------------

def test_bait_guidance_pdf_sections_and_pages(bait):
    assert_contract(bait, "pdf")
    assert bait.pages == 33 and bait.articles == 0
    sections = re.findall(r"^#{2,3} (.+)$", bait.markdown, re.MULTILINE)
    assert len(sections) >= 10
    assert "I. Preliminary remarks" in sections and "IT governance" in sections
    assert not re.search(r"Page \d+ of 33", bait.markdown), "running header removed"
    markers = page_markers(bait)
    assert markers == list(range(1, 34))
    chunks = chunks_of(bait, url="https://example.org/bait.pdf")
    assert len({c.heading for c in chunks}) >= 10, "sections are retrievable units"
    assert all(c.page >= 1 for c in chunks)
    assert any(c.source_url.endswith(f"#page={c.page}") for c in chunks)
    assert "Supervisory Requirements for IT in Financial Institutions (BAIT)" == bait.title


def test_edps_numbered_paragraph_guidance():
    parsed = _parse("edps-formal-comments-eidas2-2021.pdf")
    assert parsed.pages == 4
    assert re.findall(r"^## (.+)$", parsed.markdown, re.MULTILINE) == ["1. Introduction and background", "2. Comments"]
    assert parsed.title.startswith("Formal comments of the EDPS")
    assert "\uf0b7" not in parsed.markdown


@pytest.mark.slow
def test_gdpr_oj_pdf_articles_pages_and_furniture(gdpr_pdf):
    from pypdf import PdfReader

    assert_contract(gdpr_pdf, "pdf")
    assert gdpr_pdf.pages == 88 and gdpr_pdf.articles == 99
    assert "72 hours" in article_text(gdpr_pdf, 33)
    assert not re.search(r"^.*L 119/\d+.*$", gdpr_pdf.markdown, re.MULTILINE), "OJ running footer removed"
    assert page_markers(gdpr_pdf) == list(range(1, 89))
    # OJ footnotes ("(1) OJ C 229, …" under the text, no rule above them) are not taken for recitals
    recitals = gdpr_pdf.markdown.split("## Recitals")[1].split("## CHAPTER I")[0]
    assert [int(n) for n in re.findall(r"^\((\d+)\) ", recitals, re.MULTILINE)] == list(range(1, 174))
    assert "OJ C 229, 31.7.2012" not in gdpr_pdf.markdown
    assert "household activity and thus with no connection" in gdpr_pdf.markdown, "recital 18 whole across pages"
    # the page Article 33 starts on, according to pypdf itself
    reader = PdfReader(str(require_sources() / "gdpr-2016-679-oj.pdf"))
    expected = next(n for n, page in enumerate(reader.pages, start=1)
                    if re.search(r"^Article 33\s*$", page.extract_text(), re.MULTILINE))
    assert expected == 52
    chunks = chunks_of(gdpr_pdf, url="https://eur-lex.europa.eu/eli/reg/2016/679/oj")
    first = next(c for c in chunks if c.ref.split(" (")[0] == "Article 33")
    assert first.page == expected and first.source_url.endswith("#page=52")
    assert gdpr_pdf.metadata["oj"] == "OJ L 119, 4.5.2016" and gdpr_pdf.metadata["celex"] == "32016R0679"


@pytest.mark.slow
def test_dora_council_pdf(dora):
    assert_contract(dora, "pdf")
    assert dora.pages == 258 and dora.articles == 64
    assert "major ICT-related incident" in article_text(dora, 19)
    assert "### Article 19 — Reporting of major ICT-related incidents" in dora.markdown
    assert not any("PE-CONS 41/22" in p for p in paragraphs(dora)), "Council header removed"
    assert not re.search(r"^ECOFIN EN$", dora.markdown, re.MULTILINE)
    assert "ICT-related" in dora.markdown and "ICTrelated" not in dora.markdown
    markers = page_markers(dora)
    assert markers == sorted(markers) and markers[0] == 1 and markers[-1] == 258
    refs = {c.ref.split(" (")[0] for c in chunks_of(dora)}
    assert "Article 19" in refs and "Article 64" in refs


# -- synthetic PDFs: furniture, hyphenation, scanned, encrypted ------------------------------------------------

def _pdf(pages: list[list[str]], password: str | None = None) -> bytes:
    """A PDF whose pages carry these lines as a text layer (an empty list: a page without text)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = writer._add_object(DictionaryObject({NameObject("/Type"): NameObject("/Font"),
                                                NameObject("/Subtype"): NameObject("/Type1"),
                                                NameObject("/BaseFont"): NameObject("/Helvetica")}))
    for lines in pages:
        page = writer.add_blank_page(595, 842)
        if not lines:
            continue
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        ops = ["BT /F1 10 Tf 50 800 Td 12 TL"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        ops.append("ET")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
    if password is not None:
        writer.encrypt(password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _act_pages() -> list[list[str]]:
    body = [
        ["REGULATION (EU) 2099/7 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL", "on incident records",
         "(Text with EEA relevance)", "Article 1", "Subject matter", "1. This Regulation lays down rules on the notification of incidents by",
         "entities and on the obliga-", "tion to keep records of each incident.",
         "2. The obligation applies to ICT-", "related incidents only."],
        ["Article 2", "Definitions", "For the purposes of this Regulation, the following definitions apply to",
         "the entities and the incidents referred to in Article 1."],
        ["Article 3", "Records", "Each entity shall keep a record of every incident for five years."],
        ["Article 4", "Entry into force", "This Regulation shall enter into force on the twentieth day."],
    ]
    return [[f"L 99/{n} Official Journal of the European Union EN", *lines, f"Page {n} of 4"]
            for n, lines in enumerate(body, start=1)]


def test_synthetic_pdf_furniture_hyphenation_and_pages(tmp_path):
    path = tmp_path / "act.pdf"
    path.write_bytes(_pdf(_act_pages()))
    parsed = parse_source(path)
    assert parsed.pages == 4 and parsed.articles == 4 and parsed.problems == []
    assert "Official Journal" not in parsed.markdown and "Page 1 of 4" not in parsed.markdown
    assert "obligation to keep records" in parsed.markdown, "syllable hyphen repaired"
    assert "ICT-related incidents" in parsed.markdown, "real hyphen kept"
    assert "### Article 2 — Definitions" in parsed.markdown
    assert parsed.title == "REGULATION (EU) 2099/7 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL on incident records"
    assert parsed.metadata["celex"] == "32099R0007"
    assert page_markers(parsed) == [1, 2, 3, 4]
    chunks = chunks_of(parsed, url="https://example.org/act.pdf", min_chars=0)
    assert {c.ref: c.page for c in chunks if c.ref.startswith("Article")} == {
        "Article 1": 1, "Article 2": 2, "Article 3": 3, "Article 4": 4}
    assert next(c for c in chunks if c.ref == "Article 3").source_url == "https://example.org/act.pdf#page=3"


def test_pdf_without_text_layer_is_refused_and_partial_scan_reported(tmp_path):
    scanned = tmp_path / "scan.pdf"
    scanned.write_bytes(_pdf([[], [], []]))
    with pytest.raises(ParseError, match=r"scan\.pdf has no text layer: it looks scanned; run OCR first"):
        parse_source(scanned)
    partial = tmp_path / "partial.pdf"
    pages = _act_pages()
    partial.write_bytes(_pdf([pages[0], [], [], pages[3]]))
    parsed = parse_source(partial)
    assert "pages 2-3 have no text layer (scanned?)" in parsed.problems
    assert page_markers(parsed) == [1, 2, 3, 4]


def test_image_only_pdf_is_refused(tmp_path):
    """A PDF made of a real picture (the ICO logo from the shared DOCX) has no text layer, like a scan."""
    from PIL import Image

    with zipfile.ZipFile(require_sources() / "ico-dpia-template-2018.docx") as archive:
        name = next(n for n in archive.namelist() if n.startswith("word/media/"))
        image = Image.open(io.BytesIO(archive.read(name))).convert("RGB")
    path = tmp_path / "scanned-logo.pdf"
    image.save(path, "PDF", save_all=True, append_images=[image.copy()])
    with pytest.raises(ParseError, match="has no text layer: it looks scanned; run OCR first"):
        parse_source(path)


def test_encrypted_pdf(tmp_path):
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(_pdf(_act_pages(), password="secret"))
    with pytest.raises(ParseError, match="locked.pdf: the PDF is password-protected"):
        parse_source(locked)
    open_pdf = tmp_path / "open.pdf"
    open_pdf.write_bytes(_pdf(_act_pages(), password=""))
    assert parse_source(open_pdf).articles == 4


def test_dehyphenation_uses_the_documents_words():
    lines = [_Line(1, t) for t in ["the obligation holds", "ICT-related risk", "a well-known rule"]]
    join = _Dehyphenator(lines).join
    assert join("the obliga-", "tion applies") == "the obligation applies"
    assert join("major ICT-", "related incidents") == "major ICT-related incidents"
    assert join("a well-", "known rule") == "a well-known rule"
    assert join("its end-of-", "life stage") == "its end-of-life stage"
    assert join("far-reach-", "ing options") == "far-reaching options"


# -- bad input and dispatch ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["empty.pdf", "empty.html", "empty.docx", "empty.md"])
def test_empty_files_are_refused(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(ParseError, match=re.escape(name)):
        parse_source(path)


@pytest.mark.parametrize("name, content, message", [
    ("broken.pdf", b"%PDF-1.7\nthis is not a pdf body", "broken.pdf"),
    ("notpdf.pdf", b"<html><body>hello</body></html>", "not a PDF file"),
    ("broken.docx", b"PK\x03\x04 truncated zip", "broken.docx"),
    ("plain.docx", b"just some text", "not a DOCX file"),
    ("script.html", b"<html><head><script>var a = 1;</script></head><body><nav>Menu</nav></body></html>",
     "has no text"),
    ("data.xlsx", b"PK\x03\x04whatever", "unsupported file type .xlsx"),
    ("latin1.md", "# Titre\n\nDonn\xe9es".encode("latin-1"), "not valid UTF-8"),
])
def test_bad_input_gives_a_clear_sentence(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_source(path)


def test_zip_without_word_document(tmp_path):
    path = tmp_path / "archive.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("hello.txt", "hello")
    with pytest.raises(ParseError, match="archive.docx: not a readable DOCX document"):
        parse_source(path)


def test_dispatch_by_content_and_forced_format(tmp_path):
    pdf = tmp_path / "download"
    pdf.write_bytes(_pdf(_act_pages()))
    assert sniff_format(pdf) == "pdf"
    assert parse_source(pdf).format == "pdf"
    page = tmp_path / "saved.bin"
    page.write_text("<html><body><p class='oj-ti-art'>Article 1</p><p class='oj-sti-art'>Scope</p>"
                    "<p>It applies to everyone.</p></body></html>", encoding="utf-8")
    parsed = parse_source(page, format="html")
    assert parsed.articles == 1 and "### Article 1 — Scope" in parsed.markdown
    with pytest.raises(ParseError, match="unsupported format 'rtf'"):
        parse_source(page, format="rtf")
    with pytest.raises(ParseError, match="nothing.pdf: file not found"):
        parse_source(tmp_path / "nothing.pdf")


def test_markdown_passes_through(tmp_path):
    path = tmp_path / "act.md"
    text = "# Act\n\n### Article 1 — Scope\n\nThis act applies to every provider and deployer in the Union.\n"
    path.write_text(text, encoding="utf-8")
    parsed = parse_source(path)
    assert parsed.markdown == text and parsed.format == "markdown" and parsed.articles == 1 and parsed.title == "Act"


def test_parse_bench_reports_pages_per_second(tmp_path, capsys):
    from regintel.bench.__main__ import main as bench_main
    from regintel.bench.parse import run_parse_bench

    pdf = tmp_path / "act.pdf"
    pdf.write_bytes(_pdf(_act_pages()))
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 nothing")
    result = run_parse_bench([pdf, broken])
    good, bad = result["files"]
    assert good["pages"] == 4 and good["articles"] == 4 and good["pages_per_s"] > 0 and good["chunks"] >= 1
    assert "broken.pdf" in bad["error"]
    assert result["pdf_pages"] == 4 and result["pdf_files"] == 1
    assert bench_main(["parse", str(pdf), "--json"]) == 0
    assert '"pdf_pages": 4' in capsys.readouterr().out.splitlines()[-1]
