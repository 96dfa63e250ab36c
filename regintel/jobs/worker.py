"""``python -m regintel worker``: claims due jobs and runs their handler; failures are retried with backoff.

``run_worker`` is the loop (any number of them may share a queue). ``serve`` is the worker *process* of a data
directory, what the CLI and the app's supervisor (``regintel/jobs/supervisor.py``) run:

- one per data directory: it holds ``<data_dir>/worker/worker.lock`` (an OS file lock, released if it dies), so the
  jobs still leased to the previous holder are known to be orphaned and are handed back at once;
- a heartbeat file (``<data_dir>/worker/heartbeat.json``: pid, since, last beat, current job) that the Admin page
  reads, written every few seconds by a thread that also renews the current job's lease;
- periodic duties: kinds in ``PERIODIC`` are enqueued on their interval, only when a handler is registered for them
  (another component adds ``alerts.evaluate`` to ``RegIntel.worker_handlers()``);
- handlers from ``RegIntel.worker_handlers()`` plus the modules named by REGINTEL_WORKER_PLUGINS; while the rules
  graph is down the worker keeps running the handlers that need no graph and asks again every 30 s;
- supervised (``--supervised``): it stops when its standard input closes, i.e. when the app that started it is gone.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from filelock import FileLock, Timeout

from regintel.atomic_files import write_text_atomically
from regintel.errors import RegIntelError
from regintel.jobs.queue import ClaimedJob, JobQueue

log = logging.getLogger(__name__)
Handler = Callable[[dict[str, Any]], dict[str, Any]]

WORKER_DIR = "worker"
LOCK_NAME = "worker.lock"
HEARTBEAT_NAME = "heartbeat.json"
HEARTBEAT_SECONDS = 5.0
HANDLERS_RETRY_SECONDS = 30.0  # the rules graph is asked for again this often while it is down
PERIODIC: dict[str, float] = {"alerts.evaluate": 60.0}  # kind -> seconds; scheduled only when a handler exists
PERIODIC_KEEP = timedelta(days=1)  # finished periodic jobs older than this are deleted


class WorkerRunning(RegIntelError):
    """Another worker holds this data directory."""


def worker_dir(data_dir: Path) -> Path:
    return Path(data_dir) / WORKER_DIR


def _now() -> datetime:
    return datetime.now(timezone.utc)


def run_worker(queue: JobQueue, handlers: dict[str, Handler], once: bool = False, poll_seconds: float = 2.0,
               stop: threading.Event | None = None, worker_id: str | None = None, *,
               duties: Callable[[], None] | None = None, on_job: Callable[[ClaimedJob | None], None] | None = None,
               until: float | None = None) -> int:
    """Process jobs until ``stop`` is set (or the queue is empty with ``once``, or ``time.monotonic()`` passes
    ``until``); returns jobs processed. ``duties`` runs before each claim; ``on_job`` hears each job start (and
    None when it ends)."""
    worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}"
    stop = stop or threading.Event()
    processed = 0
    while not stop.is_set() and (until is None or time.monotonic() < until):
        if duties is not None:
            duties()
        job = queue.claim(worker_id, list(handlers))
        if job is None:
            if once:
                break
            wait = poll_seconds if until is None else max(0.0, min(poll_seconds, until - time.monotonic()))
            stop.wait(wait)
            continue
        if on_job is not None:
            on_job(job)
        started = time.perf_counter()
        try:
            result = handlers[job.kind](job.payload)
        except Exception as exc:  # a failed job is retried or marked failed, never lost
            status = queue.fail(job.id, f"{exc.__class__.__name__}: {exc}")
            log.warning("job %s (%s) failed, now %s: %s", job.id, job.kind, status, exc)
        else:
            queue.complete(job.id, {**(result or {}), "seconds": round(time.perf_counter() - started, 3)})
        finally:
            if on_job is not None:
                on_job(None)
        processed += 1
    return processed


class PeriodicDuties:
    """Enqueue each periodic kind that has a handler on its interval (the first time at once); prune old ones."""

    def __init__(self, queue: JobQueue, periodic: dict[str, float] | None = None) -> None:
        self.queue = queue
        self.periodic = dict(PERIODIC if periodic is None else periodic)
        self.kinds: set[str] = set()
        self._due: dict[str, float] = {}
        self._pruned_at = 0.0

    def register(self, handlers: dict[str, Handler]) -> list[str]:
        """Schedule the periodic kinds among ``handlers`` (only those); returns them."""
        self.kinds = {kind for kind in self.periodic if kind in handlers}
        return sorted(self.kinds)

    def __call__(self) -> None:
        now = time.monotonic()
        for kind in self.kinds:
            if now >= self._due.get(kind, 0.0):
                self._due[kind] = now + self.periodic[kind]
                try:  # a store hiccup must not stop the worker: the next interval tries again
                    self.queue.enqueue(kind, "periodic", {}, max_attempts=1)
                except Exception as exc:
                    log.warning("could not schedule %s: %s", kind, exc)
        if self.kinds and now - self._pruned_at >= 3600:
            self._pruned_at = now
            for kind in self.kinds:
                try:
                    self.queue.prune(kind, PERIODIC_KEEP)
                except Exception as exc:
                    log.warning("could not prune old %s jobs: %s", kind, exc)


@dataclass
class HeartbeatState:
    """What ``heartbeat.json`` holds (the Admin page's worker status line)."""

    worker_id: str = ""
    pid: int = 0
    host: str = ""
    started_at: str = ""
    beat_at: str = ""
    job_id: str = ""
    job_kind: str = ""
    processed: int = 0
    handlers: list[str] = field(default_factory=list)
    periodic: list[str] = field(default_factory=list)
    problem: str = ""  # why some handlers are missing (the rules graph is down), empty when all are there
    stopped_at: str = ""  # set by a worker that stopped cleanly

    @classmethod
    def read(cls, data_dir: Path) -> "HeartbeatState | None":
        try:
            raw = json.loads((worker_dir(data_dir) / HEARTBEAT_NAME).read_text(encoding="utf-8"))
            return cls(**{key: raw[key] for key in cls.__dataclass_fields__ if key in raw})
        except (OSError, ValueError, TypeError):
            return None


class Heartbeat:
    """Writes the heartbeat file every ``interval`` seconds from a thread, and renews the current job's lease."""

    def __init__(self, data_dir: Path, queue: JobQueue, worker_id: str, interval: float = HEARTBEAT_SECONDS) -> None:
        self.path = worker_dir(data_dir) / HEARTBEAT_NAME
        self.queue = queue
        self.interval = interval
        self.state = HeartbeatState(worker_id=worker_id, pid=os.getpid(), host=socket.gethostname(),
                                    started_at=_now().isoformat())
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="regintel-worker-heartbeat", daemon=True)

    def start(self) -> "Heartbeat":
        self.beat()
        self._thread.start()
        return self

    def on_job(self, job: ClaimedJob | None) -> None:
        with self._lock:
            if job is None:
                self.state.processed += 1
            self.state.job_id, self.state.job_kind = (job.id, job.kind) if job else ("", "")
        self.beat()

    def update(self, **changes: Any) -> None:
        with self._lock:
            for key, value in changes.items():
                setattr(self.state, key, value)
        self.beat()

    def beat(self) -> None:
        with self._lock:
            self.state.beat_at = _now().isoformat()
            text = json.dumps(asdict(self.state), indent=1)
        try:
            write_text_atomically(self.path, text)
        except OSError as exc:  # a full disk must not stop the jobs
            log.warning("could not write the worker heartbeat %s: %s", self.path, exc)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.beat()
            job_id = self.state.job_id
            if job_id:
                try:
                    self.queue.renew(job_id, self.state.worker_id)
                except Exception as exc:
                    log.warning("could not renew the lease of job %s: %s", job_id, exc)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.update(stopped_at=_now().isoformat(), job_id="", job_kind="")


