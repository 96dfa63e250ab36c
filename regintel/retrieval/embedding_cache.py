"""Persistent embedding cache keyed by content hash and model id.

Embedding is the dominant cost on a 2-core machine (about 12 passages/s), so every vector we compute is kept
in a small SQLite file and never computed twice: re-ingestion and benchmarks look vectors up by the SHA-256 of
(model id, encoding kind, exact text). A stale entry can never be served for changed text because the text is
part of the key.

A cache file that is not a readable SQLite database (a torn copy, a disk error) is detected when it is opened:
it is moved aside as ``<name>.corrupt-<time>``, an empty cache takes its place and ``recovered`` says what
happened (ingestion reports it). The vectors are recomputed or re-imported from the shipped seed; nothing that
matters is lost, because a cache holds nothing that cannot be computed again.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from regintel.retrieval.quarantine import set_aside

log = logging.getLogger(__name__)


def embedding_key(model_id: str, kind: str, text: str) -> str:
    """The cache key of one text: model and encoding kind ("query"/"passage") are part of it."""
    digest = hashlib.sha256()
    for part in (model_id, kind, text):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


class EmbeddingCache:
    """A SQLite-backed map from embedding key to float32 vector.

    Safe to share between threads (one connection per call, WAL journal) and between processes (SQLite locking).
    """

    def __init__(self, path: Path | str, dim: int) -> None:
        self.path = Path(path)
        self.dim = dim
        self._lock = threading.Lock()
        self.recovered = ""  # set when a corrupt file was replaced: what was found and where it was moved
        self.path.parent.mkdir(parents=True, exist_ok=True)
        problem = self._problem()
        if problem:
            self._quarantine(problem)
        self._create()

    def _create(self) -> None:
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, dim INTEGER NOT NULL, vector BLOB NOT NULL)"
            )

    def _problem(self) -> str:
        """Why the existing file cannot serve as the cache ("" when it can, or when there is no file yet)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return ""
        try:
            with self._connect() as conn:
                verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
                columns = {row[1] for row in conn.execute("PRAGMA table_info(embeddings)")}
        except sqlite3.DatabaseError as exc:
            return f"{exc.__class__.__name__}: {exc}"
        if verdict != "ok":
            return f"integrity check failed: {str(verdict)[:200]}"
        if columns and not {"key", "dim", "vector"} <= columns:
            return "unexpected table layout"
        return ""

    def _quarantine(self, problem: str) -> None:
        for suffix in ("-wal", "-shm"):
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        aside = set_aside(self.path)
        self.recovered = f"corrupt embedding cache ({problem}) moved to {aside.name}; a new cache was started"
        log.warning("%s", self.recovered)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors for the keys that are cached; a row of the wrong size counts as missing."""
        found: dict[str, np.ndarray] = {}
        if not keys:
            return found
        with self._connect() as conn:
            for start in range(0, len(keys), 500):
                batch = list(keys[start : start + 500])
                marks = ",".join("?" * len(batch))
                rows = conn.execute(f"SELECT key, dim, vector FROM embeddings WHERE key IN ({marks})", batch)
                for key, dim, blob in rows:
                    if dim == self.dim and len(blob) == dim * 4:
                        found[key] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def put_many(self, items: Iterable[tuple[str, np.ndarray]]) -> None:
        rows = [(key, self.dim, np.asarray(vec, dtype=np.float32).tobytes()) for key, vec in items]
        if not rows:
            return
        with self._lock, self._connect() as conn:
            conn.executemany("INSERT OR REPLACE INTO embeddings (key, dim, vector) VALUES (?, ?, ?)", rows)

    def __len__(self) -> int:
        with self._connect() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])
