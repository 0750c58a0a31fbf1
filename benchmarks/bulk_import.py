"""Bulk loading with ``neo4j-admin database import``: the graph ingestion would build, offline.

Writing 100,000 chunks (~9M HAS_TERM relationships) through ``write_documents`` ran at ~70
chunks/s on the shared 2-core machine (~25 min); the offline importer builds the same graph in a
few minutes. Its CSV is made from the very rows ingestion sends
(``anchorgraph.loaders.graph_writer``'s
``graph_rows``), batch after batch, by doing with them what each statement of ``cypher/load``
does on an empty database: MERGE becomes "first row wins" (names, folders), aliases accumulate,
an entity keeps its first embedding, links resolve against every document of the import, and a
row whose MATCH would find nothing is dropped. ``tests/integration/test_bulk_import.py`` checks
that both ways give the same graph, property for property.

    csv = CsvGraph(folder, collection)
    for documents, entities, vectors in batches:
        csv.add(graph_rows(collection, documents, entities, vectors))
    files = csv.close()
    import_into(local_server, files)           # stops, imports over its database, starts
    with open_runtime(settings, schema="apply") as runtime:
        finish_import(runtime.graph, files)      # empty lists, FD* length bins

Only a fresh graph: each document once (replacing and deleting are ``write_documents``' job).
An import writes one collection (``anchorgraph.scope``), or several side by side
(``CsvGraph(folder, ["kb1", "kb2"])``, each batch ``add``-ed with its collection, as
``write_documents`` is called with one). It writes each ``(:Collection)`` node too, with the
document and chunk counts every write keeps (``count_collection.cypher``), as the root of its
folder tree. Folders, tags and index terms are unique per collection, so their plain path, name
or text is their CSV id within an ID space of their collection's (``Folder-kb1``); an import of
one collection keeps the plain ID space (``Folder``), its CSV byte for byte what it always was.
Documents, chunks, entities and the rest are stored under keys that start with their
collection: one ID space holds them all.

    csv = CsvGraph(folder, ["kb1", "kb2"])
    csv.add(graph_rows("kb1", documents, entities, vectors), "kb1")
    csv.add(graph_rows("kb2", other_documents, other_entities, other_vectors), "kb2")
"""

from __future__ import annotations

import csv
import os
import subprocess
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

import neo4j

from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j
from anchorgraph.loaders.fd_stats import refit
from anchorgraph.loaders.graph_writer import ChunkRow, GraphRows, LinkRow
from anchorgraph.scope import collection_name

# Between array elements: a control character no normalised text holds (";", the default,
# is in real identifiers and tags).
ARRAY_DELIMITER = "\x1f"
_NEO4J_ARRAY_DELIMITER = "U+001F"
# Shortest "%g" precision that gives back every float32 exactly: imported vectors are the
# float32 values db.create.setNodeVectorProperty would have stored, bit for bit.
_FLOAT32 = "%.9g"
_ADMIN_TOOL = "org.neo4j.cli.AdminTool"
# Labels whose nodes are unique per collection (schema/constraints.cypher: composite keys); the
# others are keyed by one property, a key that starts with the collection.
_PER_COLLECTION = frozenset({"Folder", "Tag", "Term", "FdStats"})
# (collection, label, key property, property) → keys of the nodes whose property is an empty list
EmptyLists = dict[tuple[str, str, str, str], list[str]]


@dataclass(frozen=True)
class ImportFiles:
    """The CSV of one import, and what neo4j-admin cannot express."""

    folder: Path
    collections: tuple[str, ...]  # the collections the import writes, in the order given
    nodes: list[tuple[str, Path]]  # label, file (header on its first line)
    relationships: list[tuple[str, Path]]  # type, file
    multiline: list[Path]  # files with a value that spans lines (slower to parse)
    # (collection, label, key property, property) → keys of the nodes whose property is an
    # empty list (the key within the collection for labels unique per collection): an empty CSV
    # field imports as no property at all, so restore_empty_lists sets these.
    empty_lists: EmptyLists
    megabytes: float  # the CSV's size when written (the files may be deleted after the import)

    @property
    def collection(self) -> str:
        """The one collection of an import of one.

        Raises:
            ValueError: the import writes several.
        """
        if len(self.collections) != 1:
            raise ValueError(f"the import writes {len(self.collections)} collections")
        return self.collections[0]


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
    collection: str
    name: str
    type: str
    aliases: dict[str, None]  # ordered set
    embedding: list[float] | None


