"""Replacing is always explicit: the rule every door shares (``write_decision``), the
conditions of RFC 9110 read from a request's headers, and the ids every door accepts."""

from __future__ import annotations

import pytest

from anchorgraph.api.preconditions import precondition
from anchorgraph.errors import InvalidInput
from anchorgraph.loaders.graph_writer import Stored
from anchorgraph.loaders.ingest import (
    Decision,
    Precondition,
    Refusal,
    Refused,
    named_by_its_path,
    write_decision,
)
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.scope import MAX_ID_CHARS, document_id, valid_document_id

FILE = "file:///home/ana/notes/alpha/README.md"
ALPHA = SourceDocument(id="README.md", text="Alpha", uri=FILE)
UPLOAD = SourceDocument(id="README.md", text="Beta")  # a request without a uri


def refusal(decision: Decision | Refusal) -> Refused:
    assert isinstance(decision, Refusal), decision
    return decision.reason


# --- write_decision -------------------------------------------------------------------------------
def test_a_new_id_is_written_and_the_same_content_is_unchanged() -> None:
    assert write_decision(UPLOAD, "b", None) is Decision.WRITE
    assert write_decision(UPLOAD, "b", Stored("b", "")) is Decision.UNCHANGED


def test_a_request_without_a_uri_never_replaces_other_content_unseen() -> None:
    decided = write_decision(UPLOAD, "b", Stored("a", ""))
    assert refusal(decided) is Refused.OTHER_ORIGIN
    assert isinstance(decided, Refusal) and decided.stored_etag == "a"
    assert "a request without a uri" in decided.message("notes")


def test_a_changed_file_updates_its_own_document_and_no_other() -> None:
    assert write_decision(ALPHA, "b", Stored("a", FILE)) is Decision.WRITE
    elsewhere = Stored("a", "file:///home/ana/other/README.md")
    assert refusal(write_decision(ALPHA, "b", elsewhere)) is Refused.OTHER_ORIGIN
    assert write_decision(ALPHA, "b", elsewhere, replace=True) is Decision.WRITE


def test_if_match_with_the_stored_etag_replaces_and_another_is_refused() -> None:
    stored = Stored("a", "")
    seen = Precondition(if_match=("a",))
    assert write_decision(UPLOAD, "b", stored, precondition=seen) is Decision.WRITE
    assert write_decision(UPLOAD, "b", stored, precondition=Precondition(if_match=("*",))) is (
        Decision.WRITE
    )
    stale = write_decision(UPLOAD, "b", stored, precondition=Precondition(if_match=("z",)))
    assert refusal(stale) is Refused.PRECONDITION
    assert isinstance(stale, Refusal) and '"a"' in stale.detail
    absent = write_decision(UPLOAD, "b", None, precondition=seen)
    assert refusal(absent) is Refused.PRECONDITION
    # Retried after it succeeded: the graph holds exactly this, so it is unchanged.
    assert write_decision(UPLOAD, "b", Stored("b", ""), precondition=Precondition(("a",))) is (
        Decision.UNCHANGED
    )


def test_if_none_match_star_creates_only() -> None:
    create_only = Precondition(if_none_match=("*",))
    assert write_decision(UPLOAD, "b", None, precondition=create_only) is Decision.WRITE
    for stored in (Stored("a", ""), Stored("b", "")):
        assert refusal(write_decision(UPLOAD, "b", stored, precondition=create_only)) is (
            Refused.PRECONDITION
        )


def test_a_file_held_under_another_id_is_refused_unless_replace_moves_it() -> None:
    moved = SourceDocument(id="alpha/README.md", text="Alpha", uri=FILE)
    decided = write_decision(moved, "a", None, stored_as="README.md")
    assert refusal(decided) is Refused.STORED_AS
    assert isinstance(decided, Refusal) and "as 'README.md'" in decided.message("notes")
    assert write_decision(moved, "a", None, stored_as="README.md", replace=True) is Decision.WRITE


def test_a_file_is_named_by_its_path_and_a_record_is_not() -> None:
    assert named_by_its_path("alpha/README.md", FILE)
    assert named_by_its_path("README.md", FILE)
    assert not named_by_its_path("4983", "file:///data/corpus.jsonl")
    assert not named_by_its_path("README.md", "")


# --- the headers ----------------------------------------------------------------------------------
def test_conditions_are_read_from_the_headers() -> None:
    assert precondition(None, None) is None
    assert precondition('"a1"', None) == Precondition(if_match=("a1",))
    assert precondition('"a1", W/"b2", "c3"', None) == Precondition(if_match=("a1", "c3"))
    assert precondition(" * ", None) == Precondition(if_match=("*",))
    assert precondition(None, "*") == Precondition(if_none_match=("*",))
    assert precondition(None, 'W/"b2"') == Precondition(if_none_match=("b2",))


@pytest.mark.parametrize("value", ["a1", '"a1', '"a"b"', "", "0", "null"])
def test_what_is_no_entity_tag_matches_no_version(value: str) -> None:
    assert precondition(value, None) == Precondition(if_match=())
    assert precondition(None, value) == Precondition(if_none_match=())
    assert precondition('x, "a1"', None) == Precondition(if_match=("a1",))
    failure = Precondition(if_match=()).failure("a1")
    assert failure is not None and "quoted entity tags" in failure
    assert Precondition(if_none_match=()).failure("a1") is None


# --- ids ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "id_",
    ["README.md", "notes/a.md", ".hidden/a.md", "4983", "100% done.md", "naïve/ü.md",
     "https://example.org/docs/", "a" * MAX_ID_CHARS],
)  # fmt: skip
def test_ids_every_door_accepts(id_: str) -> None:
    assert document_id(id_) == id_


@pytest.mark.parametrize(
    "id_",
    ["", "../../etc/passwd", "notes/../x.md", "./a.md", "/abs/x.md", "dir/", "a//b", ".", "..",
     "a\x00b", "a\nb.md", "tab\there", "bell\x07", "c1\x85", "   ", "a/ /b",
     "a" * (MAX_ID_CHARS + 1), "https://example.org/a b"],
)  # fmt: skip
def test_ids_every_door_refuses_saying_why(id_: str) -> None:
    assert not valid_document_id(id_)
    with pytest.raises(InvalidInput, match="'/'-separated parts"):
        document_id(id_)
