"""An overall deadline on a model stream, however the server dribbles it out.

A per-read timeout cannot bound a turn: a server sending an SSE keep-alive comment every few seconds resets it
forever, and the SDK swallows those comments, so the caller's loop never even gets control. ``within`` reads the
provider's stream in a helper thread and hands its chunks over through a small queue; the caller waits at most
until the deadline. When the deadline passes, ``on_abandon`` is called with the reader thread's id (the router
closes that thread's HTTP response, so the reader ends at the next byte instead of lingering) and
``DeadlineExceeded`` is raised.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")
_ITEM, _DONE, _ERROR = "item", "done", "error"


class DeadlineExceeded(Exception):
    """The stream did not finish before the deadline."""


def within(items: Iterator[T], deadline: float, on_abandon: Callable[[int], None] | None = None,
           on_start: Callable[[int], None] | None = None, clock: Callable[[], float] = time.monotonic) -> Iterator[T]:
    """Yield ``items`` (read in a helper thread, whose id goes to ``on_start``) until they end or ``deadline``
    (a ``clock`` value) passes."""
    box: queue.Queue = queue.Queue(maxsize=256)  # bounded: a huge answer cannot pile up in memory
    abandoned = threading.Event()

    def hand_over(kind: str, value: object) -> bool:
        while not abandoned.is_set():
            try:
                box.put((kind, value), timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def pump() -> None:
        try:
            for item in items:
                if not hand_over(_ITEM, item):
                    break
            else:
                hand_over(_DONE, None)
        except BaseException as exc:  # handed to the caller, who decides
            hand_over(_ERROR, exc)
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:  # the stream is being abandoned anyway
                    pass

    reader = threading.Thread(target=pump, name="llm-stream-reader", daemon=True)
    reader.start()
    if on_start is not None and reader.ident is not None:
        on_start(reader.ident)
    try:
        while True:
            remaining = deadline - clock()
            if remaining <= 0:
                raise DeadlineExceeded()
            try:
                kind, value = box.get(timeout=remaining)
            except queue.Empty:
                raise DeadlineExceeded() from None
            if kind == _DONE:
                return
            if kind == _ERROR:
                raise value  # type: ignore[misc]
            yield value
    except DeadlineExceeded:
        abandoned.set()
        if on_abandon is not None and reader.ident is not None:
            on_abandon(reader.ident)
        raise
    finally:
        abandoned.set()
