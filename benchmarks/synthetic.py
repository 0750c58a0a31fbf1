"""A synthetic corpus for latency at scale: English-like text over a seeded random vocabulary.

Only latency is measured on it, never relevance. It yields batches ready for
``anchorgraph.loaders.graph_writer.write_documents(graph, collection, *batch)`` (documents of 1–9
chunks, with the entities and codes that the gazetteer and the identifier patterns would have found,
and triples between entities of a chunk), and queries drawn from the same distribution. Its ids are
those a user knows (``synthetic-000001``); ``graph_rows`` makes them keys of the collection the
batches are written into.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from anchorgraph.embedding import Vectors
from anchorgraph.loaders.graph_writer import EmbeddedDocument, EntityRecord, merge_entities
from anchorgraph.loaders.ingest import document_vector
from anchorgraph.loaders.model import Chunk, EntityMention, SourceDocument, Triple
from anchorgraph.text.identifiers import IDENTIFIER, find_identifiers, normalise_entity_id
from anchorgraph.text.terms import STOP_WORDS, index_terms

SOURCE = "anchorgraph-bench-synthetic"  # the documents' ``source``, to find them again

# English function words, roughly by frequency; about 40% of running English text.
FUNCTION_WORDS = (
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "with", "as", "on", "by", "was",
    "are", "from", "which", "this", "be", "were", "at", "or", "an", "these", "than", "between",
    "after", "not", "both", "their", "its", "has", "have", "had", "been", "also", "may", "can",
    "but", "into", "more", "such", "when", "during", "over", "most", "other", "only", "under",
    "each", "all", "some", "within",
)  # fmt: skip
ONSETS = (
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
    "br", "cr", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "ch", "sp", "sl", "cl",
    "bl", "gl", "qu", "sc", "sk", "sm", "sn", "str", "", "", "",
)  # fmt: skip
VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "io", "ou", "ia")
CODAS = ("", "", "", "", "", "n", "r", "s", "l", "t", "m", "nd", "st", "rk", "ng", "x", "ct")
ENTITY_SUFFIXES = ("Labs", "Corp", "Institute", "Group", "Systems", "Foundation", "University")
ENTITY_TYPES = ("ORG", "PERSON", "GPE", "PRODUCT")
PREDICATES = ("acquire", "partner with", "base in", "supply", "fund", "lead", "study")
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"

Embed = Callable[[Sequence[str]], Vectors]
# One batch for write_documents (after the graph and the collection): documents, their
# entities, and the entities' vectors.
Batch = tuple[list[EmbeddedDocument], list[EntityRecord], Vectors]


@dataclass(frozen=True)
class SyntheticEntity:
    id: str
    name: str
    type: str


class SyntheticCorpus:
    """English-like text from a seeded random vocabulary.

    Content words follow a Zipf–Mandelbrot law, p(rank r) ∝ 1/(r + 10): the most common content
    word is about 1% of content tokens and so in most chunks, rank 100 in ~10% of chunks, rank
    1,000 in ~1% — roughly the shape of English after stop words. Function words fill ~40% of
    the tokens (the TF-IDF tokenizer and Lucene's english analyzer drop most of them). Codes
    ("QX-1234") and named entities ("Brastor Labs", "Mira Quell") recur with Zipf-like
    frequencies, so some are rare and a few are in thousands of chunks.
    """

    vocabulary_size = 50_000
    n_entities = 2_000
    n_codes = 20_000
    n_tags = 60
    n_folders = 200

    def __init__(self, seed: int, embed: Embed | None = None) -> None:
        """Args:
        embed: the embedding model, for vectors of the generated text; None: seeded random unit
            vectors (fast, but the worst case for an HNSW index: no clusters).
        """
        self.seed = seed
        self.embed = embed
        rng = random.Random(seed)
        words: list[str] = []
        seen = set(STOP_WORDS) | set(FUNCTION_WORDS)
        while len(words) < self.vocabulary_size:
            rank = len(words)
            syllables = (
                rng.choice((1, 1, 2))
                if rank < 300
                else rng.choice((1, 2, 2))
                if rank < 5_000
                else rng.choice((2, 2, 3))
            )
            word = "".join(
                rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                for _ in range(syllables)
            )
            if len(word) > 2 and word not in seen:
                seen.add(word)
                words.append(word)
        self.words = np.array(words, dtype=object)
        self.word_cdf = _zipf_cdf(self.vocabulary_size, 11.0)
        self.function_words = np.array(FUNCTION_WORDS, dtype=object)
        self.function_cdf = _zipf_cdf(len(FUNCTION_WORDS), 2.0)

        entities: list[SyntheticEntity] = []
        names: set[str] = set()
        while len(entities) < self.n_entities:
            kind = ENTITY_TYPES[len(entities) % len(ENTITY_TYPES)]
            first = rng.choice(words[2_000:20_000]).capitalize()
            second = (
                rng.choice(ENTITY_SUFFIXES)
                if kind == "ORG"
                else rng.choice(words[5_000:30_000]).capitalize()
            )
            name = f"{first} {second}"
            if name not in names:
                names.add(name)
                entities.append(SyntheticEntity(normalise_entity_id(name), name, kind))
        self.entities = entities
        self.entity_cdf = _zipf_cdf(self.n_entities, 3.0)

        codes: set[str] = set()
        while len(codes) < self.n_codes:
            letters = rng.choice(CODE_LETTERS) + rng.choice(CODE_LETTERS)
            codes.add(f"{letters}-{rng.randrange(1000, 10000)}")
        self.codes = sorted(codes)
        rng.shuffle(self.codes)
        self.code_cdf = _zipf_cdf(self.n_codes, 5.0)
        self.tags = [str(w) for w in words[100 : 100 + self.n_tags]]
        self.folders = [f"area-{i % 20:02d}/topic-{i:03d}" for i in range(self.n_folders)]

    # --- text ---------------------------------------------------------------------------------
    def sentence(self, rng: np.random.Generator, n_words: int) -> list[str]:
        content = self.words[_pick(rng, self.word_cdf, n_words)]
        function = self.function_words[_pick(rng, self.function_cdf, n_words)]
        use_function = rng.random(n_words) < 0.4
        return [str(f if u else c) for c, f, u in zip(content, function, use_function, strict=True)]

    def chunk_text(self, rng: np.random.Generator) -> tuple[str, list[SyntheticEntity], list[str]]:
        """~150 words in sentences of 8–24 words, with the entities and codes placed in it."""
        target = int(min(220, max(60, rng.normal(150, 25))))
        n_entities = int(rng.poisson(0.8))
        n_codes = int(rng.random() < 0.3) + int(rng.random() < 0.06)
        entities = [self.entities[i] for i in _pick(rng, self.entity_cdf, n_entities)]
        codes = [self.codes[i] for i in _pick(rng, self.code_cdf, n_codes)]
        tokens = self.sentence(rng, target)
        for insert in [entity.name for entity in entities] + codes:
            tokens.insert(int(rng.integers(0, len(tokens) + 1)), insert)
        lengths = rng.integers(8, 25, size=len(tokens) // 8 + 1)
        sentences = []
        at = 0
        for length in lengths:
            if at >= len(tokens):
                break
            words = " ".join(tokens[at : at + int(length)])
            sentences.append(words[0].upper() + words[1:] + ".")
            at += int(length)
        return " ".join(sentences), entities, codes

    def queries(self, n: int, seed: int) -> list[str]:
        """Phrases of 3–9 words from the same distribution; a quarter also name a code of the
        corpus, a quarter an entity of the corpus (both weighted as in the corpus)."""
        rng = np.random.default_rng(seed)
        out = []
        for number in range(n):
            words = self.sentence(rng, int(rng.integers(3, 10)))
            if number % 4 == 1:
                code = self.codes[int(_pick(rng, self.code_cdf, 1)[0])]
                words.insert(int(rng.integers(0, len(words) + 1)), code)
            elif number % 4 == 2:
                entity = self.entities[int(_pick(rng, self.entity_cdf, 1)[0])]
                words.insert(int(rng.integers(0, len(words) + 1)), entity.name)
            out.append(" ".join(words))
        return out

    # --- documents ----------------------------------------------------------------------------
    def batches(self, n_chunks: int, dimension: int, documents_per_batch: int) -> Iterator[Batch]:
        """Batches of documents (1–9 chunks, 5 on average) ready for ``write_documents``, with
        their entities and entity vectors, ``n_chunks`` chunks in all."""
        rng = np.random.default_rng(self.seed)
        written = 0
        number = 0
        while written < n_chunks:
            batch: list[EmbeddedDocument] = []
            while len(batch) < documents_per_batch and written < n_chunks:
                n = min(int(rng.integers(1, 10)), n_chunks - written)
                batch.append(self._document(rng, number, n, dimension))
                written += n
                number += 1
            records = merge_entities(batch)
            if self.embed is None:
                yield batch, records, unit_vectors(rng, len(records), dimension)
            else:
                yield self._embedded(batch), records, self.embed([r.name for r in records])

    def _document(
        self, rng: np.random.Generator, number: int, n_chunks: int, dimension: int
    ) -> EmbeddedDocument:
        doc_id = f"synthetic-{number:06d}"
        texts: list[str] = []
        mentions: list[EntityMention] = []
        triples: list[Triple] = []
        chunks: list[Chunk] = []
        offset = 0
        for ordinal in range(n_chunks):
            text, entities, codes = self.chunk_text(rng)
            chunk_id = f"{doc_id}#{ordinal}"
            chunks.append(
                Chunk(
                    id=chunk_id,
                    document_id=doc_id,
                    ordinal=ordinal,
                    text=text,
                    start=offset,
                    end=offset + len(text),
                    n_tokens=int(len(text.split()) * 1.35),
                )
            )
            offset += len(text) + 1
            texts.append(text)
            # What the gazetteer and the identifier patterns would have found.
            for entity, count in Counter(entities).items():
                mentions.append(EntityMention(entity.id, entity.name, entity.type, chunk_id, count))
            for code, count in Counter(codes).items():
                mentions.append(EntityMention(code.lower(), code, IDENTIFIER, chunk_id, count))
            distinct = list(dict.fromkeys(entities))
            if len(distinct) >= 2 and rng.random() < 0.5:
                subject, obj = distinct[0], distinct[1]
                predicate = PREDICATES[int(rng.integers(0, len(PREDICATES)))]
                text_of = f"{subject.name} {predicate} {obj.name}"
                triples.append(Triple(subject.id, predicate, obj.id, text_of, chunk_id))
        text = " ".join(texts)
        title_words = self.sentence(rng, int(rng.integers(3, 7)))
        tag_picks = rng.integers(0, self.n_tags, int(rng.integers(0, 3)))
        source = SourceDocument(
            id=doc_id,
            text=text,
            title=" ".join(title_words).capitalize(),
            uri=f"synthetic://{doc_id}",
            source=SOURCE,
            source_type="synthetic",
            folder=self.folders[number % self.n_folders],
            tags=tuple(dict.fromkeys(self.tags[int(i)] for i in tag_picks)),
            size_bytes=len(text.encode()),
        )
        chunk_vectors = unit_vectors(rng, n_chunks, dimension)
        return EmbeddedDocument(
            source=source,
            content_hash=f"synthetic-{self.seed}-{number}",
            n_tokens=sum(c.n_tokens for c in chunks),
            identifiers=tuple(find_identifiers(text)),
            chunks=chunks,
            chunk_identifiers=[tuple(find_identifiers(t)) for t in texts],
            chunk_terms=[index_terms(t) for t in texts],
            mentions=mentions,
            triples=triples,
            vector=document_vector(chunk_vectors),
            chunk_vectors=chunk_vectors,
            triple_vectors=unit_vectors(rng, len(triples), dimension),
        )

    def _embedded(self, batch: list[EmbeddedDocument]) -> list[EmbeddedDocument]:
        """The batch with the model's vectors for chunks, documents and triples (one model call
        for all chunks of the batch)."""
        assert self.embed is not None
        vectors = self.embed([c.text for d in batch for c in d.chunks])
        out: list[EmbeddedDocument] = []
        start = 0
        for d in batch:
            chunk_vectors = vectors[start : start + len(d.chunks)]
            start += len(d.chunks)
            triple_vectors = (
                self.embed([t.text for t in d.triples]) if d.triples else d.triple_vectors
            )
            out.append(
                dataclasses.replace(
                    d,
                    chunk_vectors=chunk_vectors,
                    vector=document_vector(chunk_vectors),
                    triple_vectors=triple_vectors,
                )
            )
        return out


def unit_vectors(rng: np.random.Generator, n: int, dimension: int) -> Vectors:
    """``n`` seeded random unit vectors, float32."""
    vectors = rng.standard_normal((n, dimension)).astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: Vectors = vectors / np.maximum(norms, np.float32(1e-12))
    return unit


def _zipf_cdf(n: int, offset: float) -> npt.NDArray[np.float64]:
    """Cumulative p(rank r) ∝ 1/(r + offset), for drawing ranks with ``_pick``."""
    weights = 1.0 / (np.arange(n) + offset)
    cdf: npt.NDArray[np.float64] = np.cumsum(weights / weights.sum())
    return cdf


def _pick(rng: np.random.Generator, cdf: npt.NDArray[np.float64], n: int) -> npt.NDArray[np.intp]:
    """``n`` ranks drawn from a cumulative distribution."""
    picks: npt.NDArray[np.intp] = np.minimum(np.searchsorted(cdf, rng.random(n)), len(cdf) - 1)
    return picks
