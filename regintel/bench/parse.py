"""Source parsing throughput (issue 23): how long the article-aware parsers take per file, and pages per second
for PDFs. Parsing is the first step of adding a source; embedding the chunks comes after and is measured by
``python -m regintel.bench ingest``.

``python -m regintel.bench parse [FILES…] [--json]``; without files, the real documents of ../shared/data/sources/.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from regintel.config import REPO_ROOT
from regintel.errors import RegIntelError

SOURCE_SUFFIXES = {".html", ".htm", ".xhtml", ".xml", ".pdf", ".docx", ".md", ".markdown", ".txt"}


def default_files() -> list[Path]:
    """The shared real source documents (empty when the folder is missing)."""
    folder = Path(os.environ.get("REGINTEL_SHARED_DIR") or REPO_ROOT.parent / "shared") / "data" / "sources"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in SOURCE_SUFFIXES and p.name != "README.md")


def run_parse_bench(files: list[Path]) -> dict:
    """Parse each file once (after one untimed warm-up import of the libraries) and report per file and in total."""
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import CorpusDocument
    from regintel.sources.parsers import parse_source

    rows = []
    for path in files:
        started = time.perf_counter()
        try:
            parsed = parse_source(path)
        except RegIntelError as exc:
            rows.append({"file": path.name, "error": str(exc), "seconds": round(time.perf_counter() - started, 3)})
            continue
        seconds = time.perf_counter() - started
        doc = CorpusDocument(id=path.stem, title=parsed.title, short_title=path.stem, path=path, format=parsed.format,
                             language=parsed.language, anchors=parsed.anchors)
        chunk_started = time.perf_counter()
        chunks = chunk_document(doc, parsed.markdown)
        rows.append({
            "file": path.name, "format": parsed.format, "bytes": path.stat().st_size, "pages": parsed.pages,
            "articles": parsed.articles, "chars": len(parsed.markdown), "seconds": round(seconds, 3),
            "pages_per_s": round(parsed.pages / seconds, 1) if parsed.pages else None,
            "chunks": len(chunks), "chunk_seconds": round(time.perf_counter() - chunk_started, 3),
            "problems": len(parsed.problems),
        })
    pdfs = [r for r in rows if r.get("pages")]
    pdf_pages = sum(r["pages"] for r in pdfs)
    pdf_seconds = sum(r["seconds"] for r in pdfs)
    return {
        "files": rows,
        "total_seconds": round(sum(r["seconds"] for r in rows), 3),
        "pdf_files": len(pdfs), "pdf_pages": pdf_pages, "pdf_seconds": round(pdf_seconds, 3),
        "pdf_pages_per_s": round(pdf_pages / pdf_seconds, 1) if pdf_seconds else None,
        "cpu_count": os.cpu_count(),
    }


def print_parse_report(result: dict, as_json: bool) -> None:
    print(f"{'file':46} {'format':8} {'pages':>5} {'articles':>8} {'chars':>9} {'seconds':>8} {'pages/s':>8} {'chunks':>6}")
    for row in result["files"]:
        if "error" in row:
            print(f"{row['file'][:46]:46} error: {row['error']}")
            continue
        print(f"{row['file'][:46]:46} {row['format']:8} {row['pages'] or '-':>5} {row['articles']:>8} "
              f"{row['chars']:>9} {row['seconds']:>8.2f} {row['pages_per_s'] or '-':>8} {row['chunks']:>6}")
    if result["pdf_files"]:
        print(f"PDFs: {result['pdf_files']} files, {result['pdf_pages']} pages in {result['pdf_seconds']:.2f} s "
              f"= {result['pdf_pages_per_s']} pages/s (parse only, one process, {result['cpu_count']} CPUs on the machine)")
    print(f"total parse time {result['total_seconds']:.2f} s")
    if as_json:
        print(json.dumps(result))
