"""The HTTP client of every remote provider: follows no redirect and remembers the host it actually contacted.

The openai SDK's default httpx client follows redirects, so a 307 from the configured endpoint used to re-POST
the whole (sanitised) prompt to whatever host the redirect named, while the trace recorded the allowed host. Here
redirects are never followed (the 3xx reaches the provider as an error: see ``openai_errors``), and each request's
host is recorded per thread so the router can put the host really contacted into the egress report.
"""

from __future__ import annotations

import threading

import httpx


class ContactedHosts:
    """The host of the last request sent from the current thread (a provider is shared by the app's threads)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def record(self, request: httpx.Request) -> None:
        self._local.host = request.url.host

    def reset(self) -> None:
        self._local.host = None

    def last(self) -> str | None:
        return getattr(self._local, "host", None)


def guarded_http_client(timeout: float, hosts: ContactedHosts) -> httpx.Client:
    return httpx.Client(follow_redirects=False, timeout=timeout, event_hooks={"request": [hosts.record]})
