"""Work spread over processes, its results taken in the order it was given, a bounded number
ahead: how files are read and OCRed on every core while the caller embeds and writes what came
before (``anchorgraph.loaders.read.read_source``).

The processes come from the ``forkserver`` start method: forked from a clean server process that
imported the readers once (``PRELOAD``), never from the caller, whose threads (the Neo4j
driver's, torch's) a fork would copy in whatever state they are. A fork costs milliseconds where
a fresh interpreter importing the readers costs a second or more. The server keeps the
environment it started with, so each pool hands its workers the caller's environment as it is
now (an ``AWS_*`` setting changed since is seen), and caps the OpenMP threads of each worker's
Tesseract at one: with a process a core, Tesseracts that each start a thread a core run slower
together than one alone (tesseract-ocr/tesseract#3109: 16 s for ten pages in one
multi-threaded process, 459 s for ten in parallel, 9 s in parallel with OMP_THREAD_LIMIT=1).

A pool still costs its workers' first imports: each imports the readers of the formats it meets
(PDF, HTML, DOCX), ~1 s here for the sample corpus's 12 files, which the caller reads in
0.2 s. So the work starts in the caller's process and moves to a pool only once it has taken
``IN_PROCESS_S``: a few small files never start one, a folder of scans starts one at once.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

PRELOAD = ["anchorgraph.loaders.read"]
# How long the work runs in the caller's process before a pool takes the rest.
IN_PROCESS_S = 0.5

_In = TypeVar("_In")
_Out = TypeVar("_Out")


def workers_for(setting: int) -> int:
    """The processes a ``read_workers`` setting asks for: 0 means one a core."""
    return setting or os.cpu_count() or 1


def ordered_map(
    function: Callable[[_In], _Out],
    items: Iterable[_In],
    *,
    workers: int,
    ahead: int,
    in_process_s: float = IN_PROCESS_S,
) -> Generator[_Out, None, None]:
    """``map(function, items)``, computed by ``workers`` processes, yielding in the order of
    ``items``. The first items are computed in this process, one at a time, until ``function``
    has taken ``in_process_s`` seconds on them (all of them when ``workers`` is 1); the rest by
    the pool. At most ``ahead`` items past the one being yielded are handed out, so a slow
    consumer holds back the reading and memory stays bounded. ``items`` is consumed lazily, as
    the window moves.

    The pool starts when the first item goes to it and stops when the iterator ends or is
    closed; work not yet started is then cancelled. An exception raised by ``function`` is
    raised here when its item's turn comes (what came before it has been yielded)."""
    remaining = iter(items)
    spent = 0.0
    while workers <= 1 or spent < in_process_s:
        try:
            item = next(remaining)
        except StopIteration:
            return
        started = time.perf_counter()
        result = function(item)
        spent += time.perf_counter() - started
        yield result
    yield from _pooled(function, remaining, workers=workers, ahead=ahead)


def _pooled(
    function: Callable[[_In], _Out], items: Iterator[_In], *, workers: int, ahead: int
) -> Generator[_Out, None, None]:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start, initargs=(dict(os.environ), function)
    )
    pending: deque[Future[_Out]] = deque()
    try:
        for item in items:
            pending.append(pool.submit(_apply, item))
            if len(pending) > max(ahead, 1):
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# A worker's function, sent once when it starts rather than with every item: what it holds (a
# source's file system client, say) is built once a worker.
_function: Callable[[Any], Any] | None = None


def _start(environment: dict[str, str], function: Callable[[Any], Any]) -> None:
    """A worker's start: the caller's environment, one OpenMP thread for Tesseract, and the
    function it applies."""
    global _function
    os.environ.clear()
    os.environ.update(environment)
    os.environ["OMP_THREAD_LIMIT"] = "1"
    _function = function


def _apply(item: Any) -> Any:
    assert _function is not None, "a pool worker applies the function it started with"
    return _function(item)
