"""CPU time and peak memory of a local process, from Linux's /proc (None where unknown: another
machine's server, or a process that is gone). On a shared machine wall times swing with other
load; CPU seconds much less."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: int | None) -> float | None:
    """User plus system CPU seconds of a process so far, ended threads included (``stat``;
    clock-tick resolution, for whole runs)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_ms(pid: int | None) -> float | None:
    """CPU time of every live thread of a process so far, in ms (``schedstat``: nanosecond
    resolution, for one search)."""
    if pid is None:
        return None
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that just ended
    except OSError:
        return None
    return total / 1e6


def peak_rss_mb(pid: int | None) -> float | None:
    """Peak resident set of a process (``VmHWM``), in MB."""
    if pid is None:
        return None
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None
