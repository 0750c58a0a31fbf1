"""When nothing matches: how well an answer's ``matched`` (``anchorgraph.retrieval.evidence``)
tells the queries a collection cannot answer from those it can, and the bars it holds hits to.

Built from the dev splits in BEIR layout. Each corpus, or a slice of it (the judged documents of
the sampled queries and a seeded sample of the others, up to ``--max-documents``), is one
collection of one evaluation Neo4j, and each split's sampled queries are searched with the
default search (hybrid, chunk level, k 10) in every collection:

- answerable: a split's queries in its own collection, where each has judged documents;
- unanswerable: a split's queries in the collections of the other domain (biomedical claims and
  questions among Wikipedia paragraphs, and the reverse), where nothing answers them;
- related: a split's queries in another corpus of its own domain (SciFact claims among NFCorpus
  abstracts), which may hold an answer: reported apart, counted in neither.

``collect`` keeps each hit's evidence as the engine found it (its cosine, the query's terms its
text holds, an entity named by an alias) and, per collection, the cosines between random pairs
of its documents' embeddings (what a statistic stored at ingest could be made of). ``report``
replays the rule (``evidence.evidence_kinds``) offline for a grid of bars. A "no match" call is
an answer none of whose hits is matched:

- precision: unanswerable rows called / rows called (answerable and unanswerable);
- recall: unanswerable rows called / unanswerable rows;
- false alarms: answerable rows called / answerable rows (a pipeline would refuse to answer).

Bars are chosen on the tune parts (``metrics.held_aside``): the largest tune recall whose tune
false alarms stay within ``--max-false-alarms``, first on every dataset, then with one whole
dataset left out at a time (its rows, as queries or as the collection searched, are never chosen
on, and are scored). Four kinds of noise level compete: one cosine for every collection, a
collection's own ``μ + z·σ`` of its document-to-document cosines, a margin (the best hit's
cosine above the mean of the answer's), and none (lexical evidence only).

    python -m anchorgraph.evaluation.no_match collect ../shared/datasets --max-documents 1000 \\
        --link-titles --out benchmarks/out/no_match.json.gz
    python -m anchorgraph.evaluation.no_match report benchmarks/out/no_match.json.gz

Other BEIR folders: ``--split FOLDER:SPLIT:DOMAIN`` for each (two domains at least, so that
some rows are unanswerable).

Every path is an argument, relative to the current folder.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from anchorgraph import Runtime, SearchOptions, open_runtime
from anchorgraph.engine import (
    DEFAULT_NO_MATCH_RULE,
    NoMatchRule,
    Query,
    SchemaMode,
    evidence_kinds,
    ingest_with_progress,
    link_titles_in_graph,
    prepare,
    search,
)
from anchorgraph.evaluation.datasets import BeirSplit, load_split, source_documents
from anchorgraph.evaluation.metrics import held_aside
from anchorgraph.evaluation.run import EvalConfig, Heartbeat, eval_server

# The dev splits, each with the split its queries are judged in and its domain (``--split``
# names others: any BEIR folders, two domains at least).
SPLITS = {
    "scifact": ("train", "biomedical"),
    "nfcorpus": ("dev", "biomedical"),
    "healthver_dev": ("dev", "biomedical"),
    "musique_dev": ("dev", "wikipedia"),
    "hotpotqa_dev500": ("dev", "wikipedia"),
}


def split_spec(text: str) -> tuple[str, tuple[str, str]]:
    """``FOLDER:SPLIT:DOMAIN`` (``--split``) as a ``SPLITS`` entry."""
    parts = text.split(":")
    if len(parts) != 3 or not all(parts):
        raise argparse.ArgumentTypeError(f"{text!r}: write FOLDER:SPLIT:DOMAIN (scifact:train:bio)")
    name, split, domain = parts
    return name, (split, domain)


def label_of(queries: str, collection: str, domains: Mapping[str, str]) -> str:
    """answerable (a split's queries in its own collection), unanswerable (in a collection of
    another domain) or related (in another collection of its domain): the module docstring."""
    if queries == collection:
        return "answerable"
    return "related" if domains[queries] == domains[collection] else "unanswerable"


NOISE_COSINES = tuple(round(0.20 + 0.025 * step, 3) for step in range(25))  # 0.20 … 0.80
NOISE_Z = tuple(round(0.5 * step, 1) for step in range(17))  # 0 … 8
MARGINS = tuple(round(0.02 * step, 2) for step in range(16))  # 0 … 0.30
TERM_SHARES = (0.0, 0.1, 0.2, 0.25, 0.3, 0.34, 0.4, 0.5, 0.6, 0.67, 0.75, 0.8, 0.9, 1.0)
NO_COSINE = math.inf  # a noise level no hit reaches: lexical evidence only


def collection_of(dataset: str) -> str:
    """The collection a dataset is ingested into (collection names take no underscore first)."""
    return dataset.replace("_", "-")


# --- collect ------------------------------------------------------------------------------------
def sliced(
    split: BeirSplit, max_documents: int | None, judged_per_query: int = 5, seed: int = 0
) -> BeirSplit:
    """The split's queries with a corpus of up to ``judged_per_query`` of each query's judged
    documents (a seeded sample) and a seeded sample of the others, ``max_documents`` in all (at
    least those judged); the whole corpus without ``max_documents``."""
    if max_documents is None or len(split.corpus) <= max_documents:
        return split
    rng = random.Random(seed)
    judged: set[str] = set()
    for query in split.queries:
        relevant = sorted(
            d for d, r in split.qrels[query.id].items() if r > 0 and d in split.corpus
        )
        judged |= set(rng.sample(relevant, min(judged_per_query, len(relevant))))
    others = sorted(split.corpus.keys() - judged)
    room = max(0, max_documents - len(judged))
    kept = judged | set(rng.sample(others, min(room, len(others))))
    return split.subset([query.id for query in split.queries], kept)


def prepare_collection(runtime: Runtime, split: BeirSplit, console: Console) -> None:
    """Make the split's collection hold exactly its corpus (unchanged documents are skipped)."""
    collection = collection_of(split.name)
    present = {
        row["id"] for row in runtime.graph.read(Query.DOCUMENT_IDS, {"collection": collection})
    }
    stale = sorted(present - split.corpus.keys())
    if stale:
        runtime.ingestor.delete(stale, collection=collection)
    documents = source_documents(
        split, title_in_text=True, max_bytes=runtime.settings.max_document_bytes
    )
    stats = ingest_with_progress(runtime.ingestor, documents, console, collection=collection)
    console.print(
        f"{collection}: {stats.written} written, {stats.unchanged} unchanged, "
        f"{len(stale)} removed ({stats.seconds:.0f} s)"
    )


