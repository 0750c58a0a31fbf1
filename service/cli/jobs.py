"""``anchorgraph jobs``: follow an ingest job of a running API (``POST /ingest/jobs``,
docs/jobs.md) until it ends, or cancel it."""

from __future__ import annotations

from typing import Annotated

import typer

from anchorgraph.cli.output import api_base, api_call, console, err


def jobs_command(
    job: Annotated[
        str, typer.Argument(help="The job's id or URL (POST /ingest/jobs answers both).")
    ],
    api: Annotated[
        str, typer.Option("--api", help="The API's address; default: the configured one.")
    ] = "",
    cancel: Annotated[
        bool, typer.Option("--cancel", help="Cancel the job, then follow it to its end.")
    ] = False,
    every: Annotated[float, typer.Option(help="Seconds between two looks.", min=0.1)] = 1.0,
) -> None:
    """Follow an ingest job of a running API until it ends (docs/jobs.md): its progress as it
    goes, then what it wrote, left unchanged, refused and skipped, and why. Exit 1 when it
    failed or was cancelled."""
    import time

    from rich.markup import escape

    from anchorgraph.api.jobs import JobOut
    from anchorgraph.jobs import JobState

    url = job if "://" in job else f"{api_base(api)}/ingest/jobs/{job}"
    if cancel:
        api_call("DELETE", url, timeout=30.0)
    while True:
        state = JobOut.model_validate_json(api_call("GET", url, timeout=30.0).content)
        eta = f", {state.eta_s:.0f} s left" if state.eta_s is not None else ""
        err.print(
            f"{state.state}: {state.read}/{state.listed} files read, {state.written} written, "
            f"{state.chunks} chunks ({state.chunks_per_s:.1f}/s{eta})",
            end="\r",
        )
        if not state.state.unfinished:
            break
        time.sleep(every)
    err.print()
    console.print(
        f"Job {state.id} {state.state}: {state.written} written, {state.unchanged} unchanged, "
        f"{state.refused} refused, {state.skipped} skipped into collection "
        f"{state.collection!r}.",
        soft_wrap=True,
    )
    for reason in [*(r.message for r in state.refusals), *state.skips]:
        console.print(f"  {escape(reason)}", soft_wrap=True)
    if state.error:
        err.print(f"[bold red]error:[/] {escape(state.error)}", soft_wrap=True)
    if state.state is not JobState.DONE:
        raise typer.Exit(1)
