"""A result's neighbourhood for a notebook: read it (``GET /graph/neighbourhood``'s query and
models, ``anchorgraph.api.graph``) and turn it into a networkx graph to draw or analyse::

    from anchorgraph.adapters.notebook import neighbourhood_graph, neighbourhood_of

    hit = searcher("who founded the museum?", level="document").hits[0]
    graph = neighbourhood_graph(neighbourhood_of(searcher, hit.document_id, depth=2))
    networkx.draw(graph, labels=dict(graph.nodes(data="caption")))

(Results themselves render as a table in Jupyter: ``anchorgraph.retrieval.html``.)
"""

from __future__ import annotations

import networkx as nx

from anchorgraph.api.graph import Neighbourhood, neighbourhood
from anchorgraph.errors import InvalidInput, NotFound
from anchorgraph.library import Searcher
from anchorgraph.scope import DEFAULT_COLLECTION


def neighbourhood_of(
    searcher: Searcher,
    node_id: str,
    *,
    collection: str = DEFAULT_COLLECTION,
    depth: int = 1,
    limit: int = 100,
) -> Neighbourhood:
    """The neighbourhood of a document or chunk of ``collection`` by id, as ``GET
    /graph/neighbourhood`` gives it (``depth`` 1 or 2 hops, at most ``limit`` nodes).

    Raises:
        NotFound: no document or chunk has the id.
        InvalidInput: ``depth`` is not 1 or 2, or ``limit`` not in 1..500.
    """
    if depth not in (1, 2) or not 1 <= limit <= 500:
        raise InvalidInput("depth is 1 or 2 and limit 1 to 500, as GET /graph/neighbourhood asks")
    found = neighbourhood(searcher.graph, collection, node_id, depth=depth, limit=limit)
    if found is None:
        raise NotFound(f"No document or chunk with id {node_id!r} in collection {collection!r}.")
    return found


def neighbourhood_graph(found: Neighbourhood) -> nx.MultiDiGraph:
    """A ``networkx.MultiDiGraph``: a node per graph node (keyed by element id, with
    ``labels``, ``caption`` and its properties), an edge per relationship (keyed by element id,
    with ``type`` and its properties); the graph's ``center`` and ``truncated`` attributes say
    where it starts and whether more was within reach."""
    graph = nx.MultiDiGraph(center=found.center, truncated=found.truncated)
    for node in found.nodes:
        graph.add_node(
            node.id, **{**node.properties, "labels": node.labels, "caption": node.caption}
        )
    for relationship in found.relationships:
        graph.add_edge(
            relationship.start,
            relationship.end,
            key=relationship.id,
            **{**relationship.properties, "type": relationship.type},
        )
    return graph
