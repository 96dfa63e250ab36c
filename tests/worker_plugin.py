"""A worker plugin for tests (REGINTEL_WORKER_PLUGINS=tests.worker_plugin): a slow job that logs each attempt's
process id to a file, so a test can kill the worker while it holds the job's lease and see who finished it."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

SLOW_JOB = "test.slow"


def slow_job(payload: dict[str, Any]) -> dict[str, Any]:
    with open(Path(payload["log"]), "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()}\n")
    time.sleep(float(payload["seconds"]))
    return {"pid": os.getpid()}


def worker_handlers(app: Any) -> dict[str, Any]:
    return {SLOW_JOB: slow_job}
