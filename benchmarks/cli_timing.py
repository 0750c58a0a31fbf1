"""Wall time of the ``anchorgraph`` commands as a user runs them: each one a fresh process of the
installed program, on the sample corpus, and how long ``anchorgraph run`` takes to serve.

    .venv/bin/python -m benchmarks.cli_timing [--runs 5] [--warmup 1]
    .venv/bin/python -m benchmarks.cli_timing --program BEFORE/.venv/bin/anchorgraph \
        --program .venv/bin/anchorgraph --make       # before and after a change, `make run`

It starts a throwaway Neo4j, loads the samples into their collections (``sample``, ``arquivo``)
with the real model, as ``anchorgraph run`` does (loading the model also checks and records the
ONNX export of it that ``search`` embeds queries with), and makes sure that export is
recorded. Then it times ``--runs`` runs of each command, after ``--warmup`` unmeasured ones, the
commands taking turns so that background load falls on all alike: the commands on the graph
alone, ``search``, and (unless ``--no-ingest``) ``ingest`` and ``sync`` of a folder of three
short notes (three new files each run; the same files again, unchanged; one of three files
changed; the same as a dry run). Next (unless ``--no-api``) it serves the API (``anchorgraph
serve``, the real model, started as ``benchmarks.load`` starts it) and times ``search --api URL``
against it. Last (unless ``--no-run``) it stops Neo4j and times ``anchorgraph run`` as a second
``make run`` finds things: Neo4j stopped, the samples loaded; each run until ``GET /health``
answers 200 (it serves), then its first ``POST /search`` (the search page's), then Ctrl-C
(SIGINT), which stops the API and the Neo4j it started.

Every command runs in an empty folder of its own, with the throwaway server's settings and a data
folder of the run's in the environment. ``--program`` (repeatable) times another installation's
program, e.g. a checkout of an earlier commit for figures before a change: each run of a command
by one program is followed by a run by the other (in turns, the first of them alternating), on
the same server, so that both meet the same load; ``--make`` times ``make -C CHECKOUT run`` for
each program's checkout (``CHECKOUT/.venv/bin/anchorgraph``) instead of its ``run``.

Prints a table (median, min and max wall seconds of each command, its target, and the median
CPU seconds of its process, which other load on the machine changes much less), then the figures
as one line of JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from anchorgraph.graph.local_server import free_port
from anchorgraph.settings import Settings
from benchmarks.load import api_processes
from benchmarks.server import add_server_arguments, benchmark_server, log

ANCHORGRAPH = str(Path(sys.executable).parent / "anchorgraph")
QUERY = "who directed the museum in the 1970s?"
# The targets: every command but those that ingest answers within 2 s, an ingest or sync of a
# small folder within 10 s, and a second `make run` serves within 20 s (all on a quiet machine).
QUICK_S, INGEST_S, RUN_S = 2.0, 10.0, 20.0
RUN = "run (second start)"


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...]
    target_s: float | None  # None: timed for information
    prepare: Callable[[int], None] | None = None  # called with the round before each run


def _note(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(f"# {name}\n\n{text}\n")


def _folder_commands(root: Path) -> list[Command]:
    """``ingest`` and ``sync`` of folders of three short notes under ``root``."""
    new, same, synced = root / "new", root / "same", root / "synced"
    for folder in (new, same, synced):
        folder.mkdir(parents=True)
    for i in range(3):
        _note(same, f"same-{i}.md", f"The AG-20{i} sensor in Gallery {i} read 5{i} % humidity.")
        _note(synced, f"synced-{i}.md", f"Maria Silva lent {i} works to the Museu in 197{i}.")

    def three_new(round_: int) -> None:
        for old in new.iterdir():
            old.unlink()
        for i in range(3):
            _note(new, f"note-{round_}-{i}.md", f"Note {round_}.{i}: the gallery opened at {i}.")

    changes = itertools.count()

    def one_changed(round_: int) -> None:  # new words each time: the dry run's as well
        _note(synced, "synced-0.md", f"Maria Silva lent {next(changes)} works in round {round_}.")

    sync = ("sync", str(synced), "-c", "synced")
    return [
        Command("ingest (3 new files)", ("ingest", str(new), "-c", "new"), INGEST_S, three_new),
        Command("ingest (unchanged)", ("ingest", str(same), "-c", "same"), INGEST_S),
        Command("sync (1 file changed)", sync, INGEST_S, one_changed),
        Command("sync --dry-run", (*sync, "--dry-run"), INGEST_S, one_changed),
    ]


GRAPH_COMMANDS = (
    Command("--help", ("--help",), 0.5),
    Command("neo4j status", ("neo4j", "status"), QUICK_S),
    Command("collections list", ("collections", "list"), QUICK_S),
    Command("fd stats", ("fd", "stats", "-c", "sample"), QUICK_S),
    Command("audit length", ("audit", "length", "-c", "sample"), QUICK_S),
    Command("search", ("search", QUERY, "-c", "sample"), QUICK_S),
)


def _environment(settings: Settings, data_dir: Path) -> dict[str, str]:
    """The throwaway server's settings as a command reads them, and nothing else of ours."""
    values = {
        "ANCHORGRAPH_NEO4J_HOME": str(settings.neo4j_home),
        "ANCHORGRAPH_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
        "ANCHORGRAPH_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
        "ANCHORGRAPH_NEO4J_HEAP": settings.neo4j_heap,
        "ANCHORGRAPH_NEO4J_PAGECACHE": settings.neo4j_pagecache,
        "ANCHORGRAPH_CACHE_DIR": str(settings.cache_dir),
        "ANCHORGRAPH_DATA_DIR": str(data_dir),
    }
    kept = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORGRAPH_")}
    return {**kept, **values}


