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

    def __init__(self, model: SentenceTransformer, session: Any, path: Path) -> None:
        self._tokenizer = model.tokenizer
        self._max_tokens = model.max_seq_length or 512
        self._session = session
        self._inputs = [i.name for i in session.get_inputs()]
        self.path = path

    @classmethod
    def build(
        cls, model: SentenceTransformer, cache_dir: Path, threads: int = 1
    ) -> OnnxQueryEncoder:
        """Load the cached export of ``model``'s transformer (exporting it first if there is
        none), and check it against ``model``.

        Args:
            model: a loaded sentence-transformers model (Transformer → mean Pooling → Normalize).
            cache_dir: where exports are kept, one file per model, keyed by its weights.
            threads: ONNX Runtime's intra-op threads; 0: its default (every core).

        Raises:
            OnnxUnavailable: onnxruntime or onnx is missing, the model has another shape, the
                export fails, or its vectors disagree with sentence-transformers'.
        """
        try:
            import onnxruntime
        except ImportError as error:
            raise OnnxUnavailable(f"onnxruntime is not installed ({error})") from error
        transformer = _transformer_of(model)
        path = cache_dir / "onnx" / f"{_export_key(transformer)}.onnx"
        if not path.exists():
            _export(transformer, path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only
        try:
            session = onnxruntime.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # a truncated or foreign file: export afresh next start
            path.unlink(missing_ok=True)
            raise OnnxUnavailable(f"cannot load {path}: {error}") from error
        encoder = cls(model, session, path)
        encoder._check_against(model)
        return encoder

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors, one row per text: mean of the token vectors under the mask, L2-normed."""
        encoded = self._tokenizer(
            texts, padding=True, truncation=True, max_length=self._max_tokens, return_tensors="np"
        )
        feeds = {name: encoded[name].astype(np.int64) for name in self._inputs}
        (tokens,) = self._session.run(None, feeds)
        mask = encoded["attention_mask"][..., None].astype(np.float32)
        pooled = (tokens * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return np.asarray(pooled / norms, dtype=np.float32)

    def _check_against(self, model: SentenceTransformer) -> None:
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
