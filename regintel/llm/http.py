"""The HTTP client of every remote provider: follows no redirect and remembers the host it actually contacted.

The openai SDK's default httpx client follows redirects, so a 307 from the configured endpoint used to re-POST
the whole (sanitised) prompt to whatever host the redirect named, while the trace recorded the allowed host. Here
redirects are never followed (the 3xx reaches the provider as an error: see ``openai_errors``), and each request's
host is recorded per thread so the router can put the host really contacted into the egress report.
"""

from __future__ import annotations

import socket
import threading

import httpx


class ContactedHosts:
    """The host of the last request sent from each thread (a provider is shared by the app's threads; the router
    reads a stream in a helper thread, see ``deadline.py``), and that thread's open response, so an abandoned
    stream can be closed from outside."""

    def __init__(self) -> None:
        self._hosts: dict[int, str | None] = {}
        self._responses: dict[int, httpx.Response] = {}
        self._lock = threading.Lock()

    def record(self, request: httpx.Request) -> None:
        with self._lock:
            self._hosts[threading.get_ident()] = request.url.host

    def opened(self, response: httpx.Response) -> None:
        with self._lock:
            self._responses[threading.get_ident()] = response

    def reset(self, thread: int | None = None) -> None:
        with self._lock:
            self._hosts.pop(thread or threading.get_ident(), None)
            self._responses.pop(thread or threading.get_ident(), None)

    def last(self, thread: int | None = None) -> str | None:
        with self._lock:
            return self._hosts.get(thread or threading.get_ident())

    def close(self, thread: int) -> None:
        """Shut down the connection a thread is reading, so its blocked read returns now (``response.close()``
        from another thread would wait for the reader's lock, i.e. for the server)."""
        with self._lock:
            response = self._responses.pop(thread, None)
        stream = response.extensions.get("network_stream") if response is not None else None
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:  # already closed by the reader
                pass


def guarded_http_client(timeout: float, hosts: ContactedHosts) -> httpx.Client:
    return httpx.Client(follow_redirects=False, timeout=timeout,
                        event_hooks={"request": [hosts.record], "response": [hosts.opened]})
