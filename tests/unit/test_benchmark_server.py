"""What ``--keep-server`` keeps of a benchmark's throwaway server (benchmarks/server.py): a failed
run keeps the folder even when its server has stopped; without the flag, or after a run that
ended well with no server running, the folder goes."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from benchmarks.server import benchmark_server


def _args(*, keep: bool) -> argparse.Namespace:
    return argparse.Namespace(neo4j_heap="1g", neo4j_pagecache="1g", keep_server=keep)


def _fail_inside(keep: bool) -> Path:
    """The folder of a server never started, after the run inside it failed."""
    with (
        pytest.raises(RuntimeError, match="the run failed"),
        benchmark_server(_args(keep=keep), prefix="anchorgraph-test-kept-", start=False) as server,
    ):
        assert server.home is not None and server.home.is_dir()
        home = server.home
        raise RuntimeError("the run failed")
    return home


def test_a_failed_run_keeps_its_stopped_servers_folder_with_keep_server() -> None:
    home = _fail_inside(keep=True)
    try:
        assert home.is_dir()
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_a_failed_run_removes_the_folder_without_keep_server() -> None:
    assert not _fail_inside(keep=False).exists()


def test_a_run_that_ended_well_removes_a_stopped_servers_folder() -> None:
    with benchmark_server(_args(keep=True), prefix="anchorgraph-test-kept-", start=False) as server:
        home = server.home
    assert home is not None and not home.exists()
