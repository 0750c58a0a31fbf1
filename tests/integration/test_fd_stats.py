"""FD* length bins in the real graph: every node binned by the fitted bounds, each bin's
statistics equal to those of the nodes it holds, through ingests, replacements, deletes, refits
and configured bounds (the fake embedder: tokens are words; no spaCy pipeline)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from anchorgraph.audit.nodes import FdNode, read_nodes
from anchorgraph.embedding import HashEmbedder
from anchorgraph.factual_density import BinStats, FdLevel, LengthBin, length_bin, tertile_bounds
from anchorgraph.graph.gateway import Graph
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.fd_stats import FdBinRow, bin_stats, needs_refit, refit
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import read_bytes
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

DENSE = "In 1974 the museum opened 3 galleries with 120 works. "
SPARSE = "The museum is a place that many people think about in many ways. "


def document(doc_id: str, sentences: int, dense: bool) -> SourceDocument:
    body = (DENSE if dense else SPARSE) * sentences
    return read_bytes(
        f"# {doc_id}\n\n{body}\n".encode(), doc_id=doc_id, fmt="markdown", max_bytes=10**6
    )


def corpus() -> list[SourceDocument]:
    return [document(f"d{i}.md", 1 + i % 7, dense=i % 2 == 0) for i in range(18)]


def nodes(graph: Graph, collection: str = "default") -> dict[FdLevel, list[FdNode]]:
    """Every chunk and document of a collection with a length, with the bin the graph's readers
    derive for it (the FD* audits' statement, as the search's hydration reads it too)."""
    found: dict[FdLevel, list[FdNode]] = {level: [] for level in FdLevel}
    for node in read_nodes(graph, collection):
        found[node.level].append(node)
    return found


def check_invariant(
    graph: Graph, collection: str = "default"
) -> dict[FdLevel, tuple[float, float]]:
    """Every node of the collection is read in the bin its length gives under its level's
    bounds, and each bin's statistics are those of its nodes; returns the bounds."""
    rows = bin_stats(graph, collection)
    bounds: dict[FdLevel, tuple[float, float]] = {}
    for level, values in nodes(graph, collection).items():
        own = [row for row in rows if row.level is level]
        assert [row.bin for row in own] == list(LengthBin)
        bounds[level] = (own[0].lower, own[0].upper)
        members: dict[str, list[float]] = defaultdict(list)
        for node in values:
            assert node.length_bin == length_bin(node.n_tokens, bounds[level])
            members[node.length_bin].append(node.fd_raw)
        for row in own:
            expected = BinStats.of(members[row.bin])
            assert row.n == expected.n
            assert row.stats.mean == pytest.approx(expected.mean, abs=1e-12)
            assert row.stats.sd == pytest.approx(expected.sd, abs=1e-9)
    return bounds


@pytest.fixture
def ingestor(clean_graph: Graph, fake_embedder: HashEmbedder) -> Ingestor:
    return Ingestor(clean_graph, fake_embedder, EntityExtractor(None), chunk_tokens=40)


def test_first_ingest_fits_tertiles_and_bins_everything(ingestor: Ingestor) -> None:
    stats = ingestor.ingest(corpus())
    assert stats.refitted
    bounds = check_invariant(ingestor.graph)
    lengths = [node.n_tokens for node in nodes(ingestor.graph)[FdLevel.DOCUMENT]]
    assert bounds[FdLevel.DOCUMENT] == tertile_bounds(lengths)
    # Tertiles: no bin holds most of the corpus.
    sizes = [row.n for row in bin_stats(ingestor.graph, "default") if row.level is FdLevel.DOCUMENT]
    assert max(sizes) < len(lengths) * 0.6


def test_bins_follow_adds_replacements_and_deletes(ingestor: Ingestor) -> None:
    ingestor.fd_refit_share = 10.0  # never refit here: the incremental statements alone
    ingestor.ingest(corpus())
    assert not ingestor.refit_if_drifted()
    fitted = check_invariant(ingestor.graph)
    assert ingestor.refit_if_drifted() is False

    ingestor.ingest([document("new.md", 30, dense=True), document("d3.md", 2, dense=True)])
    assert check_invariant(ingestor.graph) == fitted  # the bounds stay, the statistics move
    ingestor.delete(["d0.md", "d5.md", "new.md"])
    assert check_invariant(ingestor.graph) == fitted
    changes = sum(row.changes for row in bin_stats(ingestor.graph, "default"))
    assert changes > 0


