"""The page list of each role for ``st.navigation``: a page a role may not use is not listed (each page still
checks the role itself). The first entry is the home page, titled "Home"."""

from __future__ import annotations

from regintel.identity.roles import allows

# (file, title, icon, url path, action the page serves)
PAGES = [
    ("views/0_Home.py", "Home", ":material/home:", "", "chat"),
    ("views/1_Chat.py", "Chat", ":material/chat:", "Chat", "chat"),
    ("views/2_Graph_Explorer.py", "Graph Explorer", ":material/hub:", "Graph_Explorer", "graph"),
    ("views/5_Extraction_Review.py", "Extraction Review", ":material/rate_review:", "Extraction_Review", "review"),
    ("views/8_Sources.py", "Sources", ":material/library_books:", "Sources", "sources"),
    ("views/3_Feedback_Dashboard.py", "Feedback Dashboard", ":material/monitoring:", "Feedback_Dashboard", "dashboard"),
    ("views/4_Traces.py", "Traces", ":material/search:", "Traces", "traces"),
    ("views/7_Operations.py", "Operations", ":material/speed:", "Operations", "dashboard"),
    ("views/6_Admin.py", "Users and audit", ":material/admin_panel_settings:", "Admin", "users"),
]


def pages_for(role: str) -> list[tuple[str, str, str, str]]:
    """(file, title, icon, url path) of the pages ``role`` may use, Home first."""
    return [(path, title, icon, url) for path, title, icon, url, action in PAGES if allows(role, action)]


def page_urls() -> list[str]:
    """Every page's url path ("" for Home), so a signed-out deep link reaches the sign-in page, not "not found"."""
    return [url for _, _, _, url, _ in PAGES]
