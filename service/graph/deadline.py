"""A request's deadline: every wait on Neo4j made for a request ends by it.

The API gives each request a :class:`Deadline` (``ANCHORGRAPH_REQUEST_DEADLINE_S`` from its
arrival, ``anchorgraph.api.deadline``) and the graph gateway reads it wherever a read or write is
made for that request, so the code between them passes nothing along. Each statement then
goes to Neo4j with the time left as its server-side timeout, so a read the answer no longer
waits for is cancelled by the server rather than left running, and waits for a pooled
connection and retries end by the deadline too. Python's ``contextvars`` carry the deadline
into the worker threads the service runs requests and candidate paths in (``propagating``).

Work that does not wait on Neo4j (reading a file, OCR, embedding a document) is ``paused``
out of a write's deadline: a document hundreds of pages long may take minutes to embed on a
healthy server, and the deadline is about what Neo4j does, not about the size of a document.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from anchorgraph.errors import DeadlineExceeded

P = ParamSpec("P")
T = TypeVar("T")


class Deadline:
    """A point in ``time.monotonic()`` time that pauses move later. Its clock stands still
    while any pause is open, in whichever thread: a route waiting for its worker
    (``anchorgraph.api.deadline.answered_by``) must not see the deadline pass while the worker
    embeds a long document, only once the pause is over."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds
        self._expired = False
        self._lock = threading.Lock()
        self._open_pauses = 0
        self._paused_at = 0.0  # when the first of the open pauses began

    def remaining(self) -> float:
        """Seconds left (as they were when the open pauses began, while any is open); zero or
        less once it has passed."""
        if self._expired:
            return -1.0
        with self._lock:
            now = self._paused_at if self._open_pauses else time.monotonic()
            return self._end - now

    def expire(self) -> None:
        """Passed for good, pauses or not: the request was answered without the work still
        running for it, which must then write nothing."""
        self._expired = True

    def bound(self, timeout: float) -> float:
        """``timeout`` or the time left, whichever is shorter.

        Raises:
            DeadlineExceeded: no time is left.
        """
        left = self.remaining()
        if left <= 0:
            raise self.exceeded()
        return min(timeout, left)

    def exceeded(self) -> DeadlineExceeded:
        return DeadlineExceeded(
            f"Neo4j did not answer within the request deadline of {self.seconds:g} s "
            "(ANCHORGRAPH_REQUEST_DEADLINE_S); nothing was written. Try again, or raise "
            "the deadline if Neo4j is only slow."
        )

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The time spent inside does not count (pauses that overlap, in one thread or
        several, count once: from the first one's start to the last one's end)."""
        with self._lock:
            if not self._open_pauses:
                self._paused_at = time.monotonic()
            self._open_pauses += 1
        try:
            yield
        finally:
            with self._lock:
                self._open_pauses -= 1
                if not self._open_pauses:
                    self._end += time.monotonic() - self._paused_at


_current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar(
    "anchorgraph_deadline", default=None
)


def current() -> Deadline | None:
    """The deadline of the request being served in this context, if any."""
    return _current.get()


@contextmanager
def within(deadline: Deadline | None) -> Iterator[Deadline | None]:
    """Everything inside, and the threads it starts through ``propagating``, works to
    ``deadline`` (None: none)."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


@contextmanager
def paused() -> Iterator[None]:
    """The current deadline, if any, does not count the time inside (CPU work of a write)."""
    deadline = current()
    if deadline is None:
        yield
        return
    with deadline.paused():
        yield


def propagating(work: Callable[P, T]) -> Callable[P, T]:
    """``work`` run in a copy of this context when a pool thread calls it (an executor's
    threads do not inherit context variables). Wrap once per submission: one copy cannot
    run in two threads at once."""
    context = contextvars.copy_context()

    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return context.run(work, *args, **kwargs)

    return run