@dataclass
class _Seen:
    """What one collection of the graph holds so far, for the MERGEs and MATCHes of the later
    rows."""

    documents: set[str] = field(default_factory=set)  # keys
    uris: dict[str, str] = field(default_factory=dict)  # uri → the first document with it
    chunks: set[str] = field(default_factory=set)  # keys
    sections: dict[tuple[str, str], str] = field(default_factory=dict)  # (document, slug) → chunk
    folders: set[str] = field(default_factory=set)  # paths
    # (label, id) of the container → (label, id) of what it contains
    contains: set[tuple[tuple[str, str], tuple[str, str]]] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    terms: set[str] = field(default_factory=set)
    aliases: set[str] = field(default_factory=set)
    alias_of: set[tuple[str, str]] = field(default_factory=set)
    unresolved: set[str] = field(default_factory=set)
    n_chunks: int = 0  # the (:Collection)'s chunks
    languages: Counter[str] = field(default_factory=Counter)  # its documents per language


class CsvGraph:
    """neo4j-admin CSV of the graph that ``write_documents`` leaves after writing the same
    batches, in the same order, into ``collection`` (a name, or several names) of an empty
    database (see the module docstring).

    ``created`` is the ``(:Collection)``'s creation time (``lock_collection.cypher``'s
    ``datetime()``), every collection's; by default the time this object is made. ``model`` is
    the embedding model the rows' vectors come from, which every collection records as
    ``write_documents(..., model=)`` has it record; None (generated vectors): none.
    """

    def __init__(
        self,
        folder: Path,
        collection: str | Sequence[str],
        created: datetime | None = None,
        model: str | None = None,
    ) -> None:
        names = [collection] if isinstance(collection, str) else list(collection)
        if not names or len(set(names)) != len(names):
            raise ValueError(f"collections: one or more distinct names, not {names!r}")
        self.collections = tuple(collection_name(name) for name in names)
        self.created = created or datetime.now(UTC)
        self.model = model
        if self.created.tzinfo is None:
            raise ValueError("created: a time with its time zone, as datetime() stores it")
        folder.mkdir(parents=True, exist_ok=True)
        self._files = _Files(folder)
        self._seen = {name: _Seen() for name in self.collections}
        self._entities: dict[str, _Entity] = {}  # written at the end: later rows add aliases
        # Resolved at the end, against every document of their collection.
        self._links: list[tuple[str, LinkRow]] = []
        self._empty_lists: EmptyLists = {}

    def add(self, rows: GraphRows, collection: str | None = None) -> None:
        """One batch (``graph_rows`` of ``collection``, which an import of one collection may
        leave out), statement by statement as ``write_documents`` runs them."""
        if collection is None:
            if len(self.collections) != 1:
                raise ValueError("the import writes several collections: name the batch's")
            collection = self.collections[0]
        if collection not in self._seen:
            raise ValueError(f"{collection!r} is not one of this import's {self.collections}")
        seen = self._seen[collection]
        for document in rows.documents:  # upsert_documents
            if document["properties"].get("collection") != collection:
                raise ValueError(
                    f"document {document['id']!r} is not of collection {collection!r}: a "
                    "batch writes one collection"
                )
            if document["id"] in seen.documents:
                raise ValueError(f"document {document['id']!r} twice: a bulk import is fresh")
            if document["labels"]:  # a language's labels, which the files here do not carry
                raise ValueError(
                    f"document {document['id']!r} is in {document['properties']['language']!r}:"
                    " a bulk import writes English documents only"
                )
            seen.languages[document["properties"]["language"]] += 1
            properties = {"id": document["id"], **document["properties"]}
            self._node(
                collection, "Document", "id", properties | {"embedding": document["embedding"]}
            )
            seen.documents.add(document["id"])
            seen.uris.setdefault(document["properties"]["uri"], document["id"])
        for filing in rows.filings:  # file_documents
            if filing["id"] not in seen.documents:
                continue
            for folder in filing["folders"]:
                if folder["path"] not in seen.folders:  # ON CREATE SET f.name
                    seen.folders.add(folder["path"])
                    self._node(
                        collection,
                        "Folder",
                        "path",
                        {"collection": collection, "path": folder["path"], "name": folder["name"]},
                    )
                # The parent folder, or the collection itself for a folder at its root.
                self._merge_contains(
                    collection,
                    self._container(collection, folder["parent"]),
                    ("Folder", folder["path"]),
                )
            self._merge_contains(
                collection,
                self._container(collection, filing["folder"]),
                ("Document", filing["id"]),
            )
            for tag in dict.fromkeys(filing["tags"]):
                if tag not in seen.tags:
                    seen.tags.add(tag)
                    self._node(collection, "Tag", "name", {"collection": collection, "name": tag})
                self._relationship(
                    collection, "TAGGED", ("Document", filing["id"]), ("Tag", tag), {}
                )
        self._chunks(collection, rows.terms, rows.chunks)  # create_chunks
        for claim in rows.claims:  # create_claims
            if claim["chunk_id"] in seen.chunks:
                properties = {k: v for k, v in claim.items() if k != "chunk_id"}
                properties["collection"] = collection
                self._node(collection, "Claim", "id", properties)
                self._relationship(
                    collection, "ASSERTS", ("Chunk", claim["chunk_id"]), ("Claim", claim["id"]), {}
                )
        for entity in rows.entities:  # upsert_entities
            known = self._entities.get(entity["id"])
            if known is None:
                known = self._entities[entity["id"]] = _Entity(
                    collection, entity["name"], entity["type"], {}, None
                )
            known.aliases.update(dict.fromkeys(entity["aliases"]))
            if known.embedding is None:
                known.embedding = entity["embedding"]
            for key in entity["alias_keys"]:
                if key not in seen.aliases:  # ON CREATE SET a.collection
                    seen.aliases.add(key)
                    self._node(collection, "Alias", "key", {"key": key, "collection": collection})
                if (key, entity["id"]) not in seen.alias_of:
                    seen.alias_of.add((key, entity["id"]))
                    self._relationship(
                        collection, "ALIAS_OF", ("Alias", key), ("Entity", entity["id"]), {}
                    )
        for mention in rows.mentions:  # create_mentions
            if mention["chunk_id"] in seen.chunks and mention["entity_id"] in self._entities:
                self._relationship(
                    collection,
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
                properties["collection"] = collection
                self._relationship(
                    collection,
                    "RELATES",
                    ("Entity", triple["subject_id"]),
                    ("Entity", triple["object_id"]),
                    properties,
                )
        # create_links and resolve_unresolved: at the end, when every document is known, a link
        # ends where it ends after an ingest in any order.
        self._links += ((collection, link) for link in rows.links)

    def close(self) -> ImportFiles:
        """Write what later rows could still change (entities, links, the collections'
        counts), close every file."""
        for collection, seen in self._seen.items():
            if seen.documents:  # lock_collection.cypher, count_collection.cypher
                self._node(
                    collection,
                    "Collection",
                    "name",
                    {
                        "name": collection,
                        "created": self.created,
                        "documents": len(seen.documents),
                        "chunks": seen.n_chunks,
                        "accent_keys": True,  # the rows' alias keys hold them
                    }
                    | ({"embedding_model": self.model} if self.model is not None else {})
                    | {f"documents_{code}": n for code, n in sorted(seen.languages.items())},
                )
        for entity_id, entity in self._entities.items():
            aliases = list(entity.aliases)
            self._node(
                entity.collection,
                "Entity",
                "id",
                {
                    "id": entity_id,
                    "collection": entity.collection,  # ON CREATE SET e.collection
                    "name": entity.name,
                    "type": entity.type,
                    "aliases": aliases,
                    # As upsert_entities.cypher builds it: every alias after a space.
                    "alias_text": "".join(f" {alias}" for alias in aliases),
                    "embedding": entity.embedding,
                },
            )
        for collection, link in self._links:
            self._link(collection, link)
        nodes, relationships, multiline = self._files.close()
        return ImportFiles(
            self._files.folder,
            self.collections,
            nodes,
            relationships,
            multiline,
            dict(self._empty_lists),
            sum(path.stat().st_size for _, path in nodes + relationships) / 1e6,
        )

    # --- statements -----------------------------------------------------------------------------
    def _chunks(self, collection: str, terms: list[str], chunks: list[ChunkRow]) -> None:
        seen = self._seen[collection]
        for text in terms:
            if text not in seen.terms:
                seen.terms.add(text)
                self._node(collection, "Term", "text", {"collection": collection, "text": text})
        # Millions of rows at scale: straight to their writers. tf only above 1, as stored.
        posting = (":START_ID(Chunk)", f":END_ID({self._space(collection, 'Term')})")
        single = self._files.file("relationships", "HAS_TERM", posting).writer
        repeated = self._files.file("relationships", "HAS_TERM", (*posting, "tf:long")).writer
        for chunk in chunks:
            if chunk["document_id"] not in seen.documents:
                continue
            chunk_id = chunk["id"]
            properties = {
                key: value
                for key, value in chunk.items()
                if key not in ("previous_id", "single_terms", "repeated_terms", "labels")
            }
            properties["collection"] = collection
            self._node(collection, "Chunk", "id", properties)
            seen.chunks.add(chunk_id)
            seen.n_chunks += 1
            for slug in chunk["heading_slugs"]:
                seen.sections.setdefault((chunk["document_id"], slug), chunk_id)
            self._relationship(
                collection, "HAS_CHUNK", ("Document", chunk["document_id"]), ("Chunk", chunk_id), {}
            )
            single.writerows([chunk_id, terms[at]] for at in chunk["single_terms"])
            repeated.writerows([chunk_id, terms[at], str(tf)] for at, tf in chunk["repeated_terms"])
            if chunk["previous_id"] is not None and chunk["previous_id"] in seen.chunks:
                self._relationship(
                    collection, "NEXT", ("Chunk", chunk["previous_id"]), ("Chunk", chunk_id), {}
                )

    def _link(self, collection: str, link: LinkRow) -> None:
        """create_links.cypher: to the chunk whose heading the fragment names, else the
        document (by key, else by uri within its collection), else an (:Unresolved {key})
        placeholder. resolve_unresolved.cypher points a link waiting on a placeholder at a later
        document whose key is that key or whose uri is the target as written, so with every
        document of the collection known a link ends where an ingest in any order ends it."""
        seen = self._seen[collection]
        if link["chunk_id"] not in seen.chunks:
            return
        target = link["target"]
        document = target if target in seen.documents else seen.uris.get(link["uri"])
        fragment = link["fragment"]
        section = seen.sections.get((document, fragment)) if document is not None else None
        if section is not None and fragment:
            end = ("Chunk", section)
        elif document is not None:
            end = ("Document", document)
        else:
            if target not in seen.unresolved:  # ON CREATE SET u.collection
                seen.unresolved.add(target)
                self._node(
                    collection, "Unresolved", "key", {"key": target, "collection": collection}
                )
            end = ("Unresolved", target)
        properties = {
            key: link[key]
            for key in ("href", "anchor_text", "context", "fragment", "context_embedding")
        }
        self._relationship(collection, "LINKS_TO", ("Chunk", link["chunk_id"]), end, properties)

    @staticmethod
    def _container(collection: str, folder: str) -> tuple[str, str]:
        """What holds a folder's contents: the folder at ``folder``, or the collection itself
        at its root ("")."""
        return ("Folder", folder) if folder else ("Collection", collection)

    def _merge_contains(
        self, collection: str, container: tuple[str, str], child: tuple[str, str]
    ) -> None:
        contains = self._seen[collection].contains
        if (container, child) not in contains:
            contains.add((container, child))
            self._relationship(collection, "CONTAINS", container, child, {})

    # --- rows -----------------------------------------------------------------------------------
    def _space(self, collection: str, label: str) -> str:
        """The CSV ID space of ``label``'s nodes in ``collection``: the label, or for a label
        unique per collection in an import of several, the label and the collection."""
        if label in _PER_COLLECTION and len(self.collections) > 1:
            return f"{label}-{collection}"
        return label

    def _node(self, collection: str, label: str, key: str, properties: Mapping[str, Any]) -> None:
        header = [f"{key}:ID({self._space(collection, label)})"]
        values = [str(properties[key])]
        for name, value in _columns(properties, skip=key):
            if isinstance(value, list) and not value:
                self._empty_lists.setdefault((collection, label, key, name), []).append(values[0])
                continue
            column, text = _cell(name, value)
            header.append(column)
            values.append(text)
        self._files.row("nodes", label, tuple(header), values)

    def _relationship(
        self,
        collection: str,
        kind: str,
        start: tuple[str, str],
        end: tuple[str, str],
        properties: Mapping[str, Any],
    ) -> None:
        header = [
            f":START_ID({self._space(collection, start[0])})",
            f":END_ID({self._space(collection, end[0])})",
        ]
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
    if isinstance(value, list) and all(type(x) is int for x in value):  # a chunk's pages
        return f"{name}:long[]", ARRAY_DELIMITER.join(map(str, value))
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
    """What an import leaves to do once the schema is applied (whose upgrade has marked each
    collection and built its entity bridges, ``anchorgraph.graph.bridges``): the empty lists
    (``restore_empty_lists``, whose count it returns), and the FD* length bins and their
    statistics, which ingestion keeps in its transactions and an import cannot
    (``anchorgraph.loaders.fd_stats.refit``)."""
    restored = restore_empty_lists(graph, files)
    for collection in files.collections:
        refit(graph, collection)
    return restored


def restore_empty_lists(graph: Graph, files: ImportFiles, batch: int = 10_000) -> int:
    """Give back the empty lists an import leaves out (ingestion stores ``[]``, e.g. a chunk
    without identifiers), by key (with its collection for labels unique per collection): run it
    once the schema is applied, whose uniqueness constraints are the lookups. Returns the nodes
    set."""
    total = 0
    for (collection, label, key, name), keys in files.empty_lists.items():
        match = (
            f"collection: $collection, {key}: key" if label in _PER_COLLECTION else f"{key}: key"
        )
        statement = f"UNWIND $keys AS key MATCH (n:{label} {{{match}}}) SET n.`{name}` = []"
        for start in range(0, len(keys), batch):
            _write_keys(graph, statement, keys[start : start + batch], collection)
        total += len(keys)
    return total


def _write_keys(graph: Graph, statement: str, keys: list[str], collection: str) -> None:
    def work(tx: neo4j.ManagedTransaction) -> None:
        tx.run(statement, keys=keys, collection=collection).consume()

    graph.write(work)
