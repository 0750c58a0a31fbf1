"""A server the tests start as a process of their own on loopback (SeaweedFS, Infinity): its
output in a log file in its folder, waited for until it answers, stopped at the end."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

import httpx


class ServerProcess:
    """One server process in ``home``; a subclass says what it is called, how long it may take
    to start, and when it answers (``answers``)."""

    name: ClassVar[str]  # its log's name, and what a failure calls it
    start_timeout_s: ClassVar[float]

    def __init__(self, home: Path) -> None:
        self.home = home
        self.process: subprocess.Popen[bytes] | None = None

    def answers(self) -> bool:
        """Whether it serves yet: one request (an ``httpx.HTTPError`` counts as no)."""
        raise NotImplementedError

    def launch(self, command: Sequence[str], environment: Mapping[str, str]) -> None:
        """Start ``command`` in ``home`` and wait until it answers.

        Raises:
            RuntimeError: it exited, or did not answer within ``start_timeout_s``; its log's
                end says why.
        """
        self.home.mkdir(parents=True, exist_ok=True)
        with (self.home / f"{self.name}.log").open("ab") as log:  # the process keeps a copy
            self.process = subprocess.Popen(
                command, cwd=self.home, env=environment, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.process.returncode}): {self.log()}")
            try:
                if self.answers():
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer in {self.start_timeout_s} s: {self.log()}")

    def log(self) -> str:
        path = self.home / f"{self.name}.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
