"""The Cypher catalogue: members and files match, headers document parameters."""

from __future__ import annotations

import re

import pytest

from anchorgraph.graph.queries import Query, all_files, as_parameters, statements, text

PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def test_every_member_has_a_file_and_every_file_a_member() -> None:
    assert sorted(query.value for query in Query) == all_files()


@pytest.mark.parametrize("query", list(Query), ids=str)
def test_header_names_parameters_and_what_returns(query: Query) -> None:
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
