"""One ingestion at a time per data directory: two ``python -m regintel ingest`` started together both end without
a traceback (the second waits and says so); a page that must not wait is told plainly; a read-only data directory
gets a sentence, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from regintel.config import REPO_ROOT
from regintel.errors import RegIntelError
from regintel.retrieval.ingest_lock import IngestionRunning, ingestion_lock
from tests.conftest import make_small_corpus


def test_a_second_holder_waits_or_is_refused_plainly(tmp_path):
    order: list[str] = []
    with ingestion_lock(tmp_path):
        with pytest.raises(IngestionRunning, match="Another ingestion is running"):
            with ingestion_lock(tmp_path, wait=0):
                pass
        with pytest.raises(IngestionRunning, match="after 0 s"):
            with ingestion_lock(tmp_path, wait=0.2):
                pass

        def second() -> None:
            with ingestion_lock(tmp_path, on_wait=lambda: order.append("waiting")):
                order.append("second")
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.3)
        order.append("first done")
    thread.join(5)
    assert order == ["waiting", "first done", "second"]


def test_a_data_directory_that_cannot_be_written_gets_a_sentence(tmp_path):
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data directory should be")  # (as root, chmod cannot make it read-only)
    with pytest.raises(RegIntelError, match="cannot be written") as refused:
        with ingestion_lock(blocked):
            pass
    assert "nothing was indexed" in str(refused.value)


@pytest.mark.slow  # two real ingestions of a small corpus
def test_two_cli_ingestions_started_together_both_finish_without_a_traceback(tmp_path):
    corpus = make_small_corpus(tmp_path / "corpus", {"be/be-guidance-asbl-tva-fr.md": {}})
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("REGINTEL_")},
           "REGINTEL_DATA_DIR": str(tmp_path / "data"), "REGINTEL_CORPUS_DIR": str(corpus),
           "REGINTEL_GRAPH_BACKEND": "falkordb-embedded"}
    runs = [subprocess.Popen([sys.executable, "-m", "regintel", "ingest", "--no-graph"], cwd=REPO_ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    for _, err in outputs:
        assert "Traceback" not in err, err
    assert sum("Another ingestion is running" in err for _, err in outputs) == 1, outputs


def _file_size_quota(limit: int):
    """In the child: files cannot grow past ``limit`` bytes (writes fail with EFBIG, as a full quota would)."""
    def apply() -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.slow  # a real CLI ingestion that runs out of space
def test_an_ingestion_that_runs_out_of_space_says_so_without_a_traceback(tmp_path):
    corpus = make_small_corpus(tmp_path / "corpus", {"be/be-guidance-asbl-tva-fr.md": {}})
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("REGINTEL_")},
           "REGINTEL_DATA_DIR": str(tmp_path / "data"), "REGINTEL_CORPUS_DIR": str(corpus)}
    run = subprocess.run([sys.executable, "-m", "regintel", "ingest", "--no-graph"], cwd=REPO_ROOT, env=env,
                         capture_output=True, text=True, timeout=600, preexec_fn=_file_size_quota(64_000))
    assert run.returncode == 2, (run.stdout[-2000:], run.stderr[-3000:])
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert "Indexing stopped: the data directory" in run.stderr and "could not be written" in run.stderr