def document_cosines(runtime: Runtime, split: BeirSplit, pairs: int, seed: int = 0) -> list[float]:
    """Cosines of ``pairs`` random pairs of the collection's document embeddings."""
    collection = collection_of(split.name)
    keys = [f"{collection}/{doc}" for doc in split.corpus]
    rows = runtime.graph.read(Query.FEEDBACK_VECTORS, {"document_ids": keys})
    vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    left, right = rng.integers(0, len(vectors), (2, pairs))
    distinct = left != right
    cosines = np.einsum("ij,ij->i", vectors[left], vectors[right])[distinct]
    return [round(float(c), 6) for c in cosines]


def collect_row(runtime: Runtime, text: str, collection: str) -> dict[str, Any]:
    """The default search of ``text`` in ``collection``: each hit's document and evidence."""
    result = search(runtime.search, SearchOptions(query=text, collections=[collection], k=10))
    hits = []
    for hit in result.hits:
        evidence = hit.evidence
        assert evidence is not None  # every search's hits have it
        hits.append(
            {
                "document_id": hit.document_id,
                "cosine": evidence.cosine,
                "terms": evidence.terms,
                "alias": "entity" in evidence.kinds,
            }
        )
    # The query's terms as the engine counts them (``AnalyzedQuery.terms``: English here).
    query_terms = len(prepare(text).terms)
    return {"query_terms": query_terms, "matched": result.matched, "hits": hits}


