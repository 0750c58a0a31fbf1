"""Local sources: a folder listed lazily in sorted order, a file's revision and owner, local
paths and file:// URLs alike, and clear errors for what cannot be read (the object store's own
tests are tests/integration/test_sources.py)."""

from __future__ import annotations

import getpass
import os
import types
from pathlib import Path

import pytest

from anchorgraph.errors import InvalidInput
from anchorgraph.loaders.read import read_source
from anchorgraph.loaders.sources import LocalSource, S3Source, SourceOptions, open_source


def _tree(root: Path) -> Path:
    for name, text in {
        "b.md": "# B\n\nBee.",
        "a.md": "# A\n\nAy.",
        "sub dir/c.md": "# C\n\nSee.",
        ".hidden/d.md": "# D\n\nDee.",
        ".e.md": "# E\n\nEe.",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_folder_is_listed_lazily_sorted_without_hidden_files(tmp_path: Path) -> None:
    source = open_source(_tree(tmp_path))
    assert isinstance(source, LocalSource) and not source.single
    entries = source.entries()
    assert isinstance(entries, types.GeneratorType)
    listed = list(entries)
    assert [e.path for e in listed] == ["a.md", "b.md", "sub dir/c.md"]
    assert listed[2].folder == "sub dir" and listed[2].uri == (tmp_path / "sub dir/c.md").as_uri()
    assert listed[0].attributes == {"owner": getpass.getuser()}


def test_a_file_url_is_the_same_source_as_its_path(tmp_path: Path) -> None:
    _tree(tmp_path)
    by_url = open_source((tmp_path / "sub dir").as_uri())  # percent-encoded: sub%20dir
    assert [e.path for e in by_url.entries()] == ["c.md"]
    assert by_url.uri == open_source(tmp_path / "sub dir").uri


def test_a_revision_changes_with_the_file_and_only_then(tmp_path: Path) -> None:
    path = _tree(tmp_path) / "a.md"
    (first,) = open_source(path).entries()
    (same,) = open_source(path).entries()
    assert first.revision == same.revision
    path.write_text("# A\n\nAy, longer.")
    os.utime(path, ns=(0, 1_000_000_000))
    (changed,) = open_source(path).entries()
    assert changed.revision != first.revision


def test_documents_carry_their_files_revision_and_owner(tmp_path: Path) -> None:
    documents = {d.id: d for d in read_source(open_source(_tree(tmp_path)), max_bytes=1000)}
    assert documents["a.md"].metadata == {"owner": getpass.getuser()}
    assert documents["a.md"].revision == next(open_source(tmp_path / "a.md").entries()).revision


def test_what_cannot_be_read_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such file or folder"):
        open_source(tmp_path / "missing")
    with pytest.raises(InvalidInput, match="no such file or folder"):
        open_source((tmp_path / "missing").as_uri())
    # A scheme whose fsspec package is not installed: fsspec's own message names it.
    with pytest.raises(InvalidInput, match="nosuchscheme"):
        open_source("nosuchscheme://bucket/prefix")
    with pytest.raises(InvalidInput, match="no bucket"):
        S3Source.at("s3://", SourceOptions())
