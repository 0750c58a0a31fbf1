"""The app behind a real uvicorn server in a thread, for tests that need a port (a web browser,
schemathesis, concurrent HTTP clients, the server's own logs). Imported by the test modules
(pyproject's pytest ``pythonpath`` puts tests/ on ``sys.path``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI

START_TIMEOUT_S = 180  # the lifespan loads the model and warms every path's plans


@contextmanager
def served(app: FastAPI, port: int = 0, **config: Any) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (``port`` 0: a free one) until the block ends; yields its
    base URL. ``config`` goes to ``uvicorn.Config`` (default: warnings only, no websockets)."""
    options: dict[str, Any] = {"log_level": "warning", "ws": "none"} | config
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, **options))
    thread = threading.Thread(target=server.run, name="api", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the API did not start"
        time.sleep(0.05)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
