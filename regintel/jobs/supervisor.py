"""Keeps one ``python -m regintel worker`` process running for a data directory, from inside the app.

Background jobs (concepts queued during a graph outage, enrichment, alert evaluation) only run in a worker process;
``streamlit run app.py`` starts one through :func:`start_supervisor` (REGINTEL_WORKER=embedded, the default):

- a supervisor thread per app process; the one holding ``<data_dir>/worker/supervisor.lock`` (an OS file lock,
  released when its process dies) owns the worker, the others stand by and take over if that process goes away.
  So two Streamlit processes on one data directory never start two workers (the worker also holds its own lock);
- the worker is a separate process (its own session, output appended to ``<data_dir>/worker/worker.log``); when it
  dies it is started again after a backoff (1 s, doubling up to a minute; back to 1 s after a minute of life);
- the worker's standard input is a pipe from the supervisor: when the app exits, even killed, the pipe closes and
  the worker stops after its current job (``--supervised``), so no orphan outlives its app;
- ``<data_dir>/worker/supervisor.json`` records the supervisor, the worker's pid, its restarts and last exit, which
  the Admin page's Jobs section shows next to the worker's own heartbeat (:func:`worker_status`).

REGINTEL_WORKER=external turns this off for deployments that run the worker under their own supervisor.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from filelock import FileLock, Timeout

from regintel.atomic_files import write_text_atomically
from regintel.config import REPO_ROOT, Settings
from regintel.jobs.worker import HEARTBEAT_SECONDS, HeartbeatState, worker_dir

log = logging.getLogger(__name__)

SUPERVISOR_LOCK = "supervisor.lock"
STATE_NAME = "supervisor.json"
LOG_NAME = "worker.log"
LOG_MAX_BYTES = 5_000_000  # the log is rotated to worker.log.1 when a worker starts past this size


def _now() -> datetime:
    return datetime.now(timezone.utc)


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code}"


@dataclass
class SupervisorState:
    """What ``supervisor.json`` holds."""

    pid: int = 0  # the supervising app process
    host: str = ""
    since: str = ""
    worker_pid: int = 0  # 0 while no worker runs (between a death and its restart, or after stop)
    worker_started_at: str = ""
    restarts: int = 0
    last_exit: str = ""
    last_exit_at: str = ""
    log: str = ""
    stopped_at: str = ""

    @classmethod
    def read(cls, data_dir: Path) -> "SupervisorState | None":
        try:
            raw = json.loads((worker_dir(data_dir) / STATE_NAME).read_text(encoding="utf-8"))
            return cls(**{key: raw[key] for key in cls.__dataclass_fields__ if key in raw})
        except (OSError, ValueError, TypeError):
            return None


class WorkerSupervisor:
    """One supervisor thread; ``start()`` then ``stop()``. ``command`` defaults to this interpreter running
    ``python -m regintel worker --supervised`` with the data directory given explicitly."""

    def __init__(self, data_dir: Path, *, command: list[str] | None = None, env: dict[str, str] | None = None,
                 cwd: Path | None = None, min_backoff: float = 1.0, max_backoff: float = 60.0,
                 stable_after: float = 60.0, standby_poll: float = 5.0) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.directory = worker_dir(self.data_dir)
        self.command = command or [sys.executable, "-m", "regintel", "worker", "--supervised"]
        self.env = {**(os.environ if env is None else env), "REGINTEL_DATA_DIR": str(self.data_dir)}
        paths = [str(REPO_ROOT)] + [p for p in self.env.get("PYTHONPATH", "").split(os.pathsep) if p]
        self.env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))  # `-m regintel` from any working directory
        self.cwd = Path(cwd) if cwd else Path.cwd()
        self.min_backoff, self.max_backoff, self.stable_after = min_backoff, max_backoff, stable_after
        self.standby_poll = standby_poll
        self.state = SupervisorState(pid=os.getpid(), host=socket.gethostname(), log=str(self.directory / LOG_NAME))
        self.leader = threading.Event()  # set while this supervisor holds the lock (and so owns the worker)
        self._stop = threading.Event()
        self._process: subprocess.Popen | None = None
        self._thread = threading.Thread(target=self._run, name="regintel-worker-supervisor", daemon=True)

    # -- public surface ---------------------------------------------------------------------------------------
    def start(self) -> "WorkerSupervisor":
        self._thread.start()
        return self

    @property
    def worker_pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    @property
    def restarts(self) -> int:
        return self.state.restarts

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the worker (it finishes its current job; killed after ``timeout``) and release the lock."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout + 5)

    # -- the thread -------------------------------------------------------------------------------------------
    def _run(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.directory / SUPERVISOR_LOCK))
        while not self._stop.is_set():  # stand by until this process may own the worker
            try:
                lock.acquire(timeout=0)
                break
            except Timeout:
                self._stop.wait(self.standby_poll)
        else:
            return
        self.leader.set()
        try:
            self.state.since = _now().isoformat()
            self._supervise()
        except Exception:  # never leave a silent dead supervisor: log it (the app keeps serving pages)
            log.exception("the worker supervisor stopped")
        finally:
            self._terminate()
            self.state.worker_pid, self.state.stopped_at = 0, _now().isoformat()
            self._save()
            self.leader.clear()
            lock.release()

    def _supervise(self) -> None:
        backoff = self.min_backoff
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self._spawn()
            except OSError as exc:  # no interpreter, no space for the log: said, then tried again later
                exit_text = f"could not be started ({exc.strerror or exc})"
            else:
                process = self._process
                while process.poll() is None and not self._stop.wait(0.2):
                    pass
                if self._stop.is_set():
                    return
                exit_text = describe_exit(process.wait())
                self._close_stdin(process)
            lived = time.monotonic() - started
            backoff = self.min_backoff if lived >= self.stable_after else backoff
            self.state.worker_pid, self.state.restarts = 0, self.state.restarts + 1
            self.state.last_exit, self.state.last_exit_at = exit_text, _now().isoformat()
            self._save()
            log.warning("the worker %s after %.0f s; restarting it in %.0f s (see %s)", exit_text, lived,
                        backoff, self.state.log)
            if self._stop.wait(backoff):
                return
            backoff = min(self.max_backoff, backoff * 2)

    def _spawn(self) -> None:
        log_path = self.directory / LOG_NAME
        try:
            if log_path.exists() and log_path.stat().st_size > LOG_MAX_BYTES:
                os.replace(log_path, log_path.with_name(LOG_NAME + ".1"))
        except OSError:
            pass
        with open(log_path, "ab") as output:  # the child keeps its own copy of the descriptor
            output.write(f"--- worker started by app pid {os.getpid()} at {_now().isoformat()}\n".encode())
            output.flush()
            self._process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=output,
                                             stderr=subprocess.STDOUT, cwd=self.cwd, env=self.env,
                                             start_new_session=True, close_fds=True)
        self.state.worker_pid, self.state.worker_started_at = self._process.pid, _now().isoformat()
        self._save()

    @staticmethod
    def _close_stdin(process: subprocess.Popen) -> None:
        stdin: IO[bytes] | None = process.stdin
        if stdin is not None:
            try:
                stdin.close()
            except OSError:
                pass

    def _terminate(self, timeout: float = 15.0) -> None:
        process = self._process
        if process is None or process.poll() is not None:
            return
        self._close_stdin(process)  # the worker's signal to stop after its current job
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()  # its job is handed back by the next worker (it knows this one's id)
            process.wait(10)

    def _save(self) -> None:
        try:
            write_text_atomically(self.directory / STATE_NAME, json.dumps(asdict(self.state), indent=1))
        except OSError as exc:
            log.warning("could not write the worker supervisor state: %s", exc)


def start_supervisor(settings: Settings, **options: Any) -> WorkerSupervisor | None:
    """Start supervising the worker of ``settings.data_dir``; None when REGINTEL_WORKER=external."""
    if settings.worker == "external":
        return None
    return WorkerSupervisor(settings.data_dir, **options).start()


@dataclass(frozen=True)
class WorkerStatus:
    """The worker as the Admin page describes it, read from the heartbeat and supervisor files."""

    mode: str  # embedded / external
    heartbeat: HeartbeatState | None
    supervisor: SupervisorState | None
    beat_age_s: float | None  # seconds since the last heartbeat

    @property
    def alive(self) -> bool:
        return (self.heartbeat is not None and not self.heartbeat.stopped_at and self.beat_age_s is not None
                and self.beat_age_s <= 3 * HEARTBEAT_SECONDS)

    def line(self) -> str:
        parts: list[str] = []
        beat = self.heartbeat
        if beat is None:
            parts.append("No worker has run for this data directory yet"
                         + (" (REGINTEL_WORKER=external: start `python -m regintel worker`)." if self.mode == "external" else "."))
        elif self.alive:
            parts.append(f"Worker running: pid {beat.pid} on {beat.host}, since {beat.started_at[:19].replace('T', ' ')} UTC, "
                         f"last heartbeat {self.beat_age_s:.0f} s ago, {beat.processed} job(s) done"
                         + (f", now running {beat.job_kind} {beat.job_id[:8]}" if beat.job_id else ""))
        elif beat.stopped_at:
            parts.append(f"Worker stopped at {beat.stopped_at[:19].replace('T', ' ')} UTC (pid {beat.pid})")
        else:
            parts.append(f"Worker not responding: last heartbeat of pid {beat.pid} {self.beat_age_s:.0f} s ago")
        if beat is not None and beat.problem and self.alive:
            parts.append(f"without some handlers: {beat.problem}")
        sup = self.supervisor
        if sup is not None and not sup.stopped_at:  # whatever this process's mode, another app may supervise
            text = f"supervised by app pid {sup.pid} on {sup.host}, {sup.restarts} restart(s)"
            if sup.last_exit:
                text += f" (last: {sup.last_exit} at {sup.last_exit_at[:19].replace('T', ' ')} UTC)"
            parts.append(text + f"; log {sup.log}")
        elif self.mode == "external":
            parts.append("REGINTEL_WORKER=external: the deployment supervises it")
        elif sup is not None:
            parts.append(f"its supervisor (app pid {sup.pid}) stopped at {sup.stopped_at[:19].replace('T', ' ')} UTC")
        return "; ".join(parts) + ("" if parts[-1].endswith(".") else ".")


def worker_status(settings: Settings) -> WorkerStatus:
    beat = HeartbeatState.read(settings.data_dir)
    age = None
    if beat is not None and beat.beat_at:
        try:
            age = max(0.0, (_now() - datetime.fromisoformat(beat.beat_at)).total_seconds())
        except ValueError:
            age = None
    return WorkerStatus(settings.worker, beat, SupervisorState.read(settings.data_dir), age)


__all__ = ["WorkerSupervisor", "start_supervisor", "worker_status", "WorkerStatus", "SupervisorState", "describe_exit"]
