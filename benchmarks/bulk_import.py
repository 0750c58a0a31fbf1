"""Bulk loading with ``neo4j-admin database import``: the graph ingestion would build, offline.

Writing 100,000 chunks (~9M HAS_TERM relationships) through ``write_documents`` ran at ~70
chunks/s on the shared 2-core machine (~25 min); the offline importer builds the same graph in a
few minutes. Its CSV is made from the very rows ingestion sends (``loaders.graph_writer``'s
``graph_rows``), batch after batch, by doing with them what each statement of ``cypher/load``
does on an empty database: MERGE becomes "first row wins" (names, folders), aliases accumulate,
an entity keeps its first embedding, links resolve against every document of the import, and a
row whose MATCH would find nothing is dropped. ``tests/integration/test_bulk_import.py`` checks
that both ways give the same graph, property for property.

    csv = CsvGraph(folder)
    for documents, entities, vectors in batches:
        csv.add(graph_rows(documents, entities, vectors))
    files = csv.close()
    import_into(local_server, files)           # stops, imports over its database, starts
    with open_runtime(settings, schema="apply") as runtime:
        finish_import(runtime.graph, files)      # empty lists, FD* length bins

Only a fresh graph: each document once (replacing and deleting are ``write_documents``' job).
"""

from __future__ import annotations

import csv
import os
import subprocess
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Protocol

import neo4j

from loaders.fd_stats import refit
from loaders.graph_writer import ChunkRow, GraphRows, LinkRow
from service.graph.gateway import Graph
from service.graph.local_server import LocalNeo4j

# Between array elements: a control character no normalised text holds (";", the default,
# is in real identifiers and tags).
ARRAY_DELIMITER = "\x1f"
_NEO4J_ARRAY_DELIMITER = "U+001F"
# Shortest "%g" precision that gives back every float32 exactly: imported vectors are the
# float32 values db.create.setNodeVectorProperty would have stored, bit for bit.
_FLOAT32 = "%.9g"
_ADMIN_TOOL = "org.neo4j.cli.AdminTool"
_POSTING = (":START_ID(Chunk)", ":END_ID(Term)")


@dataclass(frozen=True)
class ImportFiles:
    """The CSV of one import, and what neo4j-admin cannot express."""

    folder: Path
    nodes: list[tuple[str, Path]]  # label, file (header on its first line)
    relationships: list[tuple[str, Path]]  # type, file
    multiline: list[Path]  # files with a value that spans lines (slower to parse)
    # (label, key property, property) → keys of the nodes whose property is an empty list:
    # an empty CSV field imports as no property at all, so restore_empty_lists sets these.
    empty_lists: dict[tuple[str, str, str], list[str]]

    @property
    def megabytes(self) -> float:
        paths = [path for _, path in self.nodes + self.relationships]
        return sum(path.stat().st_size for path in paths) / 1e6


class _Writer(Protocol):
    def writerow(self, row: Iterable[str], /) -> Any: ...
    def writerows(self, rows: Iterable[Iterable[str]], /) -> None: ...


@dataclass(frozen=True)
class _File:
    path: Path
    handle: IO[str]
    writer: _Writer
    kind: str  # nodes or relationships
    name: str  # label or type


class _Files:
    """One CSV file per (label or type, header): neo4j-admin reads each file with its own
    header, so a row without some property (None, or a caller's metadata key the others lack)
    goes to the file of its shape rather than padding every row."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._files: dict[tuple[str, str, tuple[str, ...]], _File] = {}
        self._multiline: set[Path] = set()

    def file(self, kind: str, name: str, header: tuple[str, ...]) -> _File:
        """That shape's file (``kind``: nodes or relationships), opened on first use."""
        key = (kind, name, header)
        if key not in self._files:
            path = self.folder / f"{kind}-{name}-{len(self._files)}.csv"
            handle = path.open("w", newline="", encoding="utf-8")
            # Every field quoted: an unquoted empty field would import as no property, where
            # ingestion stores "" (an empty fragment, a document without uri).
            writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
            writer.writerow(header)
            self._files[key] = _File(path, handle, writer, kind, name)
        return self._files[key]

    def row(self, kind: str, name: str, header: tuple[str, ...], values: list[str]) -> None:
        file = self.file(kind, name, header)
        if any("\n" in value or "\r" in value for value in values):
            self._multiline.add(file.path)
        file.writer.writerow(values)

    def close(self) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]], list[Path]]:
        """(label, file) of the nodes, (type, file) of the relationships, multiline files."""
        for file in self._files.values():
            file.handle.close()
        files = list(self._files.values())
        return (
            [(f.name, f.path) for f in files if f.kind == "nodes"],
            [(f.name, f.path) for f in files if f.kind == "relationships"],
            sorted(self._multiline),
        )