def collect(
    root: Path,
    out: Path,
    console: Console,
    *,
    splits_named: Mapping[str, tuple[str, str]],
    max_queries: int,
    max_documents: int | None,
    neo4j_home: Path | None,
    keep_server: bool,
    link_titles: bool = False,
    pairs: int = 20_000,
) -> Path:
    """Ingest every split's (sliced) corpus into its collection (with ``link_titles``, linking
    the mentions of its documents' titles, as ``anchorgraph graph link-titles`` does, so that the
    default search expands along them), search every split's sampled queries in every
    collection, and write what was found to ``out``."""
    splits = [
        sliced(load_split(root / name, split, max_queries=max_queries), max_documents)
        for name, (split, _) in splits_named.items()
    ]
    first = splits[0]
    config = EvalConfig(
        dataset=first.root, split=first.split, entities=False, keep_server=keep_server,
        neo4j_home=neo4j_home,
    )  # fmt: skip
    heartbeat = Heartbeat(console)
    rows: list[dict[str, Any]] = []
    with (
        eval_server(config, "no-match", console) as (server, _),
        open_runtime(config.runtime_settings(server), schema=SchemaMode.APPLY) as runtime,
    ):
        for split in splits:
            prepare_collection(runtime, split, console)
            if link_titles:
                linked = link_titles_in_graph(
                    runtime.graph, runtime.embedder, collection_of(split.name)
                )
                console.print(f"{collection_of(split.name)}: {linked.summary()}")
        noise = {collection_of(s.name): document_cosines(runtime, s, pairs) for s in splits}
        for queries, collection in itertools.product(splits, splits):
            for number, query in enumerate(queries.queries, start=1):
                row = collect_row(runtime, query.text, collection_of(collection.name))
                relevant = queries.qrels.get(query.id, {}) if queries is collection else {}
                for hit in row["hits"]:
                    hit["relevant"] = relevant.get(hit["document_id"], 0) > 0
                rows.append(
                    {"queries": queries.name, "collection": collection.name, "query_id": query.id}
                    | row
                )
                heartbeat(f"{queries.name} in {collection.name}: {number}/{len(queries.queries)}")
    payload = {
        "default_rule": {
            "noise_cosine": DEFAULT_NO_MATCH_RULE.noise_cosine,
            "min_term_share": DEFAULT_NO_MATCH_RULE.min_term_share,
        },
        "link_titles": link_titles,
        "splits": {
            s.name: {
                "split": s.split,
                "domain": splits_named[s.name][1],
                "queries": len(s.queries),
                "documents": len(s.corpus),
            }
            for s in splits
        },
        "document_cosines": noise,
        "rows": rows,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        json.dump(payload, handle)
    return out


# --- report -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One query searched in one collection, as collected."""

    queries: str
    collection: str
    query_id: str
    query_terms: int
    engine_matched: bool  # what the engine answered, with its default bars
    hits: tuple[dict[str, Any], ...]
    label: str  # label_of

    @property
    def held(self) -> bool:
        return held_aside(self.query_id)

    def involves(self, dataset: str) -> bool:
        return dataset in (self.queries, self.collection)

    def best_cosine(self) -> float:
        """The best cosine of its hits (-1 when the dense path found none of them)."""
        return max((h["cosine"] for h in self.hits if h["cosine"] is not None), default=-1.0)


@dataclass(frozen=True)
class Bars:
    """A noise level and a term share. The level is one cosine for every collection
    (``fixed``), a collection's own ``μ + level·σ`` of its document cosines
    (``per-collection``), or none at all (``lexical``: no hit has dense evidence)."""

    kind: str
    level: float
    term_share: float

    def rule(self, noise: Mapping[str, tuple[float, float]], collection: str) -> NoMatchRule:
        if self.kind == "fixed":
            cosine = self.level
        elif self.kind == "per-collection":
            mean, sd = noise[collection]
            cosine = mean + self.level * sd
        else:  # lexical, and the margin rule, whose dense part is the row's, not a hit's
            cosine = NO_COSINE
        return NoMatchRule(noise_cosine=cosine, min_term_share=self.term_share)

    def calls(self, row: Row, noise: Mapping[str, tuple[float, float]]) -> bool:
        """Whether these bars call the row "no match"."""
        if self.kind == "margin" and stands_out(row, self.level):
            return False
        return no_match(row, self.rule(noise, collection_of(row.collection)))

    def text(self) -> str:
        share = f"term share ≥ {self.term_share:g}" if self.term_share else "any term"
        if self.kind == "fixed":
            return f"cosine ≥ {self.level:.3f}, {share}"
        if self.kind == "per-collection":
            return f"cosine ≥ μ + {self.level:g}σ, {share}"
        if self.kind == "margin":
            return f"best cosine ≥ mean + {self.level:g}, {share}"
        return f"no dense evidence, {share}"


def grid() -> list[Bars]:
    """Every bar the report chooses among."""
    return [
        *(Bars("fixed", c, s) for c in NOISE_COSINES for s in TERM_SHARES),
        *(Bars("per-collection", z, s) for z in NOISE_Z for s in TERM_SHARES),
        *(Bars("margin", m, s) for m in MARGINS for s in TERM_SHARES),
        *(Bars("lexical", 0.0, s) for s in TERM_SHARES),
    ]


def no_match(row: Row, rule: NoMatchRule) -> bool:
    """Whether none of the row's hits is matched under ``rule`` (``evidence_kinds``). The rule
    only grows with a hit's terms and cosine, so it is asked once, of the row's most terms, best
    cosine and any alias: a hit of the row is matched exactly when that is."""
    kinds = evidence_kinds(
        query_terms=row.query_terms,
        matched_terms=max((len(hit["terms"]) for hit in row.hits), default=0),
        cosine=row.best_cosine(),
        alias=any(hit["alias"] for hit in row.hits),
        rule=rule,
    )
    return not kinds


def stands_out(row: Row, margin: float) -> bool:
    """Whether the row's best cosine stands ``margin`` above the mean of its hits' cosines (the
    margin rule: an answer whose best hit is no nearer than the rest has none that matches)."""
    cosines = [hit["cosine"] for hit in row.hits if hit["cosine"] is not None]
    return bool(cosines) and max(cosines) - math.fsum(cosines) / len(cosines) >= margin


@dataclass(frozen=True)
class Score:
    """No-match calls over some rows."""

    answerable: int
    unanswerable: int
    false_alarms: int  # answerable rows called
    called: int  # unanswerable rows called

    @property
    def precision(self) -> float:
        calls = self.called + self.false_alarms
        return self.called / calls if calls else 1.0

    @property
    def recall(self) -> float:
        return self.called / self.unanswerable if self.unanswerable else 0.0

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.answerable if self.answerable else 0.0

    def cells(self) -> str:
        """precision | recall | false alarms, for a table."""
        return (
            f"{self.precision:.3f} | {self.recall:.3f} ({self.called}/{self.unanswerable}) | "
            f"{self.false_alarm_rate:.3f} ({self.false_alarms}/{self.answerable})"
        )


def scored(rows: Iterable[tuple[Row, bool]]) -> Score:
    """The score of (row, called) pairs; related rows count in neither class."""
    answerable = unanswerable = false_alarms = called = 0
    for row, call in rows:
        if row.label == "answerable":
            answerable += 1
            false_alarms += call
        elif row.label == "unanswerable":
            unanswerable += 1
            called += call
    return Score(answerable, unanswerable, false_alarms, called)


Keep = Callable[[Row], bool]


class Study:
    """The collected rows, and each bar's calls on them (made once)."""

    def __init__(self, data: Mapping[str, Any], bars: Sequence[Bars]) -> None:
        domains = {
            name: split.get("domain", SPLITS.get(name, ("", name))[1])
            for name, split in data["splits"].items()
        }
        self.rows = [
            Row(r["queries"], r["collection"], r["query_id"], r["query_terms"], r["matched"],
                tuple(r["hits"]), label_of(r["queries"], r["collection"], domains))
            for r in data["rows"]
        ]  # fmt: skip
        self.noise = {
            collection: (float(np.mean(values)), float(np.std(values)))
            for collection, values in data["document_cosines"].items()
        }
        self.datasets = list(data["splits"])
        self.calls = {b: [b.calls(row, self.noise) for row in self.rows] for b in bars}
        self.default_rule = data.get("default_rule")  # the engine's bars when it was collected

    def called(self, bars: Bars) -> list[bool]:
        """The bars' calls on every row (made once)."""
        if bars not in self.calls:
            self.calls[bars] = [bars.calls(row, self.noise) for row in self.rows]
        return self.calls[bars]

    def score(self, calls: Sequence[bool], keep: Keep) -> Score:
        return scored((row, call) for row, call in zip(self.rows, calls, strict=True) if keep(row))

    def choose(self, keep: Keep, max_false_alarms: float, kinds: Iterable[str]) -> Bars:
        """The bars of ``kinds`` with the best recall on the rows ``keep`` allows whose false
        alarms there stay within ``max_false_alarms``; then the fewer false alarms, then the
        first in the grid."""
        allowed = set(kinds)
        candidates = [b for b in self.calls if b.kind in allowed]
        scores = {b: self.score(self.calls[b], keep) for b in candidates}
        within = [b for b in candidates if scores[b].false_alarm_rate <= max_false_alarms]
        if not within:
            return min(candidates, key=lambda b: scores[b].false_alarm_rate)
        return max(within, key=lambda b: (scores[b].recall, -scores[b].false_alarm_rate))


def tune(row: Row) -> bool:
    return not row.held


def held(row: Row) -> bool:
    return row.held


def _without(dataset: str, part: Keep) -> Keep:
    return lambda row: part(row) and not row.involves(dataset)


def _with(dataset: str, part: Keep) -> Keep:
    return lambda row: part(row) and row.involves(dataset)


KINDS = ("fixed", "per-collection", "margin", "lexical")
PARTS = " | ".join(
    f"{part} {measure}"
    for part in ("tune", "held")
    for measure in ("precision", "recall", "false alarms")
)


SHIPPED = Bars("fixed", DEFAULT_NO_MATCH_RULE.noise_cosine, DEFAULT_NO_MATCH_RULE.min_term_share)


def report(study: Study, max_false_alarms: float) -> str:
    lines = [
        f"No-match calls chosen on the tune parts with at most {max_false_alarms:.0%} false "
        "alarms: precision, recall (unanswerable rows called) and false alarms (answerable rows "
        "called), on the tune part and on the held part.",
        "",
        f"| noise level | bars chosen on every dataset | {PARTS} |",
        "|---|---|" + "---:|" * 6,
    ]
    for name in KINDS:
        bars = study.choose(tune, max_false_alarms, (name,))
        cells = [study.score(study.calls[bars], part).cells() for part in (tune, held)]
        lines.append(f"| {name} | {bars.text()} | " + " | ".join(cells) + " |")
    lines += ["", *shipped_table(study)]
    lines += [
        "",
        "Leave one dataset out: bars chosen on the tune parts of the rows without it, scored on "
        "the rows with it (its queries anywhere, any queries in its collection).",
        "",
        f"| left out | noise level | bars chosen | {PARTS} |",
        "|---|---|---|" + "---:|" * 6,
    ]
    for dataset in study.datasets:
        for name in KINDS:
            bars = study.choose(_without(dataset, tune), max_false_alarms, (name,))
            cells = [
                study.score(study.calls[bars], _with(dataset, part)).cells()
                for part in (tune, held)
            ]
            lines.append(f"| {dataset} | {name} | {bars.text()} | " + " | ".join(cells) + " |")
    lines += ["", *cosine_table(study)]
    return "\n".join(lines) + "\n"


def shipped_table(study: Study) -> list[str]:
    """The engine's bars (``DEFAULT_NO_MATCH_RULE``) replayed on every dataset's rows, with the
    share of related rows they call; and, when the cache was collected with the same bars, how
    many answers the replay and the engine's own ``matched`` disagree on (0: the replay is the
    engine)."""
    calls = study.called(SHIPPED)
    lines = [
        f"The engine's bars, {SHIPPED.text()}:",
        "",
        f"| rows with | {PARTS} | related rows called |",
        "|---|" + "---:|" * 7,
    ]
    for dataset in [*study.datasets, None]:

        def part(base: Keep, dataset: str | None = dataset) -> Keep:
            return base if dataset is None else _with(dataset, base)

        cells = [study.score(calls, part(p)).cells() for p in (tune, held)]
        related = [c for row, c in zip(study.rows, calls, strict=True)
                   if row.label == "related" and part(lambda _: True)(row)]  # fmt: skip
        share = (
            f"{sum(related) / len(related):.3f} ({sum(related)}/{len(related)})" if related else "–"
        )
        lines.append(f"| {dataset or 'every dataset'} | " + " | ".join(cells) + f" | {share} |")
    rule = DEFAULT_NO_MATCH_RULE
    if study.default_rule == {
        "noise_cosine": rule.noise_cosine,
        "min_term_share": rule.min_term_share,
    }:
        differ = sum(
            (not row.engine_matched) != call for row, call in zip(study.rows, calls, strict=True)
        )
        lines += ["", f"Answers where the replay and the engine's `matched` differ: {differ}."]
    return lines


def cosine_table(study: Study) -> list[str]:
    """The best hit's cosine per collection: answerable against unanswerable queries
    (median, 95th and 99th percentile), beside the collection's document-to-document μ and σ."""
    lines = [
        "| collection | μ, σ of document cosines | best cosine, answerable: p5 / median | "
        "unanswerable: median / p95 / p99 / max |",
        "|---|---|---|---|",
    ]
    for dataset in study.datasets:
        collection = collection_of(dataset)
        answerable = [r.best_cosine() for r in study.rows
                      if r.collection == dataset and r.label == "answerable"]  # fmt: skip
        unanswerable = [r.best_cosine() for r in study.rows
                        if r.collection == dataset and r.label == "unanswerable"]  # fmt: skip
        mean, sd = study.noise[collection]
        a = np.percentile(answerable, [5, 50])
        u = np.percentile(unanswerable, [50, 95, 99, 100])
        lines.append(
            f"| {collection} | {mean:.3f}, {sd:.3f} | {a[0]:.3f} / {a[1]:.3f} | "
            f"{u[0]:.3f} / {u[1]:.3f} / {u[2]:.3f} / {u[3]:.3f} |"
        )
    return lines


# --- command line ---------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m anchorgraph.evaluation.no_match")
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect", help="ingest the corpora and search every pair")
    gather.add_argument("datasets", type=Path, help="the folder holding the dev splits")
    gather.add_argument(
        "--split", dest="splits", type=split_spec, action="append", default=None,
        metavar="FOLDER:SPLIT:DOMAIN",
        help="a BEIR folder of DATASETS, the split its queries are judged in and its domain "
        "(repeat; two domains at least); by default the five dev splits",
    )  # fmt: skip
    gather.add_argument("--out", type=Path, default=Path("benchmarks/out/no_match.json.gz"))
    gather.add_argument("--max-queries", type=int, default=100, help="per split (seed 0)")
    gather.add_argument(
        "--max-documents", type=int, default=None, help="slice each corpus to this many"
    )
    gather.add_argument("--neo4j-home", type=Path, default=None)
    gather.add_argument("--keep-server", action="store_true")
    gather.add_argument(
        "--link-titles", action="store_true", help="link each collection's title mentions"
    )
    show = commands.add_parser("report", help="choose the bars and print the tables")
    show.add_argument("cache", type=Path)
    show.add_argument("--max-false-alarms", type=float, default=0.01)
    show.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    console = Console()
    if args.command == "collect":
        path = collect(
            args.datasets, args.out, console, splits_named=dict(args.splits or SPLITS),
            max_queries=args.max_queries,
            max_documents=args.max_documents, neo4j_home=args.neo4j_home,
            keep_server=args.keep_server, link_titles=args.link_titles,
        )  # fmt: skip
        console.print(f"Wrote {path}.")
        return
    with gzip.open(args.cache, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    markdown = report(Study(data, grid()), args.max_false_alarms)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(markdown)
    console.print(markdown, markup=False, highlight=False)


if __name__ == "__main__":
    main()
