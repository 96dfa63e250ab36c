"""Infrastructure lanes of the suite: the browser, PostgreSQL, Neo4j, Memgraph and OIDC provider runs need something this machine
may not have. A test skips its lane with ``skip_lane``; tests/conftest.py prints a banner at the end of the run
listing every lane skipped and why, and a lane named in REGINTEL_REQUIRE_LANES (comma-separated, set by .ci/run
for what it provisions) fails instead of skipping."""

from __future__ import annotations

import os
import re
from typing import NoReturn

import pytest

LANES = {
    "browser": "browser tests (tests/e2e/) in Debian's headless Chromium",
    "postgres": "SQL store suite on PostgreSQL",
    "neo4j": "graph conformance suite on Neo4j 5",
    "memgraph": "graph conformance suite on Memgraph",
    "oidc": "single sign-on browser tests against a real OpenID Connect provider (mock-oauth2-server)",
    "chroma": "the scale-out run on a Chroma server (`chroma run`) with PostgreSQL and Neo4j",
}

_SKIPPED = re.compile(r"lane (\w+): (.*)")
_REQUIRED = re.compile(r"required test lane '(\w+)' is not available: (.*?)(?: \(REGINTEL_REQUIRE_LANES\))?$", re.M)


FAST_LANE = False  # set by tests/conftest.py when the marker expression deselects slow tests


def examples(thorough: int) -> int:
    """Examples of a hypothesis property: ``thorough`` in the full run, a fifth (at least 20) in the fast lane."""
    return max(20, thorough // 5) if FAST_LANE else thorough


def required_lanes() -> set[str]:
    names = {name.strip() for name in os.environ.get("REGINTEL_REQUIRE_LANES", "").split(",") if name.strip()}
    unknown = names - set(LANES)
    if unknown:
        raise pytest.UsageError(f"REGINTEL_REQUIRE_LANES names unknown lanes {sorted(unknown)}; known: {sorted(LANES)}")
    return names


def skip_lane(lane: str, reason: str) -> NoReturn:
    """Skip the calling test (or fixture) because ``lane`` is not available here; fail when the lane is required."""
    if lane not in LANES:
        raise ValueError(f"unknown test lane {lane!r}")
    if lane in required_lanes():
        pytest.fail(f"required test lane '{lane}' is not available: {reason} (REGINTEL_REQUIRE_LANES)", pytrace=False)
    pytest.skip(f"lane {lane}: {reason}")


def lane_outcome(report: pytest.TestReport) -> tuple[str, str] | None:
    """(lane, reason) when a test report is a lane skipped by ``skip_lane`` (or failed on, when required)."""
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple):
        found = _SKIPPED.search(longrepr[2])
    elif report.failed:
        found = _REQUIRED.search(str(longrepr))
    else:
        return None
    return (found.group(1), found.group(2).strip()) if found and found.group(1) in LANES else None
