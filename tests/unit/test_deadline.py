"""The request deadline's rules, without a server: what time is left, what pauses do, and that
the deadline reaches the threads a request starts."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from clients import app_seconds
from fastapi import FastAPI
from fastapi.testclient import TestClient

from anchorgraph.api.deadline import answered_by, install_deadline
from anchorgraph.errors import DeadlineExceeded
from anchorgraph.graph.deadline import Deadline, current, paused, propagating, within


def test_a_bound_is_the_shorter_of_the_timeout_and_the_time_left() -> None:
    deadline = Deadline(5.0)
    assert deadline.bound(1.0) == 1.0
    assert 4.0 < deadline.bound(30.0) <= 5.0


def test_a_passed_deadline_sends_nothing_and_says_which_setting() -> None:
    deadline = Deadline(0.01)
    time.sleep(0.02)
    with pytest.raises(DeadlineExceeded, match="ANCHORGRAPH_REQUEST_DEADLINE_S"):
        deadline.bound(30.0)


def test_time_spent_paused_does_not_count() -> None:
    deadline = Deadline(0.2)
    with paused(), within(deadline):  # no deadline yet when the pause began: nothing moves
        pass
    with within(deadline), paused():
        time.sleep(0.3)
    assert deadline.remaining() > 0.1


def test_the_deadline_reaches_pool_threads_only_through_propagating() -> None:
    deadline = Deadline(10.0)
    with ThreadPoolExecutor(max_workers=1) as pool, within(deadline):
        assert pool.submit(current).result() is None  # a pool thread has a context of its own
        assert pool.submit(propagating(current)).result() is deadline
        assert pool.submit(propagating(current)).result() is deadline  # one copy per submission
    assert current() is None


def test_an_expired_deadline_stays_passed_whatever_pauses_follow() -> None:
    deadline = Deadline(10.0)
    deadline.expire()
    with within(deadline), paused():
        time.sleep(0.01)
    with pytest.raises(DeadlineExceeded):
        deadline.bound(1.0)


def test_every_answer_says_how_long_the_api_took_from_the_request_s_arrival() -> None:
    """The Server-Timing header measures what the deadline bounds: a route that waits 0.2 s
    says at least 200 ms, and never more than its client waited."""
    app = FastAPI()
    install_deadline(app, seconds=5.0)

    @app.get("/slow")
    async def slow() -> dict[str, float | None]:
        await asyncio.sleep(0.2)
        deadline = current()
        return {"remaining": deadline.remaining() if deadline else None}

    with TestClient(app) as client:
        started = time.monotonic()
        answer = client.get("/slow")
        waited_ms = (time.monotonic() - started) * 1000
        missing = client.get("/nowhere")
    took = app_seconds(answer.headers)
    assert took is not None and 200 <= took * 1000 <= waited_ms
    assert 0 < answer.json()["remaining"] <= 5.0 - 0.2  # the deadline runs from the same arrival
    assert missing.status_code == 404 and "server-timing" in missing.headers


def test_the_clock_stands_still_while_a_pause_is_open_in_another_thread() -> None:
    deadline = Deadline(0.2)
    with ThreadPoolExecutor(max_workers=1) as pool, within(deadline):

        def embeds_a_long_document() -> None:
            with paused():
                time.sleep(2 * deadline.seconds)

        pausing = pool.submit(propagating(embeds_a_long_document))
        time.sleep(1.5 * deadline.seconds)  # past the deadline, had the pause not stopped it
        assert not pausing.done() and deadline.remaining() > 0
        pausing.result()
    assert deadline.remaining() > 0


def test_a_route_waits_for_its_worker_while_the_worker_pauses_past_the_deadline() -> None:
    deadline = Deadline(0.2)

    def upload() -> str:
        with paused():  # reading and embedding the document: not Neo4j's time
            time.sleep(3 * deadline.seconds)
        return "written"

    async def route() -> str:
        with within(deadline):
            return await answered_by(upload)

    assert asyncio.run(route()) == "written"
