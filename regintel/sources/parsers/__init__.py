"""Article-aware parsers for the files users bring as sources (issue 23): EUR-Lex HTML, PDF, DOCX and markdown.

``parse_source(path)`` picks the parser from the suffix (or, without a known suffix, from the first bytes) and
returns a ``ParsedDocument`` whose markdown the chunker turns into article-level passages. Anything that cannot be
read becomes a ``ParseError`` with one sentence naming the file; nothing is parsed into an empty document silently.
"""

from __future__ import annotations

from pathlib import Path

from regintel.sources.parsers.model import ParsedDocument, ParseError

__all__ = ["FORMATS", "ParseError", "ParsedDocument", "parse_source", "sniff_format"]

FORMATS = ("html", "pdf", "docx", "markdown")
SUFFIX_FORMATS = {".html": "html", ".htm": "html", ".xhtml": "html", ".xml": "html", ".pdf": "pdf",
                  ".docx": "docx", ".md": "markdown", ".markdown": "markdown", ".txt": "markdown"}


def sniff_format(path: Path) -> str | None:
    """The format told by the file's suffix, else by its first bytes; None when neither says."""
    by_suffix = SUFFIX_FORMATS.get(path.suffix.lower())
    if by_suffix:
        return by_suffix
    try:
        with path.open("rb") as handle:
            head = handle.read(2048)
    except OSError:
        return None
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04") and b"word/" in _zip_names(path):
        return "docx"
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<html" in lowered:
        return "html"
    return None


def _zip_names(path: Path) -> bytes:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            return "\n".join(archive.namelist()).encode()
    except (zipfile.BadZipFile, OSError):
        return b""


def parse_source(path: Path, *, format: str | None = None) -> ParsedDocument:
    """Parse one source file into corpus markdown. ``format`` overrides the suffix ("html", "pdf", "docx",
    "markdown"); raises ParseError when the file is missing, empty, unsupported or unreadable."""
    path = Path(path)
    if not path.is_file():
        raise ParseError(f"{path.name}: file not found")
    if path.stat().st_size == 0:
        raise ParseError(f"{path.name}: the file is empty")
    if format is not None and format not in FORMATS:
        raise ParseError(f"{path.name}: unsupported format {format!r} (use one of {', '.join(FORMATS)})")
    kind = format or sniff_format(path)
    if kind is None:
        raise ParseError(f"{path.name}: unsupported file type {path.suffix or '(no suffix)'}; "
                         "add EUR-Lex HTML, PDF, DOCX or markdown")
    if kind == "html":
        from regintel.sources.parsers.eurlex_html import parse_html
        return parse_html(path)
    if kind == "pdf":
        from regintel.sources.parsers.pdf import parse_pdf
        return parse_pdf(path)
    if kind == "docx":
        from regintel.sources.parsers.docx import parse_docx
        return parse_docx(path)
    from regintel.sources.parsers.markdown import parse_markdown
    return parse_markdown(path)
