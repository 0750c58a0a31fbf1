"""The background warm-up gives way to requests (service/api/warm.py): ``Requests`` counts what
the middleware is handling, and ``quiet`` waits for a pause in it, bounded by its limit."""

from __future__ import annotations

import threading
import time

from fastapi import FastAPI
from fastapi.testclient import TestClient

from anchorgraph.api.warm import Requests, RequestsMiddleware


def test_quiet_when_nothing_is_in_flight_once_the_pause_has_lasted() -> None:
    requests = Requests()
    started = time.monotonic()
    assert requests.quiet(quiet_s=0.05, limit_s=5.0)
    assert time.monotonic() - started < 5.0  # it did not wait for its limit


def test_a_request_in_flight_holds_it_back_until_the_limit() -> None:
    requests = Requests()
    with requests.serving():
        started = time.monotonic()
        assert not requests.quiet(quiet_s=0.0, limit_s=0.2)
        assert time.monotonic() - started >= 0.2


def test_it_goes_on_once_the_last_request_ends_and_the_pause_lasted() -> None:
    requests = Requests()
    entered, ended = threading.Event(), threading.Event()

    def serve() -> None:
        with requests.serving():
            entered.set()
            time.sleep(0.2)
        ended.set()

    worker = threading.Thread(target=serve)
    worker.start()
    assert entered.wait(30)
    assert requests.quiet(quiet_s=0.1, limit_s=30.0)
    assert ended.is_set()  # not before the request ended
    worker.join()


def test_the_middleware_counts_a_request_while_it_is_handled() -> None:
    requests = Requests()
    app = FastAPI()
    app.add_middleware(RequestsMiddleware, requests=requests)

    @app.get("/busy")
    def busy() -> dict[str, bool]:
        return {"quiet": requests.quiet(quiet_s=0.0, limit_s=0.05)}

    with TestClient(app) as client:
        assert client.get("/busy").json() == {"quiet": False}
    assert requests.quiet(quiet_s=0.0, limit_s=0.05)


def test_a_pause_counts_from_when_the_api_opens() -> None:
    requests = Requests()
    assert requests.quiet(quiet_s=10.0, limit_s=0.0)  # no request ever: quiet
    requests.opened()
    started = time.monotonic()
    assert requests.quiet(quiet_s=0.2, limit_s=30.0)
    assert time.monotonic() - started >= 0.2 - 0.01  # it waited for the pause from the opening
