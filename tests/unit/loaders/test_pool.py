"""Work spread over processes (``anchorgraph.loaders.pool``): results in the order given
whatever order they finish in, a failure raised in its turn, and the items taken a bounded way
ahead of the caller, and the first items in the caller's process until they have taken long
enough to pay for a pool. The work is a shell command (``subprocess.check_output``): a function
every worker imports by name."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from anchorgraph.loaders.pool import ordered_map


def _shell(script: str) -> list[str]:
    return ["sh", "-c", script]


def test_results_come_in_the_order_given_when_later_ones_finish_first() -> None:
    # The first item finishes last: the others are done by the second worker meanwhile.
    scripts = [_shell("sleep 1; echo 0"), *(_shell(f"echo {n}") for n in range(1, 6))]
    results = ordered_map(subprocess.check_output, scripts, workers=2, ahead=8, in_process_s=0)
    assert [int(out) for out in results] == list(range(6))


def test_a_failure_is_raised_in_its_turn_after_what_came_before() -> None:
    scripts = [_shell("echo 0"), _shell("echo 1"), _shell("exit 3"), _shell("echo 3")]
    results = ordered_map(subprocess.check_output, scripts, workers=2, ahead=8, in_process_s=0)
    assert [int(next(results)), int(next(results))] == [0, 1]
    with pytest.raises(subprocess.CalledProcessError):
        next(results)


def test_items_are_taken_at_most_ahead_past_the_one_given() -> None:
    taken: list[int] = []

    def items() -> Iterator[list[str]]:
        for n in range(50):
            taken.append(n)
            yield _shell(f"echo {n}")

    results = ordered_map(subprocess.check_output, items(), workers=2, ahead=3, in_process_s=0)
    assert int(next(results)) == 0
    assert len(taken) == 4  # the one given and three ahead: not the fifty
    results.close()  # the pool stops, the rest never taken
    assert len(taken) == 4


def test_one_worker_reads_in_this_process_one_item_at_a_time() -> None:
    taken: list[int] = []

    def items() -> Iterator[int]:
        for n in range(10):
            taken.append(n)
            yield n

    results = ordered_map(str, items(), workers=1, ahead=5)
    assert next(results) == "0" and taken == [0]


def test_once_the_work_here_has_taken_in_process_s_the_pool_takes_the_rest() -> None:
    # The first item alone takes longer than in_process_s: it runs here, every later one in a
    # worker. The shell prints its parent: the process that ran the item.
    scripts = [_shell("sleep 0.3; echo $PPID"), *(_shell("echo $PPID") for _ in range(4))]
    ran_in = [int(out) for out in ordered_map(
        subprocess.check_output, scripts, workers=2, ahead=8, in_process_s=0.2
    )]  # fmt: skip
    assert ran_in[0] == os.getpid()
    assert os.getpid() not in ran_in[1:]


def test_quick_work_never_starts_a_pool() -> None:
    scripts = [_shell("echo $PPID") for _ in range(5)]
    ran_in = ordered_map(subprocess.check_output, scripts, workers=2, ahead=8, in_process_s=60)
    assert {int(out) for out in ran_in} == {os.getpid()}
