"""Every request gets its deadline (``request_deadline_s`` from its arrival), and a search
answers by it whatever Neo4j is doing.

The middleware puts a ``Deadline`` in the request's context, where the graph gateway bounds
each statement, each wait for a pooled connection and each retry by it
(``anchorgraph.graph.deadline``). That ends every wait Neo4j answers at all. A Neo4j that stops
answering in the middle of a statement (a frozen process, a network that drops packets) is
caught by ``answered_by``: the search, entity and document routes wait for their worker thread
no longer than the deadline and answer 504; the statement's server-side timeout, the time left,
cancels it there. (A write waits half a second more: a commit the server made just before its
timeout then still reaches the answer, rather than a 504 for a document that was written.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

import anyio
from fastapi import FastAPI
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from anchorgraph.graph.deadline import Deadline, current, within

T = TypeVar("T")

# The shortest wait between two looks at the deadline, so a pause begun with little time left
# does not make the route spin; a 504 comes at most this much after the deadline.
_POLL_S = 0.05


class DeadlineMiddleware:
    """Gives each HTTP request a ``Deadline`` of ``seconds`` from its arrival, and says in the
    answer's ``Server-Timing`` header (``app;dur=`` milliseconds, W3C Server Timing) how long
    the API took from that arrival to its answer: the time the deadline bounds, without the
    network's share or a queue in front of the API."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app, self.seconds = app, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        arrived = time.monotonic()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                took_ms = (time.monotonic() - arrived) * 1000
                MutableHeaders(scope=message).append("Server-Timing", f"app;dur={took_ms:.1f}")
            await send(message)

        with within(Deadline(self.seconds)):
            await self.app(scope, receive, timed)


def install_deadline(app: FastAPI, seconds: float) -> None:
    app.add_middleware(DeadlineMiddleware, seconds=seconds)


async def answered_by(work: Callable[[], T], grace_s: float = 0.0) -> T:
    """``work`` run in a worker thread, its result awaited until the request's deadline (which
    pauses may move later while it runs) plus ``grace_s``.

    Raises:
        DeadlineExceeded: the deadline passed first. The thread is abandoned, not stopped; its
            statements are cut by their server-side timeouts, which end at the deadline.
    """
    deadline = current()
    if deadline is None:
        return await anyio.to_thread.run_sync(work)
    # Abandoned when the deadline passes: waiting for the thread is what a frozen Neo4j would
    # make the answer do.
    running = asyncio.ensure_future(anyio.to_thread.run_sync(work, abandon_on_cancel=True))
    while True:
        # While the worker pauses the deadline (embedding a long document), the time left
        # stands still: wait again, at least a poll's length, until the pause is over.
        left = max(deadline.remaining() + grace_s, _POLL_S)
        done, _ = await asyncio.wait({running}, timeout=left)
        if done:
            return running.result()
        if deadline.remaining() + grace_s <= 0:
            deadline.expire()  # what the abandoned thread still tries is refused
            running.cancel()
            raise deadline.exceeded()
