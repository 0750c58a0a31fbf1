"""The Neo4j a benchmark runs against: a throwaway local server, or one the caller names.

Without ``--neo4j-uri`` a benchmark starts the project's own Neo4j (``LocalNeo4j``) in a
temporary folder on free ports and stops and removes it at the end, unless ``--keep-server``
asks to leave it running (for PROFILE work, or a later run with ``--neo4j-uri``). With
``--neo4j-uri`` (password from ``ANCHORGRAPH_NEO4J_PASSWORD``) it uses that server as it is.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from anchorgraph.graph.local_server import LocalNeo4j, throwaway_settings
from anchorgraph.settings import Settings


def log(message: str) -> None:
    """A timestamped progress line on stderr (stdout carries the report)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def add_server_arguments(
    parser: argparse.ArgumentParser, *, external: bool = True, memory: str = "2g"
) -> None:
    """The flags every benchmark shares. ``external``: whether ``--neo4j-uri`` is offered (a
    benchmark that drops indexes must only ever run on a server of its own)."""
    if external:
        parser.add_argument(
            "--neo4j-uri",
            default=None,
            help="Use this running server (never wiped). Default: start a throwaway local one.",
        )
    parser.add_argument("--neo4j-heap", default=memory, help="Heap of the started server.")
    parser.add_argument(
        "--neo4j-pagecache", default=memory, help="Page cache of the started server."
    )
    parser.add_argument(
        "--keep-server",
        action="store_true",
        help="Leave the started server running at the end, a failed run too (and say where).",
    )


@dataclass(frozen=True)
class BenchmarkServer:
    settings: Settings
    local: LocalNeo4j | None  # None: a server this process did not start (--neo4j-uri)
    home: Path | None  # the temporary folder of the started server

    @property
    def pid(self) -> int | None:
        """The started server's JVM, to read its CPU time and memory; None when not ours."""
        return self.local.status().pid if self.local is not None else None


@contextmanager
def benchmark_server(
    args: argparse.Namespace, *, prefix: str, start: bool = True
) -> Iterator[BenchmarkServer]:
    """The server the parsed ``add_server_arguments`` flags ask for.

    Args:
        prefix: of the temporary folder's name.
        start: start the throwaway server now; False leaves that to the caller (a bulk import
            writes the database before the server's first start).
    """
    uri: str | None = getattr(args, "neo4j_uri", None)
    if uri:
        yield BenchmarkServer(Settings(neo4j_uri=uri), None, None)
        return
    home = Path(tempfile.mkdtemp(prefix=prefix))
    settings = throwaway_settings(
        home / "neo4j", heap=args.neo4j_heap, pagecache=args.neo4j_pagecache
    )
    local = LocalNeo4j(settings)
    # A background run ignores SIGINT; SIGTERM must unwind too, so that the server is stopped.
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        if start:
            log(
                f"starting a throwaway Neo4j in {home} (heap {args.neo4j_heap}, "
                f"page cache {args.neo4j_pagecache}) …"
            )
            local.start()
            log(f"Neo4j up at {settings.bolt_uri}")
        else:
            log(
                f"a throwaway Neo4j will run in {home} (heap {args.neo4j_heap}, "
                f"page cache {args.neo4j_pagecache})"
            )
        yield BenchmarkServer(settings, local, home)
    except BaseException:
        # With --keep-server a failed run keeps its server too, or its folder when the server
        # is no longer running: a 1M-chunk graph takes hours to import and index, and the
        # failure is best looked into on the graph it happened on.
        if not _kept(args, local, settings, home, failed=True):
            _remove(local, home)
        raise
    else:
        if not _kept(args, local, settings, home, failed=False):
            _remove(local, home)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _kept(
    args: argparse.Namespace, local: LocalNeo4j, settings: Settings, home: Path, *, failed: bool
) -> bool:
    """Whether ``--keep-server`` keeps the server: running, or, after a failure, its folder
    though it has stopped (a server stopped from outside). Said in the log, with how to stop it
    or what is left."""
    if not args.keep_server:
        return False
    status = local.status()
    if status.running:
        log(
            f"server left running: {settings.bolt_uri}, user {settings.neo4j_user}, password "
            f"in {local.password_file}, pid {status.pid}; stop it with kill -- -{status.pid} "
            f"and remove {home}"
        )
        return True
    if failed:
        log(
            f"the server is not running; its folder is kept: {home} (store, indexes, logs, "
            f"password in {local.password_file}); remove it when done"
        )
    return failed


def _remove(local: LocalNeo4j, home: Path) -> None:
    local.stop()
    shutil.rmtree(home, ignore_errors=True)
