"""A real SeaweedFS (``weed server -s3``) on loopback for the tests that read ``s3://`` sources.

``make weed`` builds the binary from the Go module proxy through this folder's wrapper module
(README.md) into the cache, keyed by the version ``go.mod`` requires; ``weed()`` finds it there.
The server runs master, volume, filer and S3 gateway in one process, every port (HTTP and gRPC)
chosen free on 127.0.0.1, in a temporary folder, without telemetry, and with no ``AWS_*``
variable in its environment (they would switch its authentication on): anonymous access, unless
``identities`` are given, which it then requires.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import httpx
from server_process import ServerProcess

from anchorgraph.graph.local_server import free_port

HERE = Path(__file__).resolve().parent
MODULE = "github.com/seaweedfs/seaweedfs"
# Its S3 gateway answers about 2 s after start on an idle machine; a loaded one takes longer.
START_TIMEOUT_S = 60.0


def weed() -> Path:
    """The cached ``weed`` binary of the version this folder's go.mod requires.

    Raises:
        FileNotFoundError: it is not built yet (``make weed`` builds it).
    """
    version = re.search(
        rf"^require {re.escape(MODULE)} (\S+)$", (HERE / "go.mod").read_text(), re.M
    )
    assert version is not None, "go.mod requires no seaweedfs version"
    cache = Path(os.environ.get("ANCHORGRAPH_CACHE_DIR") or Path.home() / ".cache/anchorgraph")
    binary = cache / f"seaweedfs-{version.group(1)}" / "weed"
    if not binary.is_file():
        raise FileNotFoundError(f"{binary} is not built: `make weed` builds it (Makefile)")
    return binary


@dataclass(frozen=True)
class Identity:
    """An access key the server accepts, with every permission."""

    access_key: str
    secret_key: str


class SeaweedFS(ServerProcess):
    """One ``weed server -s3`` process; ``endpoint`` is its S3 API."""

    name = "weed"
    start_timeout_s = START_TIMEOUT_S

    def __init__(self, home: Path, identities: tuple[Identity, ...] = ()) -> None:
        super().__init__(home)
        self.identities = identities
        self.s3_port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.s3_port}"

    def start(self) -> SeaweedFS:
        data = self.home / "data"
        data.mkdir(parents=True, exist_ok=True)
        ports = {
            # gRPC ports default to the HTTP port + 10000, past 65535 for a high free port.
            name: free_port()
            for name in (
                "master.port",
                "master.port.grpc",
                "volume.port",
                "volume.port.grpc",
                "filer.port",
                "filer.port.grpc",
                "s3.port.grpc",
            )
        }
        command = [
            str(weed()),
            "server",
            "-s3",
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            f"-dir={data}",
            "-master.telemetry=false",
            # Each bucket is a collection of volumes of this size (30 GB by default).
            "-master.volumeSizeLimitMB=16",
            "-volume.max=0",
            f"-s3.port={self.s3_port}",
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            *(f"-{name}={port}" for name, port in ports.items()),
        ]
        if self.identities:
            config = self.home / "s3.json"
            config.write_text(json.dumps(_identities(self.identities)))
            command.append(f"-s3.config={config}")
        environment = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        self.launch(command, environment)
        return self

    def answers(self) -> bool:
        """Its S3 API answers a ListBuckets (200 anonymous, 403 with identities): the filer
        behind it is up."""
        return httpx.get(self.endpoint, timeout=2).status_code in (200, 403)


def _identities(identities: tuple[Identity, ...]) -> dict[str, object]:
    return {
        "identities": [
            {
                "name": f"user{number}",
                "credentials": [{"accessKey": i.access_key, "secretKey": i.secret_key}],
                "actions": ["Admin", "Read", "List", "Tagging", "Write"],
            }
            for number, i in enumerate(identities)
        ]
    }
