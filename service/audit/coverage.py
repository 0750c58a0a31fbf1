"""Corpus–benchmark coverage pre-check: can the corpus answer the benchmark's claims at all?

The double filter (docs/design.md §3): a claim (or query) ``q`` is *covered* by a chunk ``c`` when

* ``cos(e(q), e(c)) ≥ 0.75`` (the embeddings of the configured model), and
* ``|K(q) ∩ K(c)| ≥ 2``, with ``K`` the keywords: ``anchorgraph.text.terms.index_terms``, lowercase
  word tokens without English stop words and one-letter words (numbers kept), not stemmed
  ("infection" and "infections" are different keywords).

It is reported over two scopes: the *full* corpus, where each claim's ``k`` nearest chunks by the
chunk vector index are checked (approximate nearest neighbours; a covering chunk ranked below
``k`` by cosine is missed, so ``k`` well above 1 is asked), and a *sample* of ``sample_size``
chunks drawn at random with ``seed`` (``random.Random(seed).sample`` over the chunk ids in order),
where every sampled chunk is checked, its cosine computed in memory.

Two shares per scope:

* ``share = covered claims / claims`` — the pre-check proper (a benchmark covered below about
  40 % says more about the corpus than about retrieval). It can only fall when chunks are
  removed, so a sample shows no more of it than the full corpus (but for a covering chunk the
  full corpus's approximate ``k`` nearest missed).
* ``aligned_share = chunks covering some claim / chunks`` — how much of the scope is on the
  benchmark's topics. A small sample estimates it with a wide error (12 chunks: up to ±28
  points at 95 %, 1.96·√(p(1 − p)/12) at p = ½), and a topically chosen one overstates it.
  Only this share can be higher on a subset than on the full corpus. Over the full corpus it
  counts the chunks met among the claims' ``k`` nearest, a lower bound.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.audit.plotting import figure, save
from anchorgraph.embedding import Embedder, Vectors
from anchorgraph.errors import InvalidInput
from anchorgraph.graph.gateway import GraphReader
from anchorgraph.graph.queries import Query
from anchorgraph.scope import local_id
from anchorgraph.text.terms import index_terms

# The double filter's thresholds.
DEFAULT_MIN_COSINE = 0.75
DEFAULT_MIN_SHARED = 2
# The pre-check's sample: a dozen chunks, as a person would read.
DEFAULT_SAMPLE_SIZE = 12
DEFAULT_NEIGHBOURS = 20
# Claims embedded and sent to the vector index per round trip.
_BATCH = 64
# The chunk vector index holds every collection: it is asked for this many times the neighbours
# kept, so that a collection among others still gets its nearest k.
COVERAGE_OVERFETCH = 10
# The columns claims are read from by default: BEIR queries.jsonl, HealthFC's Datensatz.csv.
JSONL_FIELD = "text"
CSV_COLUMN = "en_claim"


def read_claims(path: Path, column: str | None = None) -> list[str]:
    """The claims or queries of a file, in order, blank ones dropped: a JSON-lines file (BEIR
    ``queries.jsonl``; field ``column``, default ``text``) or a CSV with a header row (read as
    UTF-8 with or without a BOM, as HealthFC's ``Datensatz.csv``; column ``column``, default
    ``en_claim``).

    Raises:
        InvalidInput: another file type, a missing field or column, a line that is not JSON,
            or no claims at all.
    """
    suffix = path.suffix.lower()
    try:
        if suffix in {".jsonl", ".ndjson"}:
            claims = _jsonl_claims(path, column or JSONL_FIELD)
        elif suffix == ".csv":
            claims = _csv_claims(path, column or CSV_COLUMN)
        else:
            raise InvalidInput(f"{path}: claims are read from .jsonl or .csv files")
    except OSError as error:
        raise InvalidInput(f"{path}: {error.strerror or error}") from None
    if not claims:
        raise InvalidInput(f"{path}: no claims in it")
    return claims


def _jsonl_claims(path: Path, field: str) -> list[str]:
    claims = []
    with path.open(encoding="utf-8-sig") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise InvalidInput(f"{path}:{number}: not a JSON object") from None
            if not isinstance(row, dict) or not isinstance(row.get(field), str):
                raise InvalidInput(f"{path}:{number}: no text field {field!r}")
            if text := row[field].strip():
                claims.append(text)
    return claims


def _csv_claims(path: Path, column: str) -> list[str]:
    with path.open(encoding="utf-8-sig", newline="") as table:
        reader = csv.DictReader(table)
        if column not in (reader.fieldnames or []):
            raise InvalidInput(f"{path}: no column {column!r} (has {reader.fieldnames})")
        return [text for row in reader if (text := (row[column] or "").strip())]


def keywords(text: str) -> frozenset[str]:
    """The keywords the filter compares: ``index_terms`` of the text (module docstring)."""
    return frozenset(index_terms(text))


@dataclass(frozen=True)
class Neighbour:
    """A chunk checked against a claim: its cosine to the claim and its keywords (left empty
    where the cosine is too low for them to matter)."""

    chunk_id: str
    cosine: float
    keywords: frozenset[str]


def covering(
    claim: frozenset[str], neighbours: Iterable[Neighbour], min_cosine: float, min_shared: int
) -> list[tuple[Neighbour, list[str]]]:
    """The neighbours that cover a claim with keywords ``claim``: cosine ≥ ``min_cosine`` and at
    least ``min_shared`` keywords in common; most similar first, each with the shared keywords
    (sorted)."""
    found = []
    for neighbour in sorted(neighbours, key=lambda n: (-n.cosine, n.chunk_id)):
        if neighbour.cosine < min_cosine:
            break
        shared = claim & neighbour.keywords
        if len(shared) >= min_shared:
            found.append((neighbour, sorted(shared)))
    return found


class CoverageScope(BaseModel):
    """Coverage of the claims over one scope: the full corpus or the sample."""

    model_config = ConfigDict(frozen=True)

    scope: Literal["full", "sample"]
    chunks: int = Field(description="Chunks in the scope.")
    claims: int
    covered: int = Field(description="Claims some chunk of the scope covers.")
    share: float = Field(description="covered / claims.")
    aligned_chunks: int = Field(
        description="Chunks covering some claim (full corpus: among each claim's k nearest)."
    )
    aligned_share: float = Field(description="aligned_chunks / chunks (0 without chunks).")


class ClaimCoverage(BaseModel):
    """One claim: its nearest chunk, the chunk that covers it, and whether the sample does."""

    model_config = ConfigDict(frozen=True)

    claim: str
    best_cosine: float | None = Field(description="Cosine of its nearest chunk (full corpus).")
    covered: bool
    chunk_id: str | None = Field(description="The most similar chunk that covers it.")
    cosine: float | None = Field(description="That chunk's cosine.")
    shared: list[str] = Field(description="The keywords that chunk shares with the claim.")
    sample_best_cosine: float | None = Field(description="Cosine of its nearest sampled chunk.")
    sample_covered: bool


class CoverageAudit(BaseModel):
    """The coverage pre-check: both scopes, the thresholds, and every claim."""

    model_config = ConfigDict(frozen=True)

    min_cosine: float
    min_shared: int
    k: int = Field(description="Nearest chunks checked per claim over the full corpus.")
    sample_size: int = Field(description="Chunks asked for in the sample.")
    seed: int
    full: CoverageScope
    sample: CoverageScope
    sample_ids: list[str] = Field(description="The sampled chunks.")
    claims: list[ClaimCoverage]


def coverage_audit(
    graph: GraphReader,
    embedder: Embedder,
    claims: Sequence[str],
    collection: str,
    *,
    min_cosine: float = DEFAULT_MIN_COSINE,
    min_shared: int = DEFAULT_MIN_SHARED,
    sample_size: int = DEFAULT_SAMPLE_SIZE,
    seed: int = 0,
    k: int = DEFAULT_NEIGHBOURS,
) -> CoverageAudit:
    """Check every claim against the full corpus of ``collection`` and against a seeded sample
    of its chunks (module docstring); chunk ids are those within the collection.

    Raises:
        InvalidInput: no claims, a cosine threshold outside [-1, 1], a negative keyword count,
            or a sample size or ``k`` below 1.
    """
    if not claims:
        raise InvalidInput("no claims to check")
    if not -1.0 <= min_cosine <= 1.0 or min_shared < 0 or sample_size < 1 or k < 1:
        raise InvalidInput(
            "need -1 <= min_cosine <= 1, min_shared >= 0, sample_size >= 1 and k >= 1"
        )
    claim_keywords = [keywords(claim) for claim in claims]
    vectors = embedder.embed(list(claims))
    ids = [row["id"] for row in graph.read(Query.AUDIT_CHUNK_IDS, {"collection": collection})]
    sample_ids = random.Random(seed).sample(ids, min(sample_size, len(ids)))

    full = _index_neighbours(graph, vectors, k, min_cosine, collection)
    sample = _sample_neighbours(graph, vectors, sample_ids)
    full_scope, full_found = _scope("full", len(ids), full, claim_keywords, min_cosine, min_shared)
    sample_scope, sample_found = _scope(
        "sample", len(sample_ids), sample, claim_keywords, min_cosine, min_shared
    )
    rows = []
    for i, claim in enumerate(claims):
        match = full_found[i][0] if full_found[i] else None
        rows.append(
            ClaimCoverage(
                claim=claim,
                best_cosine=max((n.cosine for n in full[i]), default=None),
                covered=match is not None,
                chunk_id=local_id(match[0].chunk_id) if match else None,
                cosine=match[0].cosine if match else None,
                shared=match[1] if match else [],
                sample_best_cosine=max((n.cosine for n in sample[i]), default=None),
                sample_covered=bool(sample_found[i]),
            )
        )
    return CoverageAudit(
        min_cosine=min_cosine,
        min_shared=min_shared,
        k=k,
        sample_size=sample_size,
        seed=seed,
        full=full_scope,
        sample=sample_scope,
        sample_ids=sorted(map(local_id, sample_ids)),
        claims=rows,
    )


def _index_neighbours(
    graph: GraphReader, vectors: Vectors, k: int, min_cosine: float, collection: str
) -> list[list[Neighbour]]:
    """Each claim's ``k`` nearest chunks of ``collection`` from the vector index, keywords read
    where they can matter (``cypher/audit/nearest_chunks.cypher``; the index holds every
    collection, so it is asked for ``COVERAGE_OVERFETCH`` times as many)."""
    found: list[list[Neighbour]] = [[] for _ in range(len(vectors))]
    cache: dict[str, frozenset[str]] = {}
    for start in range(0, len(vectors), _BATCH):
        batch = [vector.tolist() for vector in vectors[start : start + _BATCH]]
        parameters = {
            "vectors": batch,
            "k": k,
            "k_index": k * COVERAGE_OVERFETCH,
            "min_cosine": min_cosine,
            "collection": collection,
        }
        for row in graph.read(Query.AUDIT_NEAREST_CHUNKS, parameters):
            chunk_id, text = row["chunk_id"], row["text"]
            if text is None:
                terms: frozenset[str] = frozenset()
            elif chunk_id in cache:
                terms = cache[chunk_id]
            else:
                terms = cache[chunk_id] = keywords(text)
            found[start + row["claim"]].append(Neighbour(chunk_id, float(row["cosine"]), terms))
    return found


def _sample_neighbours(
    graph: GraphReader, vectors: Vectors, sample_ids: list[str]
) -> list[list[Neighbour]]:
    """Every sampled chunk for every claim, with the cosine ``e(q) · e(c)`` (unit vectors)."""
    if not sample_ids:
        return [[] for _ in range(len(vectors))]
    rows = graph.read(Query.AUDIT_SAMPLE_CHUNKS, {"ids": sample_ids})
    chunk_ids = [row["id"] for row in rows]
    chunk_keywords = [keywords(row["text"] or "") for row in rows]
    embeddings = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
    cosines = vectors @ embeddings.T
    return [
        [
            Neighbour(chunk_id, float(cosine), terms)
            for chunk_id, cosine, terms in zip(chunk_ids, claim_row, chunk_keywords, strict=True)
        ]
        for claim_row in cosines
    ]


def _scope(
    scope: Literal["full", "sample"],
    chunks: int,
    neighbours: list[list[Neighbour]],
    claim_keywords: list[frozenset[str]],
    min_cosine: float,
    min_shared: int,
) -> tuple[CoverageScope, list[list[tuple[Neighbour, list[str]]]]]:
    found = [
        covering(claim, candidates, min_cosine, min_shared)
        for claim, candidates in zip(claim_keywords, neighbours, strict=True)
    ]
    covered = sum(1 for matches in found if matches)
    aligned = len({neighbour.chunk_id for matches in found for neighbour, _ in matches})
    summary = CoverageScope(
        scope=scope,
        chunks=chunks,
        claims=len(claim_keywords),
        covered=covered,
        share=covered / len(claim_keywords),
        aligned_chunks=aligned,
        aligned_share=aligned / chunks if chunks else 0.0,
    )
    return summary, found


def plot_coverage(audit: CoverageAudit, path: Path) -> Path:
    """Left: both shares for the sample and the full corpus. Right: the distribution of each
    claim's best cosine over each scope, with the cosine threshold."""
    drawn = figure(12, 4.6)
    left, right = drawn.subplots(1, 2)
    scopes = (audit.sample, audit.full)
    width = 0.38
    for offset, (name, attribute) in enumerate(
        (("claims covered", "share"), ("chunks aligned", "aligned_share"))
    ):
        values = [100 * getattr(scope, attribute) for scope in scopes]
        positions = [i + (offset - 0.5) * width for i in range(len(scopes))]
        bars = left.bar(positions, values, width=width, label=name)
        left.bar_label(bars, fmt="%.1f %%", fontsize="small")
    left.set_xticks(
        range(len(scopes)), [f"{scope.scope} ({scope.chunks} chunks)" for scope in scopes]
    )
    left.set_ylabel("%")
    highest = max(100 * max(scope.share, scope.aligned_share) for scope in scopes)
    left.set_ylim(0, max(5.0, 1.2 * highest))
    left.set_title(
        f"Coverage: cosine ≥ {audit.min_cosine:g} and ≥ {audit.min_shared} shared keywords"
    )
    left.legend(fontsize="small")

    bins = [x / 20 for x in range(-4, 21)]
    full = [row.best_cosine for row in audit.claims if row.best_cosine is not None]
    sample = [row.sample_best_cosine for row in audit.claims if row.sample_best_cosine is not None]
    right.hist(full, bins=bins, alpha=0.6, label="full corpus")
    right.hist(sample, bins=bins, alpha=0.6, label=f"sample of {audit.sample.chunks}")
    right.axvline(audit.min_cosine, color="black", linestyle="--", label="cosine threshold")
    right.set_xlabel("best cosine of a claim")
    right.set_ylabel("claims")
    right.set_title(f"{len(audit.claims)} claims: their nearest chunk")
    right.legend(fontsize="small")
    return save(drawn, path)
