"""The Cypher catalogue: statements and files match, headers document parameters and columns."""

from __future__ import annotations

import re
import typing

import pytest
from neo4j.graph import Node, Path
from neo4j.time import DateTime

from anchorgraph.graph.queries import (
    Query,
    Statement,
    all_files,
    as_parameters,
    every_statement,
    statements,
    text,
)
from anchorgraph.graph.rows import NoRow

PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# What a header says a statement returns: from "Returns:" to the guide's "Example:" or its end.
RETURNS = re.compile(r"Returns:(.*?)(?:Example:|$)", re.DOTALL)


def test_every_statement_has_a_file_and_every_file_a_statement() -> None:
    names = [query.name for query in every_statement()]
    assert sorted(names) == all_files()
    assert len(set(names)) == len(names)


# The driver's types the rows name, which anchorgraph.graph.rows imports for annotations only.
DRIVER_TYPES = {"Node": Node, "Path": Path, "DateTime": DateTime}


def keys(row: object) -> set[str]:
    """The keys of a TypedDict; none for any other type."""
    return set(getattr(row, "__required_keys__", set()) | getattr(row, "__optional_keys__", set()))


def columns(query: Statement[object]) -> set[str]:
    """The keys of the statement's row type, and of the maps a list column holds (a statement
    that answers in one row, its entries in a list, names their keys too)."""
    row = query.row
    listed = (
        typing.get_args(hint)[0]
        for hint in typing.get_type_hints(row, localns=DRIVER_TYPES).values()
        if typing.get_origin(hint) is list and typing.get_args(hint)
    )
    return keys(row).union(*map(keys, listed))


def returns(source: str) -> str:
    """What the header of a ``.cypher`` file's ``source`` says it returns."""
    header = " ".join(
        line.removeprefix("//") for line in source.splitlines() if line.startswith("//")
    )
    found = RETURNS.search(header)
    assert found, "the header has no 'Returns:'"
    return found[1].strip()


def unnamed_columns(query: Statement[object], source: str) -> set[str]:
    """The columns of ``query``'s row that its header's ``Returns:`` does not name."""
    said = returns(source)
    return {key for key in columns(query) if not re.search(rf"\b{key}\b", said)}


@pytest.mark.parametrize("query", every_statement(), ids=str)
def test_header_names_every_column_of_the_row(query: Statement[object]) -> None:
    said = returns(text(query))
    if query.row is NoRow:
        assert said.startswith("nothing"), f"{query} returns no row, but its header says {said!r}"
    else:
        assert not said.startswith("nothing"), f"{query} has a row type; its header: nothing"
        assert not unnamed_columns(query, text(query)), f"{query}: Returns: leaves out columns"


def test_a_header_that_leaves_out_a_column_is_caught() -> None:
    """The check above can fail: the hydrate statement's header without ``ocr_confidence``."""
    source = text(Query.HYDRATE_CHUNKS)
    assert not unnamed_columns(Query.HYDRATE_CHUNKS, source)
    edited = source.replace("ocr_confidence", "confidence")
    assert unnamed_columns(Query.HYDRATE_CHUNKS, edited) == {"ocr_confidence"}


def test_a_header_that_leaves_out_a_key_of_its_listed_maps_is_caught() -> None:
    """The expansion's one row lists its source chunks: their keys are checked too."""
    source = text(Query.EXPAND_REACHED)
    assert not unnamed_columns(Query.EXPAND_REACHED, source)
    edited = source.replace("): source_id; hops", "): hops")
    assert unnamed_columns(Query.EXPAND_REACHED, edited) == {"source_id"}


@pytest.mark.parametrize("query", every_statement(), ids=str)
def test_header_names_parameters_and_what_returns(query: Statement[object]) -> None:
    header = [line for line in text(query).splitlines() if line.startswith("//")]
    assert header, f"{query} has no // header"
    joined = "\n".join(header)
    assert "Parameters:" in joined and "Returns:" in joined
    declared = set(PARAMETER.findall(joined))
    used = {name for statement in statements(query) for name in PARAMETER.findall(statement)}
    assert declared == used, f"{query}: header says {declared}, statements use {used}"


def test_statements_split_on_line_ending_semicolons_only() -> None:
    schema = statements(Query.CONSTRAINTS)
    assert len(schema) >= 5
    assert all(not s.endswith(";") and not s.startswith("//") for s in schema)
    assert all(s.startswith("CREATE CONSTRAINT") for s in schema)


def test_parameters_log_lists_by_length_and_pack_to_the_same_bytes() -> None:
    from neo4j._codec.packstream import v1 as packstream  # the driver's own packers

    rows = [{"id": f"c{i}", "embedding": [i / 7, -1.5, 2.0**-20]} for i in range(50)]
    sent = as_parameters({"chunks": rows, "k": 10, "ids": []})

    assert repr(sent) == "{'chunks': <list of 50>, 'k': 10, 'ids': <list of 0>}"
    assert sent == {"chunks": rows, "k": 10, "ids": []}

    def packed(value: object, *, rust: bool) -> bytes:
        buffer = bytearray()
        packer = packstream.Packer(type("Stream", (), {"write": buffer.extend})())
        hooks = packer._inject_hooks(None)
        if rust:
            packer._pack(value, hooks)
        else:
            packer._py_pack(value, hooks)
        return bytes(buffer)

    for rust in (True, False):
        assert packed(sent, rust=rust) == packed({"chunks": rows, "k": 10, "ids": []}, rust=rust)
    assert packstream._rust_pack is not None, "neo4j-rust-ext is a dependency; its packer is used"
