"""One short text at a time through ONNX Runtime: the query embedding on the search path.

sentence-transformers runs the model as a tree of torch modules, paying Python and dispatch
overhead on every operator. For a batch of chunks that overhead is lost in the arithmetic; for one
short query it is most of the time (all-MiniLM-L6-v2, one CPU thread: ~16 ms per query through
torch, ~6.5 ms through ONNX Runtime, the same throughput on batches of 64;
``benchmarks/search_latency.py``). ONNX Runtime also runs the whole model in one call without
the GIL, where torch takes it back between operators, so the search's other threads (its
candidate paths) are not slowed.

This is the same model: the loaded ``SentenceTransformer``'s own transformer, exported once with
``torch.onnx.export`` into the cache folder, fed by its own tokenizer, followed by the same mean
pooling and L2 normalisation. It is used only when the model is exactly Transformer → mean Pooling
(→ Normalize), and only after it reproduces sentence-transformers' vectors on probe texts
(cosine ≥ ``MIN_AGREEMENT``); otherwise ``build`` raises ``OnnxUnavailable`` and the caller keeps
torch. sentence-transformers' own ``backend="onnx"`` would do this, but it needs optimum-onnx,
whose releases all pin ``transformers<4.58`` (huggingface/optimum-onnx#114).

A process that only embeds queries (``anchorgraph search``) should not pay the seconds torch and
sentence-transformers take to import. So once an export has passed that check, ``build`` leaves
a small manifest beside it, keyed by the model's folder: the export's file, the tokenizer as
configured here (a ``tokenizers`` JSON file), the vectors' dimension, and a fingerprint of the
model folder's files. ``OnnxQueryEncoder.cached`` opens that with ONNX Runtime and ``tokenizers``
alone; the tokenizer and the session are the ones ``build`` uses, so both give the same vectors.
A model changed since (another fingerprint) or not in a local folder has no usable manifest, and
the caller loads the full model, which checks and records the export again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer

log = logging.getLogger(__name__)

# A query and a long passage, so that truncation at the model's window is checked too.
PROBE_TEXTS = (
    "what does the museum's 1970s director say about QX-1234?",
    "Mean pooling averages the token vectors under the attention mask. " * 60,
)
# float32 arithmetic in a different operator order agrees to ~1e-7 here.
MIN_AGREEMENT = 0.9999
_OPSET = 17


class OnnxUnavailable(RuntimeError):
    """The model cannot be run through ONNX Runtime here; the reason is the message."""


class OnnxQueryEncoder:
    """Embeds one text (or a few) with the ONNX export of a sentence-transformers model."""

    def __init__(self, tokenizer: Tokenizer, session: Any, path: Path) -> None:
        """Args:
        tokenizer: the model's tokenizer, truncating at its window and padding to the longest
            text (``_tokenizer_of``).
        session: an ONNX Runtime session of the export at ``path`` (``_session``).
        """
        self._tokenizer = tokenizer
        self._session = session
        self._inputs = [i.name for i in session.get_inputs()]
        self._counter: Tokenizer | None = None
        self.path = path
        width = session.get_outputs()[0].shape[-1]
        self.dimension = width if isinstance(width, int) else int(self.embed(["."]).shape[1])

    @classmethod
    def build(
        cls,
        model: SentenceTransformer,
        cache_dir: Path,
        threads: int = 1,
        *,
        source: Path | None = None,
    ) -> OnnxQueryEncoder:
        """Load the cached export of ``model``'s transformer (exporting it first if there is
        none), and check it against ``model``.

        Args:
            model: a loaded sentence-transformers model (Transformer → mean Pooling → Normalize).
            cache_dir: where exports are kept, one file per model, keyed by its weights.
            threads: ONNX Runtime's intra-op threads; 0: its default (every core).
            source: the local folder ``model`` was loaded from; given, the checked export is
                recorded for ``cached`` (a model from a hub has none).

        Raises:
            OnnxUnavailable: onnxruntime or onnx is missing, the model has another shape, the
                export fails, or its vectors disagree with sentence-transformers'.
        """
        try:
            import onnxruntime  # noqa: F401  # only whether it is there; _session opens it
        except ImportError as error:
            raise OnnxUnavailable(f"onnxruntime is not installed ({error})") from error
        transformer = _transformer_of(model)
        tokenizer = _tokenizer_of(model)
        path = cache_dir / "onnx" / f"{_export_key(transformer)}.onnx"
        if not path.exists():
            _export(transformer, path)
        encoder = cls(tokenizer, _session(path, threads), path)
        agreement = encoder._check_against(model)
        if source is not None:
            _record(encoder, tokenizer, source, cache_dir, agreement)
        return encoder

    @classmethod
    def cached(cls, source: Path, cache_dir: Path, threads: int = 1) -> OnnxQueryEncoder:
        """The export ``build`` checked and recorded for the model in the folder ``source``,
        opened without torch, transformers or sentence-transformers.

        Raises:
            OnnxUnavailable: none is recorded, the model's files changed since, or the recorded
                files are gone or unreadable; the message says which.
        """
        manifest_path = _manifest_path(source, cache_dir)
        try:
            manifest = json.loads(manifest_path.read_text())
        except FileNotFoundError:
            raise OnnxUnavailable(
                f"no checked ONNX export of {source} in {cache_dir / 'onnx'} yet"
            ) from None
        except (OSError, ValueError) as error:
            raise OnnxUnavailable(f"cannot read {manifest_path}: {error}") from error
        if manifest.get("fingerprint") != _fingerprint(source):
            raise OnnxUnavailable(f"the model in {source} changed since its export was checked")
        path = manifest_path.parent.parent / str(manifest.get("export"))
        tokenizer_path = manifest_path.parent / str(manifest.get("tokenizer"))
        try:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as error:  # gone, or not a tokenizer: the full model records it again
            raise OnnxUnavailable(f"cannot load {tokenizer_path}: {error}") from error
        return cls(tokenizer, _session(path, threads), path)

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors, one row per text: mean of the token vectors under the mask, L2-normed."""
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(texts)
        encoded = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        (tokens,) = self._session.run(None, {name: encoded[name] for name in self._inputs})
        mask = encoded["attention_mask"][..., None].astype(np.float32)
        pooled = (tokens * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return np.asarray(pooled / norms, dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` without special tokens and without truncation, as
        ``SentenceTransformerEmbedder.count_tokens`` counts them."""
        if self._counter is None:
            from tokenizers import Tokenizer

            counter = Tokenizer.from_str(self._tokenizer.to_str())
            counter.no_truncation()
            counter.no_padding()
            self._counter = counter
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def _check_against(self, model: SentenceTransformer) -> float:
        """The lowest cosine between this encoder's and sentence-transformers' vectors of the
        probe texts (the export is deleted and refused below ``MIN_AGREEMENT``)."""
        expected = model.encode(
            list(PROBE_TEXTS),
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        agreement = float(np.min(np.sum(self.embed(list(PROBE_TEXTS)) * expected, axis=1)))
        if agreement < MIN_AGREEMENT:
            self.path.unlink(missing_ok=True)
            raise OnnxUnavailable(
                f"the ONNX export disagrees with sentence-transformers (cosine {agreement:.6f})"
            )
        return agreement


def _session(path: Path, threads: int) -> Any:
    """An ONNX Runtime session of the export at ``path``, the same for ``build`` and ``cached``
    so that both give the same vectors."""
    try:
        import onnxruntime
    except ImportError as error:
        raise OnnxUnavailable(f"onnxruntime is not installed ({error})") from error
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # a truncated or foreign file: export afresh next start
        path.unlink(missing_ok=True)
        raise OnnxUnavailable(f"cannot load {path}: {error}") from error


def _tokenizer_of(model: SentenceTransformer) -> Tokenizer:
    """A copy of the model's fast tokenizer set as sentence-transformers calls it: truncation at
    the model's window, padding to the longest text. A copy, so that the model's own tokenizer,
    which may be encoding a batch in another thread, is never reconfigured."""
    from tokenizers import Tokenizer

    own = model.tokenizer
    backend = getattr(own, "backend_tokenizer", None)
    if backend is None or own.pad_token is None:
        raise OnnxUnavailable(f"the model's tokenizer ({type(own).__name__}) is not a fast one")
    tokenizer = Tokenizer.from_str(backend.to_str())
    tokenizer.enable_truncation(
        max_length=model.max_seq_length or 512, direction=own.truncation_side
    )
    tokenizer.enable_padding(
        direction=own.padding_side,
        pad_id=own.pad_token_id,
        pad_type_id=own.pad_token_type_id,
        pad_token=own.pad_token,
    )
    return tokenizer


def _manifest_path(source: Path, cache_dir: Path) -> Path:
    key = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16]
    return cache_dir / "onnx" / "queries" / f"{key}.json"


def _fingerprint(source: Path) -> str:
    """Every file of the model folder by name, size and modification time: a model replaced in
    place (new weights, another tokenizer) gets another fingerprint."""
    entries = []
    for path in sorted(source.rglob("*")):
        if path.is_file():
            stat = path.stat()
            entries.append((str(path.relative_to(source)), stat.st_size, stat.st_mtime_ns))
    return hashlib.sha256(json.dumps(entries).encode()).hexdigest()


def _record(
    encoder: OnnxQueryEncoder, tokenizer: Tokenizer, source: Path, cache_dir: Path, agreement: float
) -> None:
    """Write the manifest ``cached`` reads (and the tokenizer beside it), unless it is already
    there as it would be written."""
    manifest_path = _manifest_path(source, cache_dir)
    tokenizer_path = manifest_path.with_suffix(".tokenizer.json")
    manifest = {
        "source": str(source.resolve()),
        "fingerprint": _fingerprint(source),
        "export": encoder.path.name,
        "tokenizer": tokenizer_path.name,
        "dimension": encoder.dimension,
        "agreement": agreement,
    }
    try:
        recorded = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        recorded = None
    if recorded == manifest and tokenizer_path.exists():
        return
    _write_atomically(tokenizer_path, tokenizer.to_str())
    _write_atomically(manifest_path, json.dumps(manifest, indent=2) + "\n")


def _write_atomically(path: Path, text: str) -> None:
    """``path`` holds ``text`` whole or is left as it was: another process reading it never
    sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=path.parent, suffix=".partial")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(partial, path)
    finally:
        Path(partial).unlink(missing_ok=True)


def _transformer_of(model: SentenceTransformer) -> Any:
    """The model's transformer module, if the model is one this encoder reproduces exactly."""
    modules = list(model)
    kinds = [type(module).__name__ for module in modules]
    if kinds[-1:] == ["Normalize"]:
        kinds = kinds[:-1]
    pooling_mode = getattr(modules[1], "pooling_mode", None) if len(modules) > 1 else None
    if kinds != ["Transformer", "Pooling"] or pooling_mode != "mean":
        shape = " → ".join(type(m).__name__ for m in modules)
        raise OnnxUnavailable(f"only Transformer → mean Pooling models are exported, not {shape}")
    return modules[0]


def _export_key(transformer: Any) -> str:
    """A file name that changes with the weights, the architecture and the exporter."""
    import torch

    auto_model = transformer.auto_model
    digest = hashlib.sha256()
    digest.update(json.dumps(auto_model.config.to_dict(), sort_keys=True, default=str).encode())
    digest.update(f"{torch.__version__} opset {_OPSET}".encode())
    for name, tensor in auto_model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().float().numpy().tobytes())
    return f"{auto_model.config.model_type}-{digest.hexdigest()[:16]}"


def _export(transformer: Any, path: Path) -> None:
    """Write the transformer (token ids in, token vectors out) to ``path`` atomically."""
    try:
        import onnx  # noqa: F401  # torch.onnx.export serialises through it
        import torch
    except ImportError as error:
        raise OnnxUnavailable(f"onnx is not installed ({error})") from error

    auto_model = transformer.auto_model
    sample = transformer.tokenizer(["an example"], return_tensors="pt")
    names = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in sample]

    class TokenVectors(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = auto_model

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            output = self.model(**dict(zip(names, inputs, strict=True)))
            return output.last_hidden_state  # type: ignore[no-any-return]  # untyped upstream

    axes = {name: {0: "batch", 1: "tokens"} for name in [*names, "token_vectors"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=path.parent, suffix=".partial")
    os.close(handle)
    log.info("exporting the embedding model to ONNX for query embedding: %s", path)
    try:
        # The TorchScript exporter: the dynamo one needs onnxscript and exports no faster model.
        # It warns that it is deprecated; as long as it exists it is the lighter dependency.
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                TokenVectors().eval(),
                tuple(sample[name] for name in names),
                partial,
                input_names=names,
                output_names=["token_vectors"],
                dynamic_axes=axes,
                opset_version=_OPSET,
                dynamo=False,
            )
        os.replace(partial, path)
    except Exception as error:
        raise OnnxUnavailable(f"ONNX export failed: {type(error).__name__}: {error}") from error
    finally:
        Path(partial).unlink(missing_ok=True)