def plugin_handlers(app: Any) -> dict[str, Handler]:
    """Handlers of the modules named by REGINTEL_WORKER_PLUGINS (each has ``worker_handlers(app)``)."""
    handlers: dict[str, Handler] = {}
    for name in filter(None, (part.strip() for part in app.settings.worker_plugins.split(","))):
        try:
            module = importlib.import_module(name)
            handlers.update(module.worker_handlers(app))
        except Exception as exc:
            raise RegIntelError(f"REGINTEL_WORKER_PLUGINS names {name!r}, whose worker_handlers(app) could not be "
                                f"loaded ({exc.__class__.__name__}: {exc}).") from exc
    return handlers


def load_handlers(app: Any) -> tuple[dict[str, Handler], str]:
    """(handlers, problem): the runtime's handlers and the plugins'; while the runtime's cannot be built (the
    rules graph or the index is down) the ones that need neither (the alert rules) and the plugins', and the
    reason."""
    extra = plugin_handlers(app)
    try:
        return {**app.worker_handlers(), **extra}, ""
    except RegIntelError as exc:
        return {**app.service_handlers(), **extra}, str(exc)


def _stop_on_stdin_eof(stop: threading.Event) -> None:
    """The supervisor holds our standard input open while it lives: end of file means it is gone."""

    def watch() -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        log.warning("the supervising app is gone (standard input closed): stopping after the current job")
        stop.set()

    threading.Thread(target=watch, name="regintel-worker-parent", daemon=True).start()


