"""The CI command's worker groups (tests/scheduling.py): tests that share a server or a browser never run at once."""

from __future__ import annotations

import pytest

from regintel.config import REPO_ROOT
from tests.scheduling import SHARED_SERVER_MARKS, group_of

TEST_FILES = sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "tests").rglob("test_*.py"))


def test_browser_tests_share_one_group_and_plain_files_keep_their_own():
    assert group_of("tests/e2e/test_oidc.py::test_a[x]") == group_of("tests/e2e/test_signin.py::test_b") == "browser"
    assert group_of("tests/test_chat_units.py::test_a") == "tests/test_chat_units.py"
    assert group_of("tests/test_chat_units.py::test_a") != group_of("tests/test_engine.py::test_b")


@pytest.mark.parametrize("path", ["tests/test_store.py", "tests/test_backup.py", "tests/test_scale_out.py",
                                  "tests/test_graph_conformance.py", "tests/test_graph_export.py"])
def test_users_of_the_shared_servers_run_in_one_group(path):
    assert group_of(f"{path}::test_x") == "shared-servers"


def test_every_file_that_reads_a_server_of_ci_is_in_the_shared_group():
    """A new test file that opens the shared Neo4j, Memgraph, PostgreSQL or Chroma joins the group by itself."""
    readers = [p for p in TEST_FILES if not p.startswith("tests/e2e/")
               and any(m in (REPO_ROOT / p).read_text(encoding="utf-8") for m in SHARED_SERVER_MARKS)]
    assert len(readers) >= 5
    assert {group_of(f"{p}::t") for p in readers} == {"shared-servers"}
    assert group_of("tests/test_chat_units.py::t") != "shared-servers"