def test_drift_beyond_the_share_refits(ingestor: Ingestor) -> None:
    ingestor.fd_refit_share = 0.2
    ingestor.ingest(corpus()[:6])
    before = check_invariant(ingestor.graph)
    # Three times the corpus, all long: the bounds move up.
    stats = ingestor.ingest([document(f"long{i}.md", 12, dense=False) for i in range(18)])
    assert stats.refitted
    after = check_invariant(ingestor.graph)
    assert after[FdLevel.DOCUMENT][1] > before[FdLevel.DOCUMENT][1]
    assert all(row.changes == 0 for row in bin_stats(ingestor.graph, "default"))


def test_configured_bounds_and_emptied_corpus(ingestor: Ingestor) -> None:
    ingestor.ingest(corpus())
    rows = refit(ingestor.graph, "default", {FdLevel.DOCUMENT: (20, 40)})
    assert {(r.lower, r.upper) for r in rows if r.level is FdLevel.DOCUMENT} == {(20, 40)}
    check_invariant(ingestor.graph)
    ingestor.delete([d.id for d in corpus()])
    assert bin_stats(ingestor.graph, "default") == []


def test_each_collection_has_bins_of_its_own(ingestor: Ingestor) -> None:
    ingestor.ingest(corpus())
    fitted = check_invariant(ingestor.graph)
    # Another collection of long, sparse documents: its own bounds, ours unmoved.
    long = [document(f"long{i}.md", 12 + i, dense=False) for i in range(9)]
    assert ingestor.ingest(long, collection="long").refitted
    theirs = check_invariant(ingestor.graph, "long")
    assert check_invariant(ingestor.graph) == fitted
    assert theirs[FdLevel.DOCUMENT][0] > fitted[FdLevel.DOCUMENT][1]


def test_needs_refit_reads_changes_against_the_fitted_size() -> None:
    def rows(changes: int) -> list[FdBinRow]:
        return [
            FdBinRow(
                collection="default",
                level=level,
                bin=b,
                lower=1,
                upper=2,
                n=10,
                total=1.0,
                total_sq=1.0,
                changes=changes,
                fitted_n=30,
            )
            for level in FdLevel
            for b in LengthBin
        ]

    assert needs_refit([])
    assert not needs_refit(rows(2))  # 6 changes of 30 = 0.2: not beyond
    assert needs_refit(rows(3))  # 9 of 30
    assert needs_refit(rows(0)[:3])  # the document level never fitted


def test_fd_commands(
    ingestor: Ingestor, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    runner = CliRunner()
    empty = runner.invoke(app, ["fd", "stats"])
    assert empty.exit_code == 0 and "No FD* bins in 'default' yet" in empty.output

    ingestor.ingest(corpus())
    done = runner.invoke(app, ["fd", "recompute", "--document-bounds", "20,40"])
    assert done.exit_code == 0, done.output
    assert "document" in done.output and "20 < n ≤ 40" in done.output
    assert {
        (r.lower, r.upper) for r in bin_stats(ingestor.graph, "default") if r.level == "document"
    } == {(20, 40)}
    check_invariant(ingestor.graph)
    for bad in (["--document-bounds", "40,20"], ["--chunk-bounds", "ten"]):
        refused = runner.invoke(app, ["fd", "recompute", *bad])
        assert refused.exit_code == 2 and "bounds" in refused.output

    assert runner.invoke(app, ["fd", "authority"]).output.startswith("Every source type")
    stored = runner.invoke(app, ["fd", "authority", "review=1.5", "rct=1.2"])
    assert stored.exit_code == 0, stored.output
    assert "review" in stored.output and "1.5" in stored.output
    refused = runner.invoke(app, ["fd", "authority", "review=-1"])
    assert refused.exit_code == 2 and "SOURCE_TYPE=NUMBER" in refused.output
