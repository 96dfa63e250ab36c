"""Which tests share a pytest-xdist worker under ``-n 2 --dist loadgroup`` (the CI command, README "Contributing").

A group's tests run on one worker, one after another; groups are handed to whichever worker runs out of work:
- the browser tests (tests/e2e/) form one group: one Streamlit app and one Chromium at a time, beside the other
  worker's tests, and the session's demo deployment is built once;
- the tests of the servers ``.ci/run`` shares between tests (Neo4j and Memgraph are cleared by each test,
  PostgreSQL and Chroma hold fixed databases) form another;
- every other test file is its own group, so its module fixtures are built once.

pytest-xdist's own ``xdist_group`` marks would say the same, but xdist 3.8 writes the group into a node id that
pytest 9 no longer reads, so its ``loadgroup`` mode spreads marked tests over workers; this scheduler groups by
file instead.
"""

from __future__ import annotations

from functools import lru_cache

from xdist.scheduler import LoadScopeScheduling

from regintel.config import REPO_ROOT

# what a test file that opens a shared server holds: the variables .ci/run sets (also built as f-strings), or the
# conformance suite's backends
SHARED_SERVER_MARKS = ("REGINTEL_TEST_NEO4J", "REGINTEL_TEST_MEMGRAPH", "REGINTEL_TEST_POSTGRES", "REGINTEL_TEST_CHROMA",
                       "REGINTEL_TEST_{", "graph_backends")


def group_of(nodeid: str) -> str:
    """The group of a test's node id (``tests/test_x.py::test_y[param]``)."""
    path = nodeid.split("::", 1)[0]
    if path.startswith("tests/e2e/"):
        return "browser"
    if uses_shared_servers(path):
        return "shared-servers"
    return path


@lru_cache(maxsize=None)
def uses_shared_servers(path: str) -> bool:
    try:
        source = (REPO_ROOT / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(mark in source for mark in SHARED_SERVER_MARKS)


class SuiteGroupScheduling(LoadScopeScheduling):
    """pytest-xdist's scope scheduling with :func:`group_of` as the scope."""

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid)
