"""Shards: a fixed pool of labels that split the chunk and document vector indexes by collection.

Neo4j 5.26's vector indexes cannot filter inside themselves, so a search in one collection among
many would ask the graph-wide index for many more hits than it keeps: among ten collections of
10,000 chunks, 2,000 hits for 100 kept, three to four times the time of the same search in the
collection alone (benchmarks/collections.py). So each collection is given one of ``SHARDS``
shards when it is created, the one the fewest collections use (cypher/load/free_shard.cypher);
its chunks and documents carry that shard's labels (``ChunkShard03``, ``DocumentShard03``), and
each label has a vector index of its own (cypher/schema/shard_vector_indexes.cypher). With up to
``SHARDS`` collections each has an index to itself; beyond that, collections share. A label
cannot be a parameter of ``CREATE INDEX``, hence a fixed pool written out in that file rather
than an index per collection glued from its name; labels are set with Cypher's dynamic labels
(``SET c:$($chunk_labels)``), a parameter like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from anchorgraph.text.language import Language

SHARDS = 16


@dataclass(frozen=True)
class VectorIndexFamily:
    """The graph-wide vector index over one label and the per-shard ones beside it."""

    label: str  # "Chunk"
    everywhere: str  # the graph-wide index, "chunk_embedding"

    def shard_label(self, shard: int) -> str:
        """``ChunkShard03``: the label a node of shard 3 carries beside ``label``."""
        return f"{self.label}Shard{shard:02d}"

    def shard_index(self, shard: int) -> str:
        """``chunk_embedding_03``: the vector index over ``shard_label(3)``."""
        return f"{self.everywhere}_{shard:02d}"


CHUNKS = VectorIndexFamily("Chunk", "chunk_embedding")
DOCUMENTS = VectorIndexFamily("Document", "document_embedding")


@cache
def index_labels() -> dict[str, str]:
    """Every label a node carries for the indexes' sake only, beside its own, → that own label
    (``Chunk`` or ``Document``): its shard's and its language's (``anchorgraph.text.language``).
    Views of the graph for people (a neighbourhood) leave them out; Neo4j Browser styles them
    as the own label (``anchorgraph.api.browser.style_grass``)."""
    labels = {
        family.shard_label(shard): family.label
        for family in (CHUNKS, DOCUMENTS)
        for shard in range(SHARDS)
    }
    for language in Language:
        chunk, document = language.labels
        if chunk:
            labels |= {chunk: CHUNKS.label, document: DOCUMENTS.label}
    return labels


def shard_labels(shard: int | None) -> dict[str, list[str]]:
    """The ``$chunk_labels`` and ``$document_labels`` of the writes into a collection of
    ``shard``: none for a collection that has no shard yet (written before shards; the upgrade,
    ``anchorgraph.graph.schema.upgrade``, labels all its nodes at once)."""
    if shard is None:
        return {"chunk_labels": [], "document_labels": []}
    return {
        "chunk_labels": [CHUNKS.shard_label(shard)],
        "document_labels": [DOCUMENTS.shard_label(shard)],
    }