@dataclass(frozen=True)
class Timing:
    wall_s: float  # from the fork to the exit (``run``: until it serves)
    cpu_s: float | None  # user + system time of the process: what it did, less what it waited
    first_search_ms: float | None = None  # ``run``: its first search, once it serves


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _run(program: str, args: Sequence[str], env: dict[str, str]) -> tuple[Timing, str]:
    """The time one run took, and its stderr.

    Raises:
        RuntimeError: the command failed.
    """
    with tempfile.TemporaryDirectory(prefix="anchorgraph-cwd-") as cwd:
        before = _children_cpu()
        started = time.perf_counter()
        done = subprocess.run(
            [program, *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
        )
        elapsed = time.perf_counter() - started
        cpu = _children_cpu() - before  # only the child just reaped
        left = os.listdir(cwd)
    if done.returncode != 0:
        raise RuntimeError(f"anchorgraph {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    if left:
        raise RuntimeError(f"anchorgraph {' '.join(args)} wrote {left} into its folder")
    return Timing(elapsed, cpu), done.stderr


Key = tuple[str, str]  # the program's checkout, the command's name


def _checkout(program: str) -> Path:
    """The checkout a program is installed from (``CHECKOUT/.venv/bin/anchorgraph``)."""
    return Path(program).absolute().parents[2]


def _in_turns(programs: Sequence[str], round_: int) -> Sequence[str]:
    """The programs in the order of this round: the first alternates, so that neither always
    runs just after the other's work (a write, a JVM's start) settles."""
    return programs if round_ % 2 == 0 else programs[::-1]


def _time(
    programs: Sequence[str],
    commands: Sequence[Command],
    env: dict[str, str],
    runs: int,
    warmup: int,
) -> dict[Key, list[Timing]]:
    """``runs`` timed runs of every command by every program, taking turns, after ``warmup``
    untimed ones."""
    seconds: dict[Key, list[Timing]] = {}
    turns = itertools.count()
    for round_ in range(warmup + runs):
        for command in commands:
            for program in _in_turns(programs, round_):
                if command.prepare is not None:
                    command.prepare(next(turns))
                timing, stderr = _run(program, command.args, env)
                if "note:" in stderr:  # the full model was loaded: not the path being measured
                    log(f"{command.name}: {stderr.strip()}")
                log(f"{_checkout(program).name} {command.name}: {timing.wall_s:.2f} s")
                if round_ >= warmup:
                    seconds.setdefault((_checkout(program).name, command.name), []).append(timing)
        log(f"round {round_ + 1}/{warmup + runs} done")
    return seconds


def _served(command: Sequence[str], env: dict[str, str], url: str) -> Timing:
    """Start ``command`` (``anchorgraph run``, or ``make run``), time it until ``url`` answers
    ``/health`` with 200, send the search page's search, then stop it with Ctrl-C (SIGINT to its
    process group, as a terminal sends it) and wait for it to end (it stops its Neo4j)."""
    with (
        tempfile.TemporaryDirectory(prefix="anchorgraph-cwd-") as cwd,
        tempfile.TemporaryFile() as said,  # a file, not a pipe: a full pipe would stall it
        # One client for every poll: httpx.get builds a client, and its TLS context, each call
        # (~30 ms of CPU here), ten times a second on the two cores the start is timed on.
        httpx.Client(timeout=5) as client,
    ):
        started = time.perf_counter()
        process = subprocess.Popen(
            command,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=said,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            while True:
                if process.poll() is not None:
                    said.seek(0)
                    output = said.read().decode(errors="replace")[-3000:]
                    raise RuntimeError(f"{' '.join(command)} exited:\n{output}")
                try:
                    if client.get(f"{url}/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.1)
            serving = time.perf_counter() - started
            clock = time.perf_counter()
            answer = client.post(
                f"{url}/search", json={"query": QUERY, "explain": True}, timeout=120
            )
            first_search_ms = (time.perf_counter() - clock) * 1000
            answer.raise_for_status()
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
                process.wait(timeout=300)
    return Timing(serving, None, round(first_search_ms, 1))


def _time_run(
    programs: Sequence[str], make: bool, env: dict[str, str], runs: int, warmup: int
) -> dict[Key, list[Timing]]:
    """``runs`` timed starts by every program, taking turns, after ``warmup`` untimed ones."""
    port = free_port()
    env = env | {"ANCHORGRAPH_API_HOST": "127.0.0.1", "ANCHORGRAPH_API_PORT": str(port)}
    url = f"http://127.0.0.1:{port}"
    seconds: dict[Key, list[Timing]] = {}
    for round_ in range(warmup + runs):
        for program in _in_turns(programs, round_):
            checkout = _checkout(program)
            command = ["make", "-C", str(checkout), "run"] if make else [program, "run"]
            timing = _served(command, env, url)
            log(
                f"{checkout.name} run {round_ + 1}/{warmup + runs}: "
                f"serving after {timing.wall_s:.1f} s"
            )
            if round_ >= warmup:
                seconds.setdefault((checkout.name, RUN), []).append(timing)
    return seconds


def _load_sample(settings: Settings) -> None:
    """Both samples in their collections (``sample``, ``arquivo``), as ``anchorgraph run``
    loads them, and the model's ONNX export recorded."""
    from anchorgraph.embedding import load_query_embedder
    from anchorgraph.ingestion import load_samples
    from anchorgraph.runtime import open_runtime

    log("loading the samples with the real model …")
    with open_runtime(settings, schema="apply") as runtime:
        loaded = load_samples(runtime)
    log(f"samples: {[stats.written for stats in loaded]} documents written")
    # Raises OnnxUnavailable if the full model could not record its export: search would then
    # load the full model on every run, and the timing would not be of the path meant.
    load_query_embedder(settings.embedding_model, settings.cache_dir)


def _summary(
    commands: Sequence[Command],
    seconds: dict[Key, list[Timing]],
    args: argparse.Namespace,
    load_before: tuple[float, float, float],
) -> dict[str, Any]:
    rows = []
    for command, program in itertools.product(commands, args.program):
        timings = seconds[_checkout(program).name, command.name]
        values = [timing.wall_s for timing in timings]
        median = statistics.median(values)
        cpu = [timing.cpu_s for timing in timings if timing.cpu_s is not None]
        searches = [t.first_search_ms for t in timings if t.first_search_ms is not None]
        rows.append(
            {
                "command": command.name,
                "checkout": _checkout(program).name,
                "args": list(command.args),
                "median_s": round(median, 3),
                "min_s": round(min(values), 3),
                "max_s": round(max(values), 3),
                "target_s": command.target_s,
                "met": None if command.target_s is None else median <= command.target_s,
                "runs_s": [round(value, 3) for value in values],
                "cpu_median_s": round(statistics.median(cpu), 3) if cpu else None,
                "first_search_median_ms": statistics.median(searches) if searches else None,
            }
        )
    return {
        "benchmark": "cli_timing",
        "created": time.strftime("%Y-%m-%d %H:%M:%S"),
        "programs": args.program,
        "make": args.make,
        "runs": args.runs,
        "warmup": args.warmup,
        "cpus": os.cpu_count(),
        "load_average_before": [round(load, 2) for load in load_before],
        "load_average": [round(load, 2) for load in os.getloadavg()],
        "commands": rows,
    }


def _print_table(summary: dict[str, Any]) -> None:
    print(
        f"{'command':<22} {'checkout':<12} {'median s':>9} {'min s':>7} {'max s':>7} "
        f"{'target s':>9}  met  {'cpu s':>6}"
    )
    for row in summary["commands"]:
        target = "-" if row["target_s"] is None else f"≤ {row['target_s']:g}"
        met = {None: "", True: "yes", False: "NO"}[row["met"]]
        cpu = "-" if row["cpu_median_s"] is None else f"{row['cpu_median_s']:.2f}"
        first = row["first_search_median_ms"]
        print(
            f"{row['command']:<22} {row['checkout']:<12} {row['median_s']:>9.2f} "
            f"{row['min_s']:>7.2f} {row['max_s']:>7.2f} {target:>9}  {met:<3}  {cpu:>6}"
            + ("" if first is None else f"  first search {first:.0f} ms")
        )
    print(
        f"{', '.join(summary['programs'])}{' (run: make run)' if summary['make'] else ''}: "
        f"{summary['runs']} runs each after {summary['warmup']} "
        f"unmeasured; load average {summary['load_average_before']} before, "
        f"{summary['load_average']} after, on {summary['cpus']} CPUs; cpu s: the median user + "
        "system seconds of the process"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="Timed runs of each command.")
    parser.add_argument("--warmup", type=int, default=1, help="Untimed runs of each first.")
    parser.add_argument(
        "--program", action="append", help="An anchorgraph program to time, CHECKOUT/.venv/bin/"
        "anchorgraph (repeat it: another checkout's, for figures before a change). Default: "
        "this one's."
    )  # fmt: skip
    parser.add_argument(
        "--make", action="store_true", help="Time `make -C CHECKOUT run` for each program."
    )
    parser.add_argument(
        "--no-api", dest="api", action="store_false", help="Do not serve the API for search --api."
    )
    parser.add_argument(
        "--no-ingest", dest="ingest", action="store_false", help="Do not time ingest and sync."
    )
    parser.add_argument(
        "--no-run", dest="run", action="store_false", help="Do not time anchorgraph run."
    )
    add_server_arguments(parser, external=False, memory="1g")
    args = parser.parse_args(argv)
    args.program = args.program or [ANCHORGRAPH]

    with benchmark_server(args, prefix="anchorgraph-cli-timing-") as server:
        assert server.home is not None and server.local is not None
        settings = server.settings
        _load_sample(settings)
        env = _environment(settings, server.home / "data")
        load_before = os.getloadavg()
        commands = list(GRAPH_COMMANDS)
        if args.ingest:
            commands += _folder_commands(server.home / "folders")
            for command in commands[len(GRAPH_COMMANDS) :]:  # the collections made, untimed
                if command.prepare is not None:
                    command.prepare(-1)
                _run(args.program[0], command.args, env)
        seconds = _time(args.program, commands, env, args.runs, args.warmup)
        if args.api:
            log("serving the API (it loads the model) …")
            with api_processes(settings, workers=1, gazetteer=None) as url:
                api = Command("search --api", ("search", QUERY, "-c", "sample", "--api", url), 2)
                commands.append(api)
                seconds |= _time(args.program, [api], env, args.runs, args.warmup)
        if args.run:
            server.local.stop()  # as the first `make run` leaves it when it ends
            commands.append(Command(RUN, ("run",), RUN_S))
            seconds |= _time_run(args.program, args.make, env, args.runs, args.warmup)
    summary = _summary(commands, seconds, args, load_before)
    _print_table(summary)
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
