"""BEIR-format datasets: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``.

A split is the queries that have qrels in ``qrels/<split>.tsv``; ``queries.jsonl`` may hold the
queries of every split (NFCorpus, SciFact), so it is always filtered by the qrels. The qrels are
per document, so evaluation is document-level.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from anchorgraph import SourceDocument
from anchorgraph.engine import read_beir_corpus

Qrels = dict[str, dict[str, int]]  # query id → document id → graded relevance


@dataclass(frozen=True)
class CorpusDocument:
    """One corpus line, as given (not normalised)."""

    id: str
    title: str
    text: str

    @property
    def full_text(self) -> str:
        """Title and text in one field, the BEIR convention (Anserini "flat", MTEB)."""
        return f"{self.title}\n\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class EvalQuery:
    id: str
    text: str


@dataclass(frozen=True)
class BeirSplit:
    """The queries of one split with their qrels, and the corpus they are judged against."""

    name: str  # the dataset folder's name, e.g. "scifact"
    split: str
    root: Path
    corpus: dict[str, CorpusDocument]
    queries: list[EvalQuery]
    qrels: Qrels  # only the queries in ``queries``

    def subset(self, query_ids: Collection[str], document_ids: Collection[str]) -> BeirSplit:
        """A smaller split: these queries, and a corpus of these documents (kept in order)."""
        keep_queries = set(query_ids)
        keep_documents = set(document_ids)
        return BeirSplit(
            name=self.name,
            split=self.split,
            root=self.root,
            corpus={i: d for i, d in self.corpus.items() if i in keep_documents},
            queries=[q for q in self.queries if q.id in keep_queries],
            qrels={q: dict(r) for q, r in self.qrels.items() if q in keep_queries},
        )


def available_splits(root: Path) -> list[str]:
    """The splits that have qrels in the folder."""
    return sorted(path.stem for path in (root / "qrels").glob("*.tsv"))


def load_corpus(root: Path) -> dict[str, CorpusDocument]:
    """``corpus.jsonl`` in file order."""
    corpus: dict[str, CorpusDocument] = {}
    with (root / "corpus.jsonl").open(encoding="utf-8-sig") as lines:
        for line in lines:
            if not line.strip():
                continue
            record = json.loads(line)
            doc_id = str(record["_id"])
            corpus[doc_id] = CorpusDocument(
                doc_id, str(record.get("title") or ""), str(record.get("text") or "")
            )
    return corpus


def load_queries(root: Path) -> dict[str, str]:
    """``queries.jsonl``: query id → text, in file order."""
    queries: dict[str, str] = {}
    with (root / "queries.jsonl").open(encoding="utf-8-sig") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                queries[str(record["_id"])] = str(record["text"])
    return queries


def load_qrels(root: Path, split: str) -> Qrels:
    """``qrels/<split>.tsv`` (header ``query-id corpus-id score``)."""
    path = root / "qrels" / f"{split}.tsv"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} does not exist; splits with qrels here: "
            f"{', '.join(available_splits(root)) or 'none'}"
        )
    qrels: Qrels = {}
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t")
        for row in rows:
            if not row or row[0] == "query-id":
                continue
            query_id, doc_id, score = row[0], row[1], int(row[2])
            qrels.setdefault(query_id, {})[doc_id] = score
    return qrels


def load_split(
    root: Path, split: str, *, max_queries: int | None = None, seed: int = 0
) -> BeirSplit:
    """The queries of ``split`` that have at least one relevant document.

    Args:
        root: The dataset folder.
        split: A qrels file stem (``train``, ``dev``, ...).
        max_queries: Keep a random sample of this many queries (file order is kept).
        seed: The sample's seed.

    Raises:
        FileNotFoundError: No such folder, corpus or qrels file.
        ValueError: A qrels query is missing from ``queries.jsonl``.
    """
    root = root.resolve()
    qrels = {q: r for q, r in load_qrels(root, split).items() if any(v > 0 for v in r.values())}
    texts = load_queries(root)
    if missing := [q for q in qrels if q not in texts]:
        raise ValueError(f"{len(missing)} qrels queries are not in queries.jsonl: {missing[:5]}")
    queries = [EvalQuery(q, text) for q, text in texts.items() if q in qrels]
    if max_queries is not None and max_queries < len(queries):
        chosen = set(random.Random(seed).sample([q.id for q in queries], max_queries))
        queries = [q for q in queries if q.id in chosen]
    kept = {q.id for q in queries}
    return BeirSplit(
        name=root.name,
        split=split,
        root=root,
        corpus=load_corpus(root),
        queries=queries,
        qrels={q: r for q, r in qrels.items() if q in kept},
    )


def source_documents(
    split: BeirSplit, *, title_in_text: bool, max_bytes: int = 5_000_000
) -> list[SourceDocument]:
    """The split's corpus as the project's BEIR reader gives it, ready for the ``Ingestor``.

    Args:
        split: The split (its corpus may be a subset of the file's).
        title_in_text: Put the title at the start of the text, the BEIR convention; without
            it the title is only the document's ``title`` property, which no search path reads.
        max_bytes: Largest accepted corpus line.
    """
    documents = _read(split.root, split.corpus.keys(), max_bytes)
    if not title_in_text:
        return documents
    return [
        replace(document, text=f"{document.title}\n\n{document.text}")
        if document.title
        else document
        for document in documents
    ]


def _read(root: Path, ids: Iterable[str], max_bytes: int) -> list[SourceDocument]:
    wanted = set(ids)
    return [d for d in read_beir_corpus(root, max_bytes=max_bytes) if d.id in wanted]
