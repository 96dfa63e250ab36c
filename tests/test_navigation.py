"""Navigation by role (issue 17): each role's page list, Home first, and only pages whose action the role may do."""

from __future__ import annotations

from pathlib import Path

from regintel.config import REPO_ROOT
from regintel.identity.roles import ROLES, allows
from regintel.ui.navigation import PAGES, page_urls, pages_for


def titles(role: str) -> list[str]:
    return [title for _, title, _, _ in pages_for(role)]


def test_each_role_lists_its_pages_with_home_first():
    assert titles("analyst") == ["Home", "Chat", "Graph Explorer"]
    assert titles("curator") == ["Home", "Chat", "Graph Explorer", "Extraction Review", "Sources"]
    assert titles("admin") == ["Home", "Chat", "Graph Explorer", "Extraction Review", "Sources", "Feedback Dashboard",
                               "Traces", "Operations", "Users and audit"]
    assert titles("visitor") == []  # an unknown role gets nothing


def test_every_listed_page_exists_checks_its_own_role_and_has_a_unique_address():
    for path, _, _, url, action in PAGES:
        source = (REPO_ROOT / path).read_text(encoding="utf-8")
        assert f'auth.require("{action}")' in source, path  # the page checks the role itself, not only the menu
    assert len(set(page_urls())) == len(PAGES) and page_urls()[0] == ""
    assert not (REPO_ROOT / "pages").exists(), "a pages/ folder would let Streamlit run a page without the gate"
    assert all(allows("admin", action) for *_, action in PAGES) and ROLES[-1] == "admin"
    assert Path(REPO_ROOT / "views").is_dir()
