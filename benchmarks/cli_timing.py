"""Wall time of the ``anchorgraph`` commands as a user runs them: each one a fresh process of the
installed program, on the sample corpus.

    .venv/bin/python -m benchmarks.cli_timing [--runs 5] [--warmup 1]

It starts a throwaway Neo4j, loads the sample corpus into the collection ``sample`` with the real
model (as ``anchorgraph run`` does; loading the model also checks and records the ONNX export of
it that ``search`` embeds queries with) and makes sure that export is recorded. Then it times
``--runs`` runs of each command, after ``--warmup`` unmeasured ones, the commands taking turns
so that background load falls on all alike; last, it serves the API (``anchorgraph serve``, the
real model, started as ``benchmarks.load`` starts it) and times ``search --api`` against it.
Every command runs in an empty folder of its own, with the throwaway server's settings and a data
folder of the run's in the environment.

Prints a table (median, min and max wall seconds of each command, its target, and the median
CPU seconds of its process, which other load on the machine changes much less), then the figures
as one line of JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anchorgraph.settings import Settings
from benchmarks.load import api_processes
from benchmarks.server import add_server_arguments, benchmark_server, log

ANCHORGRAPH = str(Path(sys.executable).parent / "anchorgraph")
QUERY = "who directed the museum in the 1970s?"


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...]
    target_s: float | None  # the first hour's targets; None: timed for information


COMMANDS = (
    Command("--help", ("--help",), 0.5),
    Command("search", ("search", QUERY, "-c", "sample"), 2.0),
    Command("audit length", ("audit", "length", "-c", "sample"), 3.0),
    Command("fd stats", ("fd", "stats", "-c", "sample"), None),
    Command("collections list", ("collections", "list"), None),
)


def _environment(settings: Settings, data_dir: Path) -> dict[str, str]:
    """The throwaway server's settings as a command reads them, and nothing else of ours."""
    values = {
        "ANCHORGRAPH_NEO4J_HOME": str(settings.neo4j_home),
        "ANCHORGRAPH_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
        "ANCHORGRAPH_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
        "ANCHORGRAPH_CACHE_DIR": str(settings.cache_dir),
        "ANCHORGRAPH_DATA_DIR": str(data_dir),
    }
    kept = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORGRAPH_")}
    return {**kept, **values}


@dataclass(frozen=True)
class Timing:
    wall_s: float  # from the fork to the exit
    cpu_s: float  # user + system time of the process: what it did, less what it waited for


def _run(args: Sequence[str], env: dict[str, str]) -> tuple[Timing, str]:
    """The time one run took, and its stderr.

    Raises:
        RuntimeError: the command failed.
    """
    with tempfile.TemporaryDirectory(prefix="anchorgraph-cwd-") as cwd:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [ANCHORGRAPH, *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
        )
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # only the child just reaped
        left = os.listdir(cwd)
    if done.returncode != 0:
        raise RuntimeError(f"anchorgraph {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    if left:
        raise RuntimeError(f"anchorgraph {' '.join(args)} wrote {left} into its folder")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(elapsed, cpu), done.stderr


def _time(
    commands: Sequence[Command], env: dict[str, str], runs: int, warmup: int
) -> dict[str, list[Timing]]:
    """``runs`` timed runs of every command, taking turns, after ``warmup`` untimed ones."""
    seconds: dict[str, list[Timing]] = {command.name: [] for command in commands}
    for round_ in range(warmup + runs):
        for command in commands:
            timing, stderr = _run(command.args, env)
            if "note:" in stderr:  # the full model was loaded: not the path being measured
                log(f"{command.name}: {stderr.strip()}")
            if round_ >= warmup:
                seconds[command.name].append(timing)
        log(f"round {round_ + 1}/{warmup + runs} done")
    return seconds


def _load_sample(settings: Settings) -> None:
    """The sample corpus in the collection ``sample``, and the model's ONNX export recorded."""
    from anchorgraph.embedding import load_query_embedder
    from anchorgraph.ingestion import load_sample
    from anchorgraph.runtime import open_runtime

    log("loading the sample corpus with the real model …")
    with open_runtime(settings, schema="apply") as runtime:
        stats = load_sample(runtime)
    log(f"sample corpus: {stats.written} documents written, {stats.chunks} chunks")
    # Raises OnnxUnavailable if the full model could not record its export: search would then
    # load the full model on every run, and the timing would not be of the path meant.
    load_query_embedder(settings.embedding_model, settings.cache_dir)


def _summary(
    commands: Sequence[Command],
    seconds: dict[str, list[Timing]],
    runs: int,
    warmup: int,
    load_before: tuple[float, float, float],
) -> dict[str, Any]:
    rows = []
    for command in commands:
        values = [timing.wall_s for timing in seconds[command.name]]
        median = statistics.median(values)
        rows.append(
            {
                "command": command.name,
                "args": list(command.args),
                "median_s": round(median, 3),
                "min_s": round(min(values), 3),
                "max_s": round(max(values), 3),
                "target_s": command.target_s,
                "met": None if command.target_s is None else median <= command.target_s,
                "runs_s": [round(value, 3) for value in values],
                "cpu_median_s": round(
                    statistics.median(timing.cpu_s for timing in seconds[command.name]), 3
                ),
            }
        )
    return {
        "benchmark": "cli_timing",
        "created": time.strftime("%Y-%m-%d %H:%M:%S"),
        "runs": runs,
        "warmup": warmup,
        "cpus": os.cpu_count(),
        "load_average_before": [round(load, 2) for load in load_before],
        "load_average": [round(load, 2) for load in os.getloadavg()],
        "commands": rows,
    }


def _print_table(summary: dict[str, Any]) -> None:
    print(
        f"{'command':<18} {'median s':>9} {'min s':>7} {'max s':>7} {'target s':>9}  met  "
        f"{'cpu s':>6}"
    )
    for row in summary["commands"]:
        target = "-" if row["target_s"] is None else f"≤ {row['target_s']:g}"
        met = {None: "", True: "yes", False: "NO"}[row["met"]]
        print(
            f"{row['command']:<18} {row['median_s']:>9.2f} {row['min_s']:>7.2f} "
            f"{row['max_s']:>7.2f} {target:>9}  {met:<3}  {row['cpu_median_s']:>6.2f}"
        )
    print(
        f"{summary['runs']} runs each after {summary['warmup']} unmeasured; "
        f"load average {summary['load_average_before']} before, {summary['load_average']} "
        f"after, on {summary['cpus']} CPUs; cpu s: the median user + system seconds of the "
        "process"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="Timed runs of each command.")
    parser.add_argument("--warmup", type=int, default=1, help="Untimed runs of each first.")
    parser.add_argument(
        "--no-api", dest="api", action="store_false", help="Do not serve the API for search --api."
    )
    add_server_arguments(parser, external=False, memory="1g")
    args = parser.parse_args(argv)

    with benchmark_server(args, prefix="anchorgraph-cli-timing-") as server:
        assert server.home is not None
        settings = server.settings
        _load_sample(settings)
        env = _environment(settings, server.home / "data")
        load_before = os.getloadavg()
        commands = list(COMMANDS)
        seconds = _time(commands, env, args.runs, args.warmup)
        if args.api:
            log("serving the API (it loads the model) …")
            with api_processes(settings, workers=1, gazetteer=None) as url:
                api = Command("search --api", ("search", QUERY, "-c", "sample", "--api", url), None)
                commands.append(api)
                seconds |= _time([api], env, args.runs, args.warmup)
    summary = _summary(commands, seconds, args.runs, args.warmup, load_before)
    _print_table(summary)
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
