"""The supervised worker (issue 22, item 3): one worker process per data directory, restarted when it dies, whose
leased job is taken again; dead jobs; the admin's retry and drop; periodic duties; the Jobs section."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

from regintel.config import load_settings
from regintel.jobs.queue import JobNotChangeable, JobQueue
from regintel.jobs.supervisor import WorkerSupervisor, start_supervisor, worker_status
from regintel.jobs.worker import PeriodicDuties, WorkerRunning, run_worker, serve, worker_dir
from regintel.runtime import RegIntel
from regintel.store import Database
from tests.conftest import app_served_on
from tests.worker_plugin import SLOW_JOB

NO_GRAPH = {"REGINTEL_GRAPH_BACKEND": "neo4j", "REGINTEL_GRAPH_URL": "bolt://127.0.0.1:9"}  # refused at once


@pytest.fixture
def queue(tmp_path) -> JobQueue:
    database = Database(f"sqlite:///{tmp_path / 'jobs.db'}")
    database.create_schema()
    return JobQueue(database, base_backoff_s=0)


def wait_for(condition, timeout: float = 60.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_retry_gives_failed_and_dead_jobs_a_new_run_and_refuses_others(queue):
    failed_id, _ = queue.enqueue("k", "a", {}, max_attempts=1)
    run_worker(queue, {"k": lambda payload: 1 / 0}, once=True)
    assert queue.get(failed_id).status == "failed"
    retried = queue.retry(failed_id)
    assert (retried.status, retried.attempts) == ("queued", 0) and "ZeroDivisionError" in retried.last_error
    assert run_worker(queue, {"k": lambda payload: {"ok": True}}, once=True) == 1
    assert queue.get(failed_id).status == "done"
    with pytest.raises(JobNotChangeable, match="Only failed or dead"):
        queue.retry(failed_id)

    queue.enqueue("k", "b", {}, max_attempts=1)
    run_worker(queue, {"k": lambda payload: 1 / 0}, once=True)
    (old,) = queue.jobs("failed")
    queue.enqueue("k", "b", {})  # the same work enqueued again meanwhile
    with pytest.raises(JobNotChangeable, match="already queued or running"):
        queue.retry(old.id)


def test_drop_deletes_a_job_unless_it_is_running(queue):
    queued_id, _ = queue.enqueue("k", "a", {})
    queue.drop(queued_id)
    assert queue.get(queued_id) is None
    queue.drop(queued_id)  # twice: nothing left to do, no error
    running_id, _ = queue.enqueue("k", "b", {})
    assert queue.claim("w1").id == running_id
    with pytest.raises(JobNotChangeable, match="running"):
        queue.drop(running_id)
    assert queue.get(running_id).status == "running"


def test_a_job_whose_worker_dies_on_its_last_attempt_is_dead_not_requeued(queue):
    expired = JobQueue(queue.db, lease=timedelta(seconds=0))
    job_id, _ = queue.enqueue("k", "poison", {}, max_attempts=2)
    assert queue.claim("w1").id == job_id  # attempt 1: its worker "dies" (the lease runs out)
    assert expired.claim("w2").id == job_id  # the lease expired: taken again, attempt 2
    assert expired.claim("w3") is None  # attempt 2's worker died too
    job = queue.get(job_id)
    assert job.status == "dead" and "last attempt" in job.last_error and job.attempts == 2
    assert queue.listing() and queue.listing()[0].id == job_id
    assert queue.retry(job_id).status == "queued"


def test_release_worker_hands_back_only_that_workers_jobs(queue):
    mine, _ = queue.enqueue("k", "a", {})
    theirs, _ = queue.enqueue("k", "b", {})
    assert queue.claim("gone:1").id == mine
    assert queue.claim("alive:2").id == theirs
    assert queue.release_worker("gone:1") == 1
    assert queue.get(mine).status == "queued" and "gone:1" in queue.get(mine).last_error
    assert queue.get(theirs).status == "running"
    assert queue.renew(theirs, "alive:2") and not queue.renew(theirs, "gone:1")


def test_periodic_duties_schedule_only_registered_kinds(queue):
    ran: list[str] = []
    duties = PeriodicDuties(queue, {"alerts.evaluate": 60.0, "not.registered": 60.0})
    handlers = {"alerts.evaluate": lambda payload: ran.append("alerts") or {}}
    assert duties.register(handlers) == ["alerts.evaluate"]
    run_worker(queue, handlers, once=True, duties=duties)
    run_worker(queue, handlers, once=True, duties=duties)  # within the minute: not scheduled again
    assert ran == ["alerts"]
    assert {job.kind for job in queue.jobs()} == {"alerts.evaluate"}
    assert PeriodicDuties(queue).register({}) == []  # no handler (the alerts component absent): nothing scheduled


def runtime(tmp_path: Path, **overrides) -> RegIntel:
    data_dir = tmp_path / "data"
    data_dir.mkdir(exist_ok=True)
    settings = load_settings(data_dir=data_dir, worker_plugins="tests.worker_plugin", **{"worker": "embedded", **overrides})
    return RegIntel(settings, graph=None)


def test_the_worker_process_takes_back_its_predecessors_jobs_and_holds_the_directory(tmp_path):
    app = runtime(tmp_path)
    log = tmp_path / "attempts.log"
    job_id, _ = app.jobs.enqueue(SLOW_JOB, "one", {"log": str(log), "seconds": 0})
    assert app.jobs.claim("vm:ghost").id == job_id  # a worker that died holding it (5 minutes of lease left)
    heartbeat = worker_dir(app.settings.data_dir) / "heartbeat.json"
    heartbeat.parent.mkdir(parents=True)
    heartbeat.write_text(json.dumps({"worker_id": "vm:ghost", "pid": 1, "host": "vm", "beat_at": ""}))
    stop = threading.Event()
    thread = threading.Thread(target=serve, args=(app,), kwargs={"stop": stop, "poll_seconds": 0.1})
    thread.start()
    try:
        wait_for(lambda: app.jobs.get(job_id).status == "done", 20, "the orphaned job to be done")
        with pytest.raises(WorkerRunning, match="Another worker is already running"):
            serve(runtime(tmp_path), once=True)
        status = worker_status(app.settings)
        # the orphaned job, and the alert rules' periodic evaluation, which runs without the graph too
        assert status.alive and status.heartbeat.pid == os.getpid() and status.heartbeat.processed >= 1
        assert "rules graph is not available" in status.heartbeat.problem  # plugins and alert rules run meanwhile
        assert "Worker running" in status.line()
    finally:
        stop.set()
        thread.join(10)
        app.close()
    assert app.jobs.get(job_id).attempts == 2
    assert worker_status(app.settings).heartbeat.stopped_at


def test_external_mode_starts_no_worker(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", worker="external")
    assert start_supervisor(settings) is None
    assert not worker_dir(settings.data_dir).exists()
    assert "REGINTEL_WORKER=external" in worker_status(settings).line()


def worker_env() -> dict[str, str]:
    return {**os.environ, **NO_GRAPH, "REGINTEL_WORKER_PLUGINS": "tests.worker_plugin"}


def alive(pid: int) -> bool:
    """Running (a zombie nobody has reaped yet, e.g. under a container's init, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return True


@pytest.mark.slow  # three worker processes start (about 3 s each)
def test_a_killed_worker_is_restarted_and_its_leased_job_taken_again(tmp_path):
    app = runtime(tmp_path)
    data_dir = app.settings.data_dir
    log = tmp_path / "attempts.log"
    job_id, _ = app.jobs.enqueue(SLOW_JOB, "slow", {"log": str(log), "seconds": 2})
    first = WorkerSupervisor(data_dir, env=worker_env(), cwd=tmp_path, min_backoff=0.2).start()
    second = None
    try:
        wait_for(first.leader.is_set, 10, "the first supervisor to take the lock")
        second = WorkerSupervisor(data_dir, env=worker_env(), cwd=tmp_path, min_backoff=0.2, standby_poll=0.2).start()
        victim = wait_for(lambda: log.exists() and int(log.read_text().split()[0]), 60, "the slow job to start")
        assert victim == first.worker_pid and app.jobs.get(job_id).status == "running"
        os.kill(victim, signal.SIGKILL)  # mid-job: the lease would hold it for 5 minutes
        retaken = wait_for(lambda: (job := app.jobs.get(job_id)).attempts == 2 and job, 60, "the job to be taken again")
        assert f"its worker stopped mid-job (vm:{victim})".replace("vm", retaken.locked_by.split(":")[0]) in retaken.last_error
        wait_for(lambda: app.jobs.get(job_id).status == "done", 60, "the restarted worker to finish the job")
        job = app.jobs.get(job_id)
        pids = [int(p) for p in log.read_text().split()]
        assert len(pids) == 2 and pids[0] == victim and job.result["pid"] == pids[1] == first.worker_pid
        assert job.attempts == 2 and first.restarts == 1
        status = worker_status(app.settings)
        assert status.supervisor.last_exit == "killed by SIGKILL" and status.supervisor.restarts == 1
        assert "1 restart(s)" in status.line() and "killed by SIGKILL" in status.line()
        assert not second.leader.is_set() and second.worker_pid is None  # the lock decided: one worker

        replaced = first.worker_pid
        first.stop()  # closes the worker's standard input: it stops; the standby supervisor takes over
        assert not alive(replaced) or wait_for(lambda: not alive(replaced), 20, "the worker to stop")
        wait_for(lambda: second.worker_pid, 20, "the standby supervisor to start a worker")
        assert second.worker_pid != replaced
    finally:
        first.stop()
        if second is not None:
            last = second.worker_pid
            second.stop()
            assert last is None or not alive(last)
        app.close()


def test_the_admin_jobs_section_lists_jobs_and_retries_a_dead_one(monkeypatch, tmp_path):
    """Laptop mode on loopback (the local admin, no sign-in), no rules graph: the Admin page's Jobs section."""
    app = runtime(tmp_path)
    dead_id, _ = app.jobs.enqueue("enrich_concept", "TAX|VAT|IE", {"key": "TAX|VAT|IE"}, max_attempts=1)
    app.jobs.claim("vm:gone")
    app.jobs.release_worker("vm:gone")  # died on its only attempt: dead
    app.jobs.enqueue("enrich_concept", "TAX|OSS|BE", {"key": "TAX|OSS|BE"})
    app.close()
    env = {"REGINTEL_DATA_DIR": str(app.settings.data_dir), "REGINTEL_LAPTOP_MODE": "true", **NO_GRAPH}
    with app_served_on(monkeypatch, env, timeout=120) as page:
        page.switch_page("views/6_Admin.py").run()
        assert not page.exception, page.exception
        assert "Jobs" in [s.value for s in page.subheader]
        assert {m.label: m.value for m in page.metric} == {"queued": "1", "running": "0", "done": "0", "failed": "0", "dead": "1"}
        assert any("No worker has run for this data directory yet" in w.value for w in page.warning)
        jobs = page.dataframe[-1].value
        assert sorted(jobs["status"]) == ["dead", "queued"]
        assert "last attempt" in jobs.set_index("status").loc["dead", "last error"]
        job_box = next(box for box in page.selectbox if box.label == "Job")
        job_box.select(next(option for option in job_box.options if option.startswith(dead_id[:8])))
        next(b for b in page.button if b.label == "Retry").click().run()  # a form: both sent on submit
        assert not page.exception and not page.error, [e.value for e in page.error]
        assert {m.label: m.value for m in page.metric}["queued"] == "2"
        assert any(f"Job {dead_id[:8]} queued again" in m.value for m in page.success)
    with RegIntel(load_settings(data_dir=app.settings.data_dir), graph=None) as check:
        assert check.jobs.get(dead_id).status == "queued"
        assert any(e.action == "job_retry" and e.target == dead_id for e in check.audit.events(limit=50))


@pytest.mark.slow  # an app process and two workers start
def test_when_the_owning_app_process_is_killed_its_worker_stops_and_another_app_takes_over(tmp_path):
    import subprocess
    import sys

    app = runtime(tmp_path)
    data_dir = app.settings.data_dir
    script = ("import sys, time\nfrom regintel.jobs.supervisor import WorkerSupervisor\n"
              f"WorkerSupervisor({str(data_dir)!r}, min_backoff=0.2).start()\ntime.sleep(300)\n")
    owner = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, env={**worker_env(), "PYTHONPATH": os.getcwd()})
    standby = None
    try:
        state = worker_dir(data_dir) / "supervisor.json"
        orphan = wait_for(lambda: state.exists() and json.loads(state.read_text())["worker_pid"], 60, "the app's worker")
        standby = WorkerSupervisor(data_dir, env=worker_env(), cwd=tmp_path, min_backoff=0.2, standby_poll=0.2).start()
        time.sleep(1)
        assert not standby.leader.is_set() and alive(orphan)  # the other process's lock decides
        owner.kill()  # SIGKILL: no clean-up code runs in the app
        owner.wait(10)
        wait_for(lambda: not alive(orphan), 30, "the orphaned worker to stop (its standard input closed)")
        successor = wait_for(lambda: standby.worker_pid, 30, "the standby app to start a worker")
        assert successor != orphan and json.loads(state.read_text())["pid"] == os.getpid()
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait(10)
        if standby is not None:
            standby.stop()
        app.close()


def test_without_the_graph_or_the_index_the_worker_still_runs_the_alert_rules(tmp_path):
    from regintel.config import load_settings
    from regintel.jobs.worker import load_handlers
    from regintel.ops.alerts import ALERTS_JOB
    from regintel.runtime import RegIntel

    app = RegIntel(load_settings(data_dir=tmp_path / "data"), graph=None)  # no graph, no index: what alerts report
    handlers, problem = load_handlers(app)
    assert ALERTS_JOB in handlers and "graph" in problem
    result = handlers[ALERTS_JOB]({})
    assert "knowledge_base_empty" in result["fired"]  # exactly when the rest of the worker cannot run
