"""One ingestion at a time per data directory, whoever starts it (the CLI, the home page, the demo).

Two ingestions writing the same Chroma collection, BM25 files and seed graph at once corrupt each other (a second
``ingest`` used to crash on the first one's temporary file). A file lock in the data directory (``filelock``:
released by the operating system if the holder dies, so a killed run never leaves the directory locked) makes the
second one wait, or, where waiting is not wanted (a web page), refuse with a plain sentence.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from filelock import FileLock, Timeout

from regintel.errors import RegIntelError

LOCK_NAME = "ingest.lock"


class IngestionRunning(RegIntelError):
    """Another ingestion holds this data directory."""


@contextmanager
def ingestion_lock(data_dir: Path, wait: float | None = None, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the data directory's ingestion lock. ``wait``: seconds to wait for another ingestion to end (None:
    as long as it takes, 0: not at all); ``on_wait`` is called once when we have to wait."""
    lock = FileLock(str(data_dir / LOCK_NAME))
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        lock.acquire(timeout=0)
    except Timeout:
        if wait == 0:
            raise IngestionRunning("Another ingestion is running in this data directory; try again when it has "
                                   "finished (the index is usable meanwhile).") from None
        if on_wait is not None:
            on_wait()
        try:
            lock.acquire(timeout=-1 if wait is None else wait)
        except Timeout:
            raise IngestionRunning(f"Another ingestion is still running in this data directory after {wait:.0f} s "
                                   "of waiting; try again when it has finished.") from None
    except OSError as exc:  # a read-only or full data directory: say which, no traceback
        raise RegIntelError(f"The data directory {data_dir} cannot be written ({exc.strerror or exc}); nothing was "
                            "indexed.") from exc
    try:
        yield
    finally:
        lock.release()
