"""Browser cookies for the sign-in: read from the request (``st.context.cookies``), written by a tiny script.

Streamlit lets a script read the cookies its WebSocket was opened with but offers no way to send a Set-Cookie
header from a page (only ``st.App`` custom routes, which would replace ``streamlit run app.py``), so a cookie is
written by a few lines of JavaScript in the page (``st.html(..., unsafe_allow_javascript=True)``). Such a cookie
cannot be HttpOnly; what keeps the session token safe instead is in regintel/identity/sessions.py (random,
hashed at rest, expiring, revoked at sign-out, bound to the browser) plus ``SameSite=Strict`` (never sent by
another site's request), ``Secure`` on HTTPS, and every user or model text reaching HTML being escaped. Names and
values are restricted to token characters, so nothing here needs escaping.
"""

from __future__ import annotations

import json
import re

import streamlit as st

SAFE = re.compile(r"^[A-Za-z0-9_.-]{0,200}$")


def read(name: str) -> str | None:
    try:
        value = st.context.cookies.get(name)
    except Exception:  # no request context (AppTest, a script run outside a browser session)
        return None
    return value if isinstance(value, str) and SAFE.match(value) else None


def _script(name: str, value: str, max_age: int, same_site: str) -> str:
    if not SAFE.match(name) or not SAFE.match(value) or same_site not in ("Strict", "Lax"):
        raise ValueError("cookie names and values are token characters only")
    attributes = f"; Path=/; Max-Age={int(max_age)}; SameSite={same_site}"
    return (f"<script>document.cookie = {json.dumps(name + '=' + value + attributes)} + "
            f"(location.protocol === 'https:' ? '; Secure' : '');</script>")


def write(name: str, value: str, max_age: int, same_site: str = "Strict") -> None:
    """Set a cookie in this browser (for every tab, from the next page load on)."""
    st.html(_script(name, value, max_age, same_site), unsafe_allow_javascript=True, width="content")


def clear(name: str) -> None:
    st.html(_script(name, "", 0, "Strict"), unsafe_allow_javascript=True, width="content")
