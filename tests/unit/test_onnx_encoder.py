"""The ONNX query encoder against the real all-MiniLM-L6-v2 (no database)."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from anchorgraph.embedding import SentenceTransformerEmbedder, resolve_model_path
from anchorgraph.onnx_encoder import OnnxQueryEncoder, OnnxUnavailable

# Every test loads the model; sentence-transformers is imported by the tests themselves, not at
# collection, so that a fast test that loads it is still caught (tests/conftest.py).
pytestmark = pytest.mark.slow

MODEL = "all-MiniLM-L6-v2"
TEXTS = [
    "when did the MAC open?",
    "QX-1234 serial S/N 88-1",
    "Vitamin D supplementation and bone mineral density in elderly women. " * 40,  # truncated
]


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def embedder(onnx_cache: Path) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(MODEL, onnx_cache=onnx_cache)


def test_single_texts_go_through_onnx_and_match_sentence_transformers(
    embedder: SentenceTransformerEmbedder,
) -> None:
    assert embedder.runtime == "onnx"
    batched = embedder.embed(TEXTS)  # more than one text: sentence-transformers
    for text, expected in zip(TEXTS, batched, strict=True):
        (single,) = embedder.embed([text])
        assert single.dtype == np.float32
        assert abs(float(np.linalg.norm(single)) - 1.0) < 1e-5
        assert float(single @ expected) > 0.99999
    # Different texts stay different: the export is not a constant.
    (a,), (b,) = embedder.embed([TEXTS[0]]), embedder.embed([TEXTS[1]])
    assert float(a @ b) < 0.9


def test_the_export_is_kept_and_reused(
    embedder: SentenceTransformerEmbedder, onnx_cache: Path
) -> None:
    (export,) = (onnx_cache / "onnx").glob("*.onnx")
    written = export.stat().st_mtime_ns
    again = SentenceTransformerEmbedder(MODEL, onnx_cache=onnx_cache)
    assert again.runtime == "onnx"
    assert export.stat().st_mtime_ns == written
    assert not list((onnx_cache / "onnx").glob("*.partial"))


def test_a_recorded_export_is_not_checked_again(
    embedder: SentenceTransformerEmbedder, onnx_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's files unchanged since the export was checked and recorded, a start opens it
    without exporting or checking (hashing every weight, running the model on probe texts)."""

    def built_again(*args: object, **kwargs: object) -> OnnxQueryEncoder:
        raise AssertionError("the recorded export was built and checked again")

    monkeypatch.setattr(OnnxQueryEncoder, "build", built_again)
    again = SentenceTransformerEmbedder(MODEL, onnx_cache=onnx_cache)
    assert again.runtime == "onnx"
    np.testing.assert_array_equal(again.embed([TEXTS[0]]), embedder.embed([TEXTS[0]]))


def test_a_damaged_export_is_exported_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = SentenceTransformerEmbedder(MODEL, onnx_cache=tmp_path)
    (export,) = (tmp_path / "onnx").glob("*.onnx")
    export.write_bytes(b"not a model")
    with caplog.at_level(logging.WARNING, logger="anchorgraph.embedding"):
        again = SentenceTransformerEmbedder(MODEL, onnx_cache=tmp_path)
    assert again.runtime == "onnx" and "through torch" not in caplog.text
    assert export.read_bytes() != b"not a model"
    np.testing.assert_array_equal(again.embed([TEXTS[0]]), first.embed([TEXTS[0]]))


def test_other_model_shapes_are_refused(tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    try:  # sentence-transformers 6 moved the modules (the old path warns)
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:  # 3.x-5.x
        from sentence_transformers.models import Pooling, Transformer

    transformer = Transformer(resolve_model_path(MODEL))
    cls_pooling = Pooling(transformer.get_word_embedding_dimension(), pooling_mode="cls")
    model = SentenceTransformer(modules=[transformer, cls_pooling], device="cpu")
    with pytest.raises(OnnxUnavailable, match="mean Pooling"):
        OnnxQueryEncoder.build(model, tmp_path)
    assert not (tmp_path / "onnx").exists()


def test_without_a_cache_folder_torch_embeds(onnx_cache: Path) -> None:
    assert SentenceTransformerEmbedder(MODEL).runtime == "torch"
