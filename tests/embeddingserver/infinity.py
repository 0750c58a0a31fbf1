"""A real Infinity (``infinity_emb v2``, an OpenAI-compatible embedding server) on loopback, for
the tests of the remote embedder (service/embedding_remote.py).

``make infinity`` installs it into a venv of its own in the cache (Makefile), keyed by this
folder's requirements.txt and base_site.pth; ``infinity()`` finds it there. The venv finds
torch and the rest of what it does not pin in anchorgraph's own venv, named in
``ANCHORGRAPH_BASE_SITE`` (base_site.pth). It serves the packaged all-MiniLM-L6-v2 from its
local folder, offline (``HF_HUB_OFFLINE``), without telemetry (``DO_NOT_TRACK``), under
``/v1``, with an API key.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

import httpx
from server_process import ServerProcess

from anchorgraph.embedding import resolve_model_path
from anchorgraph.graph.local_server import free_port

HERE = Path(__file__).resolve().parent
# It imports torch and loads the model (seconds when idle) before it answers; on a machine
# shared by many processes that took minutes. A safety net, not a measure.
START_TIMEOUT_S = 600.0
SERVED_MODEL = "all-MiniLM-L6-v2"


def infinity() -> Path:
    """The cached venv's ``infinity_emb`` of this folder's requirements.

    Raises:
        FileNotFoundError: it is not installed yet (``make infinity`` installs it).
    """
    files = (HERE / "requirements.txt", HERE / "base_site.pth")  # the Makefile's key
    key = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()[:12]
    cache = Path(os.environ.get("ANCHORGRAPH_CACHE_DIR") or Path.home() / ".cache/anchorgraph")
    venv = cache / f"infinity-{key}"
    if not (venv / ".installed").is_file():
        raise FileNotFoundError(f"{venv} is not installed: `make infinity` installs it (Makefile)")
    return venv / "bin" / "infinity_emb"


def base_site() -> Path:
    """The site-packages that holds anchorgraph's torch, which Infinity's venv borrows."""
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None, "torch is not installed"
    return Path(spec.origin).parents[1]


class Infinity(ServerProcess):
    """One ``infinity_emb v2`` process serving the packaged model as ``SERVED_MODEL``;
    ``url`` is its API's base (requests go to ``{url}/embeddings``)."""

    name = "infinity"
    start_timeout_s = START_TIMEOUT_S

    def __init__(self, home: Path, api_key: str) -> None:
        super().__init__(home)
        self.api_key = api_key
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> Infinity:
        command = [
            str(infinity()),
            "v2",
            f"--model-id={resolve_model_path(SERVED_MODEL)}",
            f"--served-model-name={SERVED_MODEL}",
            "--engine=torch",
            "--device=cpu",
            "--host=127.0.0.1",
            f"--port={self.port}",
            "--url-prefix=/v1",
            "--no-model-warmup",
        ]
        environment = {
            **os.environ,
            "ANCHORGRAPH_BASE_SITE": str(base_site()),
            "HF_HUB_OFFLINE": "1",
            "DO_NOT_TRACK": "1",
            "INFINITY_API_KEY": self.api_key,  # not on the command line, which ps shows
            "OMP_NUM_THREADS": "1",
        }
        self.launch(command, environment)
        return self

    def answers(self) -> bool:
        headers = {"Authorization": f"Bearer {self.api_key}"}
        return httpx.get(f"{self.url}/models", headers=headers, timeout=2).status_code == 200