@dataclass
class _Entity:
    name: str
    type: str
    aliases: dict[str, None]  # ordered set
    embedding: list[float] | None


@dataclass
class _Seen:
    """What the graph holds so far, for the MERGEs and MATCHes of the later rows."""

    documents: set[str] = field(default_factory=set)
    uris: dict[str, str] = field(default_factory=dict)  # uri → the first document with it
    chunks: set[str] = field(default_factory=set)
    sections: dict[tuple[str, str], str] = field(default_factory=dict)  # (document, slug) → chunk
    folders: set[str] = field(default_factory=set)
    contains: set[tuple[str, str]] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    terms: set[str] = field(default_factory=set)
    aliases: set[str] = field(default_factory=set)
    alias_of: set[tuple[str, str]] = field(default_factory=set)
    unresolved: set[str] = field(default_factory=set)


class CsvGraph:
    """neo4j-admin CSV of the graph that ``write_documents`` leaves after writing the same
    batches, in the same order, into an empty database (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._files = _Files(folder)
        self._seen = _Seen()
        self._entities: dict[str, _Entity] = {}  # written at the end: later rows add aliases
        self._links: list[LinkRow] = []  # resolved at the end, against every document
        self._empty_lists: dict[tuple[str, str, str], list[str]] = {}

    def add(self, rows: GraphRows) -> None:
        """One batch, statement by statement as ``write_documents`` runs them."""
        seen = self._seen
        for document in rows.documents:  # upsert_documents
            if document["id"] in seen.documents:
                raise ValueError(f"document {document['id']!r} twice: a bulk import is fresh")
            properties = {"id": document["id"], **document["properties"]}
            self._node("Document", "id", properties | {"embedding": document["embedding"]})
            seen.documents.add(document["id"])
            seen.uris.setdefault(document["properties"]["uri"], document["id"])
        for filing in rows.filings:  # file_documents
            for folder in filing["folders"]:
                if folder["path"] not in seen.folders:  # ON CREATE SET f.name
                    seen.folders.add(folder["path"])
                    self._node("Folder", "path", {"path": folder["path"], "name": folder["name"]})
                if folder["parent"] is not None:
                    self._merge_contains("Folder", folder["parent"], folder["path"])
            self._merge_contains("Document", filing["folders"][-1]["path"], filing["id"])
            for tag in dict.fromkeys(filing["tags"]):
                if tag not in seen.tags:
                    seen.tags.add(tag)
                    self._node("Tag", "name", {"name": tag})
                self._relationship("TAGGED", ("Document", filing["id"]), ("Tag", tag), {})
        self._chunks(rows.terms, rows.chunks)  # create_chunks
        for claim in rows.claims:  # create_claims
            if claim["chunk_id"] in seen.chunks:
                properties = {k: v for k, v in claim.items() if k != "chunk_id"}
                self._node("Claim", "id", properties)
                self._relationship(
                    "ASSERTS", ("Chunk", claim["chunk_id"]), ("Claim", claim["id"]), {}
                )
        for entity in rows.entities:  # upsert_entities
            known = self._entities.get(entity["id"])
            if known is None:
                known = self._entities[entity["id"]] = _Entity(
                    entity["name"], entity["type"], {}, None
                )
            known.aliases.update(dict.fromkeys(entity["aliases"]))
            if known.embedding is None:
                known.embedding = entity["embedding"]
            for key in entity["alias_keys"]:
                if key not in seen.aliases:
                    seen.aliases.add(key)
                    self._node("Alias", "key", {"key": key})
                if (key, entity["id"]) not in seen.alias_of:
                    seen.alias_of.add((key, entity["id"]))
                    self._relationship("ALIAS_OF", ("Alias", key), ("Entity", entity["id"]), {})
        for mention in rows.mentions:  # create_mentions
            if mention["chunk_id"] in seen.chunks and mention["entity_id"] in self._entities:
                self._relationship(
                    "MENTIONS",
                    ("Chunk", mention["chunk_id"]),
                    ("Entity", mention["entity_id"]),
                    {"count": mention["count"]},
                )
        for triple in rows.triples:  # create_triples
            if triple["subject_id"] in self._entities and triple["object_id"] in self._entities:
                properties = {
                    k: v for k, v in triple.items() if k not in ("subject_id", "object_id")
                }
                self._relationship(
                    "RELATES",
                    ("Entity", triple["subject_id"]),
                    ("Entity", triple["object_id"]),
                    properties,
                )
        # create_links and resolve_unresolved: at the end, when every document is known, a link
        # ends where it ends after an ingest in any order.
        self._links += rows.links

    def close(self) -> ImportFiles:
        """Write what later rows could still change (entities, links), close every file."""
        for entity_id, entity in self._entities.items():
            aliases = list(entity.aliases)
            self._node(
                "Entity",
                "id",
                {
                    "id": entity_id,
                    "name": entity.name,
                    "type": entity.type,
                    "aliases": aliases,
                    # As upsert_entities.cypher builds it: every alias after a space.
                    "alias_text": "".join(f" {alias}" for alias in aliases),
                    "embedding": entity.embedding,
                },
            )
        for link in self._links:
            self._link(link)
        nodes, relationships, multiline = self._files.close()
        return ImportFiles(
            self._files.folder, nodes, relationships, multiline, dict(self._empty_lists)
        )

    # --- statements -----------------------------------------------------------------------------
    def _chunks(self, terms: list[str], chunks: list[ChunkRow]) -> None:
        seen = self._seen
        for text in terms:
            if text not in seen.terms:
                seen.terms.add(text)
                self._node("Term", "text", {"text": text})
        # Millions of rows at scale: straight to their writers. tf only above 1, as stored.
        single = self._files.file("relationships", "HAS_TERM", _POSTING).writer
        repeated = self._files.file("relationships", "HAS_TERM", (*_POSTING, "tf:long")).writer
        for chunk in chunks:
            if chunk["document_id"] not in seen.documents:
                continue
            chunk_id = chunk["id"]
            properties = {
                key: value
                for key, value in chunk.items()
                if key not in ("previous_id", "single_terms", "repeated_terms")
            }
            self._node("Chunk", "id", properties)
            seen.chunks.add(chunk_id)
            for slug in chunk["heading_slugs"]:
                seen.sections.setdefault((chunk["document_id"], slug), chunk_id)
            self._relationship(
                "HAS_CHUNK", ("Document", chunk["document_id"]), ("Chunk", chunk_id), {}
            )
            single.writerows([chunk_id, terms[at]] for at in chunk["single_terms"])
            repeated.writerows([chunk_id, terms[at], str(tf)] for at, tf in chunk["repeated_terms"])
            if chunk["previous_id"] is not None and chunk["previous_id"] in seen.chunks:
                self._relationship("NEXT", ("Chunk", chunk["previous_id"]), ("Chunk", chunk_id), {})

    def _link(self, link: LinkRow) -> None:
        """create_links.cypher: to the chunk whose heading the fragment names, else the
        document (by id, else by uri), else an (:Unresolved {key}) placeholder."""
        seen = self._seen
        if link["chunk_id"] not in seen.chunks:
            return
        target = link["target"]
        document = target if target in seen.documents else seen.uris.get(target)
        fragment = link["fragment"]
        section = seen.sections.get((document, fragment)) if document is not None else None
        if section is not None and fragment:
            end = ("Chunk", section)
        elif document is not None:
            end = ("Document", document)
        else:
            if target not in seen.unresolved:
                seen.unresolved.add(target)
                self._node("Unresolved", "key", {"key": target})
            end = ("Unresolved", target)
        properties = {
            key: link[key]
            for key in ("href", "anchor_text", "context", "fragment", "context_embedding")
        }
        self._relationship("LINKS_TO", ("Chunk", link["chunk_id"]), end, properties)

    def _merge_contains(self, label: str, folder: str, child: str) -> None:
        if (folder, child) not in self._seen.contains:
            self._seen.contains.add((folder, child))
            self._relationship("CONTAINS", ("Folder", folder), (label, child), {})

    # --- rows -----------------------------------------------------------------------------------
    def _node(self, label: str, key: str, properties: Mapping[str, Any]) -> None:
        header = [f"{key}:ID({label})"]
        values = [str(properties[key])]
        for name, value in _columns(properties, skip=key):
            if isinstance(value, list) and not value:
                self._empty_lists.setdefault((label, key, name), []).append(values[0])
                continue
            column, text = _cell(name, value)
            header.append(column)
            values.append(text)
        self._files.row("nodes", label, tuple(header), values)

    def _relationship(
        self,
        kind: str,
        start: tuple[str, str],
        end: tuple[str, str],
        properties: Mapping[str, Any],
    ) -> None:
        header = [f":START_ID({start[0]})", f":END_ID({end[0]})"]
        values = [start[1], end[1]]
        for name, value in _columns(properties):
            if isinstance(value, list) and not value:
                raise ValueError(
                    f"{kind}.{name}: an empty list on a relationship cannot be imported"
                )
            column, text = _cell(name, value)
            header.append(column)
            values.append(text)
        self._files.row("relationships", kind, tuple(header), values)


def _columns(properties: Mapping[str, Any], skip: str = "") -> Iterator[tuple[str, Any]]:
    """The properties a node or relationship gets: Cypher stores no null."""
    return ((k, v) for k, v in properties.items() if v is not None and k != skip)


def _cell(name: str, value: Any) -> tuple[str, str]:
    """The typed header column and the CSV text of one property value."""
    if name == "embedding" or name.endswith("_embedding"):  # set*VectorProperty: float32
        return f"{name}:float[]", ARRAY_DELIMITER.join(_FLOAT32 % x for x in value)
    if isinstance(value, bool):
        return f"{name}:boolean", "true" if value else "false"
    if isinstance(value, int):
        return f"{name}:long", str(value)
    if isinstance(value, float):
        return f"{name}:double", repr(value)
    if isinstance(value, str):
        return name, value
    if isinstance(value, datetime):
        return f"{name}:{'datetime' if value.tzinfo else 'localdatetime'}", value.isoformat()
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        if any(ARRAY_DELIMITER in x for x in value):
            raise ValueError(f"{name}: a value holds the array delimiter U+001F")
        return f"{name}:string[]", ARRAY_DELIMITER.join(value)
    raise TypeError(f"{name}: cannot bulk-import a {type(value).__name__} ({value!r:.60})")


# --- the import -----------------------------------------------------------------------------------
def import_into(
    local: LocalNeo4j,
    files: ImportFiles,
    *,
    heap: str = "1g",
    max_off_heap_memory: str = "2g",
    threads: int = 2,
) -> float:
    """Stop the server if it runs, ``neo4j-admin database import full`` the files over its
    database, and start it; returns the import's seconds. A server never started before is
    imported into directly (its first start then finds the database)."""
    local.stop()
    local.install()
    local.home.mkdir(parents=True, exist_ok=True)
    command = [
        # The server's own Java lookup (settings, JAVA_HOME, PATH; version checked).
        str(local.java()), f"-Xmx{heap}", "-cp", f"{local.lib_dir}/*", _ADMIN_TOOL,
        "database", "import", "full", local.settings.neo4j_database,
        "--overwrite-destination=true", f"--max-off-heap-memory={max_off_heap_memory}",
        f"--threads={threads}", f"--array-delimiter={_NEO4J_ARRAY_DELIMITER}",
        f"--report-file={files.folder / 'import.report'}",
        *(f"--nodes={label}={path}" for label, path in files.nodes),
        *(f"--relationships={kind}={path}" for kind, path in files.relationships),
    ]  # fmt: skip
    if files.multiline:
        command += [
            "--multiline-fields-format=v2",
            f"--multiline-fields={','.join(str(path) for path in files.multiline)}",
        ]
    env = {**os.environ, "NEO4J_HOME": str(local.home)}
    if (local.conf_dir / "neo4j.conf").exists():  # written by the server's first start
        env["NEO4J_CONF"] = str(local.conf_dir)
    clock = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=files.folder, check=False
    )
    seconds = time.perf_counter() - clock
    if done.returncode != 0:
        raise RuntimeError(f"neo4j-admin import failed:\n{(done.stdout + done.stderr)[-3000:]}")
    local.start()
    return seconds


def finish_import(graph: Graph, files: ImportFiles) -> int:
    """What an import leaves to do once the schema is applied: the empty lists
    (``restore_empty_lists``, whose count it returns), and the FD* length bins and their
    statistics, which ingestion keeps in its transactions and an import cannot
    (``loaders.fd_stats.refit``)."""
    restored = restore_empty_lists(graph, files)
    refit(graph)
    return restored


def restore_empty_lists(graph: Graph, files: ImportFiles, batch: int = 10_000) -> int:
    """Give back the empty lists an import leaves out (ingestion stores ``[]``, e.g. a chunk
    without identifiers), by key: run it once the schema is applied, whose uniqueness
    constraints are the lookups. Returns the nodes set."""
    total = 0
    for (label, key, name), keys in files.empty_lists.items():
        statement = f"UNWIND $keys AS key MATCH (n:{label} {{{key}: key}}) SET n.`{name}` = []"
        for start in range(0, len(keys), batch):
            _write_keys(graph, statement, keys[start : start + batch])
        total += len(keys)
    return total


def _write_keys(graph: Graph, statement: str, keys: list[str]) -> None:
    def work(tx: neo4j.ManagedTransaction) -> None:
        tx.run(statement, keys=keys).consume()

    graph.write(work)
