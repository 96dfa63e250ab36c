"""The embedded FalkorDB server: one per directory, reused across processes, persistent across restarts, and
restarted when it dies (its append-only log keeps every acknowledged write), never killed while it lives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.graph.store import GraphUnavailable
from regintel.graph.write_service import GraphWriteService

pytestmark = pytest.mark.slow  # starts, kills and restarts embedded graph servers, with subprocesses


def rules(store) -> set[str]:
    return {r["k"] for r in store.query("MATCH (r:Rule) RETURN r.key AS k")}


def test_data_survives_a_clean_restart(tmp_path):
    server = EmbeddedFalkorDB(tmp_path, snapshot_seconds=60)
    store = FalkorDBStore("g", server=server)
    GraphWriteService(store).upsert_nodes("Rule", [{"key": "eu-gdpr", "title": "GDPR"}])
    store.close()
    server.shutdown()  # SHUTDOWN SAVE
    assert not server.alive()
    again = FalkorDBStore("g", server=EmbeddedFalkorDB(tmp_path))
    assert rules(again) == {"eu-gdpr"}
    again.server.shutdown(save=False)


def test_a_directory_from_before_the_append_only_log_keeps_its_graph(tmp_path):
    """Upgrade: a snapshot and no log. Started with the log on, redis came up empty and saved the emptiness over
    the snapshot; it must start from the snapshot and keep every node through later kills."""
    import shutil

    server = EmbeddedFalkorDB(tmp_path, snapshot_seconds=60)
    store = FalkorDBStore("g", server=server)
    GraphWriteService(store).upsert_nodes("Rule", [{"key": f"r{i}", "title": f"rule {i}"} for i in range(50)])
    store.close()
    server.shutdown()
    shutil.rmtree(tmp_path / "appendonlydir")  # what a directory written before the log looked like
    assert (tmp_path / "graph.rdb").exists()
    upgraded = FalkorDBStore("g", server=EmbeddedFalkorDB(tmp_path, snapshot_seconds=60))
    assert len(rules(upgraded)) == 50
    assert (tmp_path / "appendonlydir").is_dir(), "the log is on after the upgrade"
    GraphWriteService(upgraded).upsert_nodes("Rule", [{"key": "after", "title": "written after the upgrade"}])
    upgraded.server.kill()  # no final snapshot: the log must hold both the old graph and the new write
    assert len(rules(upgraded)) == 51
    upgraded.server.shutdown(save=False)


def test_a_killed_server_loses_at_most_the_snapshot_window_and_is_restarted(tmp_path):
    server = EmbeddedFalkorDB(tmp_path, snapshot_seconds=1)
    store = FalkorDBStore("g", server=server)
    writer = GraphWriteService(store)
    writer.upsert_nodes("Rule", [{"key": "old", "title": "written before the snapshot"}])
    time.sleep(2.5)  # the 1-second snapshot has happened
    server.kill()
    assert not server.alive()
    assert "old" in rules(store), "the next call restarts the dead server and reloads the snapshot"
    server.shutdown(save=False)


def test_a_killed_client_process_loses_nothing_and_the_server_is_shared(tmp_path):
    script = (
        "import os, sys; sys.path.insert(0, %r)\n"
        "from regintel.graph.falkordb_server import EmbeddedFalkorDB\n"
        "from regintel.graph.falkordb_store import FalkorDBStore\n"
        "from regintel.graph.write_service import GraphWriteService\n"
        "server = EmbeddedFalkorDB(%r)\n"
        "GraphWriteService(FalkorDBStore('g', server=server)).upsert_nodes('Rule', [{'key': 'from-child', 'title': 'x'}])\n"
        "print(server.pid(), flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    ) % (os.getcwd(), str(tmp_path))
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert child.returncode == -9
    server = EmbeddedFalkorDB(tmp_path)
    assert server.alive(), "the server outlives the process that started it"
    assert server.pid() == int(child.stdout.strip())
    assert rules(FalkorDBStore("g", server=server)) == {"from-child"}
    server.shutdown(save=False)


def test_a_stale_pidfile_and_socket_do_not_block_start(tmp_path):
    (tmp_path / "falkordb.pid").write_text("999999")
    (tmp_path / "falkordb.sock").write_text("")
    server = EmbeddedFalkorDB(tmp_path)
    assert FalkorDBStore("g", server=server).ping()
    server.shutdown(save=False)


def test_an_acknowledged_write_survives_a_server_killed_right_after_it(tmp_path):
    """The append-only log: no snapshot window (one an hour here), the write is kept all the same."""
    server = EmbeddedFalkorDB(tmp_path, snapshot_seconds=3600)
    store = FalkorDBStore("g", server=server)
    GraphWriteService(store).upsert_nodes("Rule", [{"key": "acknowledged", "title": "written just before the kill"}])
    server.kill()
    assert not server.alive()
    assert rules(store) == {"acknowledged"}, "the restarted server replays its append-only log"
    server.shutdown(save=False)


def test_a_server_alive_but_not_answering_is_reported_and_never_killed(tmp_path):
    server = EmbeddedFalkorDB(tmp_path)
    store = FalkorDBStore("g", server=server)
    GraphWriteService(store).upsert_nodes("Rule", [{"key": "kept", "title": "x"}])
    pid = server.pid()
    os.kill(pid, signal.SIGSTOP)  # alive, not answering (as when it blocks writing to a full disk)
    try:
        with pytest.raises(GraphUnavailable, match="running but not answering"):
            EmbeddedFalkorDB(tmp_path).ensure_running()
        assert server.running_pid() == pid, "not killed"
    finally:
        os.kill(pid, signal.SIGCONT)
    assert rules(FalkorDBStore("g", server=EmbeddedFalkorDB(tmp_path))) == {"kept"}
    server.shutdown(save=False)


def test_a_query_to_a_server_that_stops_answering_fails_in_time_instead_of_hanging(tmp_path):
    """A connection already open to a server that then stops answering (stopped, wedged) ends in GraphUnavailable
    after the store's timeout; before, the read waited forever and held the page or the worker with it."""
    import threading

    server = EmbeddedFalkorDB(tmp_path)
    store = FalkorDBStore("g", server=server, timeout=1)
    connected, stopped = threading.Event(), threading.Event()
    outcome: list[BaseException | None] = []

    def write_then_read() -> None:  # connections are per thread: the read goes through the connection the write opened
        GraphWriteService(store).upsert_nodes("Rule", [{"key": "kept", "title": "x"}])
        connected.set()
        stopped.wait(30)
        try:
            rules(store)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)

    reader = threading.Thread(target=write_then_read, daemon=True)
    reader.start()
    assert connected.wait(30)
    pid = server.pid()
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        stopped.set()
        reader.join(timeout=30)
        assert not reader.is_alive(), "the query still waits for the stopped server"
        assert isinstance(outcome[0], GraphUnavailable) and "did not answer within 1 s" in str(outcome[0]), outcome
        assert time.monotonic() - started < 10
        assert server.running_pid() == pid, "a slow server is reported, never killed"
    finally:
        os.kill(pid, signal.SIGCONT)
    assert rules(store) == {"kept"}  # the next query reconnects
    server.shutdown(save=False)