def serve(app: Any, *, once: bool = False, poll_seconds: float = 2.0, supervised: bool = False,
          stop: threading.Event | None = None, periodic: dict[str, float] | None = None) -> int:
    """Run the worker process of ``app``'s data directory until stopped (SIGTERM, ``stop``, the end of standard
    input when ``supervised``, an empty queue with ``once``); returns jobs processed. Raises WorkerRunning when
    another worker holds the data directory."""
    data_dir = Path(app.settings.data_dir)
    directory = worker_dir(data_dir)
    directory.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(directory / LOCK_NAME))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        other = HeartbeatState.read(data_dir)
        raise WorkerRunning(f"Another worker is already running for the data directory {data_dir}"
                            + (f" (pid {other.pid} on {other.host})" if other else "")
                            + "; one worker per data directory is enough (its jobs are shared).") from None
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if supervised:
        _stop_on_stdin_eof(stop)
    worker_id = f"{socket.gethostname()}:{os.getpid()}"
    heartbeat = None
    try:
        previous = HeartbeatState.read(data_dir)
        if previous is not None and previous.worker_id and previous.worker_id != worker_id:
            released = app.jobs.release_worker(previous.worker_id)  # it held this lock: it is gone
            if released:
                log.warning("took back %d job(s) of the previous worker %s", released, previous.worker_id)
        heartbeat = Heartbeat(data_dir, app.jobs, worker_id).start()
        duties = PeriodicDuties(app.jobs, periodic)
        processed, last_problem = 0, ""
        while not stop.is_set():
            handlers, problem = load_handlers(app)
            if problem and once:  # a one-off drain says why it cannot run the graph's jobs, as before
                raise RegIntelError(problem)
            heartbeat.update(handlers=sorted(handlers), periodic=duties.register(handlers), problem=problem)
            if problem != last_problem:  # said once, not every 30 s
                if problem:
                    log.warning("worker runs without the handlers that need the rules graph: %s", problem)
                else:
                    log.warning("worker has all its handlers again: %s", ", ".join(sorted(handlers)))
                last_problem = problem
            processed += run_worker(app.jobs, handlers, once=once, poll_seconds=poll_seconds, stop=stop,
                                    worker_id=worker_id, duties=duties, on_job=heartbeat.on_job,
                                    until=time.monotonic() + HANDLERS_RETRY_SECONDS if problem else None)
            if once:
                break
        return processed
    finally:
        if heartbeat is not None:
            heartbeat.stop()
        lock.release()


__all__ = ["run_worker", "serve", "PeriodicDuties", "Heartbeat", "HeartbeatState", "WorkerRunning", "PERIODIC",
           "worker_dir"]
