"""Job queue and worker: idempotent enqueue, exclusive claims, retries with backoff, crash recovery."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import timedelta

import pytest

from regintel.jobs.queue import JobQueue
from regintel.jobs.worker import run_worker
from regintel.store import Database


@pytest.fixture
def db(tmp_path):
    database = Database(f"sqlite:///{tmp_path / 'jobs.db'}")
    database.create_schema()
    return database


def test_enqueue_is_idempotent_while_open(db):
    queue = JobQueue(db)
    first, created = queue.enqueue("enrich_concept", "TAX|VAT|IE", {"key": "TAX|VAT|IE"})
    again, created_again = queue.enqueue("enrich_concept", "TAX|VAT|IE", {"key": "TAX|VAT|IE"})
    assert created and not created_again and first == again
    job = queue.claim("w1")
    queue.complete(job.id)
    _, created_after_done = queue.enqueue("enrich_concept", "TAX|VAT|IE", {"key": "TAX|VAT|IE"})
    assert created_after_done


def test_concurrent_workers_never_share_a_job(db):
    queue = JobQueue(db)
    for i in range(30):
        queue.enqueue("k", f"key-{i}", {"i": i})
    seen: list[str] = []
    lock = threading.Lock()

    def handler(payload):
        with lock:
            seen.append(payload["i"])
        return {}

    threads = [threading.Thread(target=run_worker, args=(JobQueue(db), {"k": handler}), kwargs={"once": True, "worker_id": f"w{n}"}) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == list(range(30))
    assert queue.counts() == {"done": 30}


def test_failures_back_off_then_fail_visibly(db):
    queue = JobQueue(db, base_backoff_s=0)
    queue.enqueue("k", "boom", {}, max_attempts=3)

    def handler(payload):
        raise RuntimeError("graph server stopped")

    processed = run_worker(queue, {"k": handler}, once=True)
    assert processed == 3
    (job,) = queue.jobs("failed")
    assert job.attempts == 3 and "graph server stopped" in job.last_error


def test_retry_waits_for_its_backoff(db):
    queue = JobQueue(db, base_backoff_s=60)
    queue.enqueue("k", "later", {})
    job = queue.claim("w1")
    assert queue.fail(job.id, "transient") == "queued"
    assert queue.claim("w1") is None  # not due for a minute


@pytest.mark.slow  # a worker in a subprocess
def test_a_worker_killed_mid_job_loses_nothing(db, tmp_path):
    queue = JobQueue(db)
    queue.enqueue("k", "crash", {"n": 1})
    script = (
        "import os, sys; sys.path.insert(0, %r)\n"
        "from regintel.store import Database\nfrom regintel.jobs.queue import JobQueue\n"
        "queue = JobQueue(Database(%r))\njob = queue.claim('doomed')\nprint(job.id, flush=True)\nos._exit(9)\n"
    ) % (os.getcwd(), db.url)
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert child.returncode == 9 and child.stdout.strip()
    (running,) = queue.jobs("running")
    assert queue.claim("w2") is None  # still leased to the dead worker
    recovered = JobQueue(db, lease=timedelta(seconds=0))
    applied = []
    run_worker(recovered, {"k": lambda payload: applied.append(payload) or {}}, once=True)
    assert applied == [{"n": 1}]
    (done,) = queue.jobs("done")
    assert done.id == running.id and done.attempts == 2
