"""``python -m regintel worker``: claims due jobs and runs their handler; failures are retried with backoff."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from typing import Any, Callable

from regintel.jobs.queue import JobQueue

log = logging.getLogger(__name__)
Handler = Callable[[dict[str, Any]], dict[str, Any]]


def run_worker(queue: JobQueue, handlers: dict[str, Handler], once: bool = False, poll_seconds: float = 2.0,
               stop: threading.Event | None = None, worker_id: str | None = None) -> int:
    """Process jobs until ``stop`` is set (or the queue is empty with ``once``); returns jobs processed."""
    worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}"
    stop = stop or threading.Event()
    processed = 0
    while not stop.is_set():
        job = queue.claim(worker_id, list(handlers))
        if job is None:
            if once:
                break
            stop.wait(poll_seconds)
            continue
        started = time.perf_counter()
        try:
            result = handlers[job.kind](job.payload)
        except Exception as exc:  # a failed job is retried or marked failed, never lost
            status = queue.fail(job.id, f"{exc.__class__.__name__}: {exc}")
            log.warning("job %s (%s) failed, now %s: %s", job.id, job.kind, status, exc)
        else:
            queue.complete(job.id, {**(result or {}), "seconds": round(time.perf_counter() - started, 3)})
        processed += 1
    return processed
