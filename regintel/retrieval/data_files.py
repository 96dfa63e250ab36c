"""The hand-written JSONL lists the retrieval layer reads (legal terms, instruments): one record per line, blank
lines allowed, a ``_meta`` line describing the file; line numbers kept so an error names the line to fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator


def jsonl_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each data line of ``path``; ValueError names the file and line of bad JSON."""
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from exc
            if isinstance(raw, dict) and "_meta" in raw:
                continue
            if not isinstance(raw, dict):
                raise ValueError(f"{path}:{number}: a record must be a JSON object")
            yield number, raw
