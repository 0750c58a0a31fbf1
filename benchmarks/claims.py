"""How fast does the rule claim extractor run? Chunks/s on one core, against ≥ 500.

Not a timed test. It reads SciFact abstracts (title and text, or any BEIR ``corpus.jsonl`` given
with ``--corpus``), cuts each into chunks of ``--chunk-words`` words (150 by default, about the
200 model tokens of an ingestion chunk; cut by words, not by sentences or the tokenizer, since
only the amount of text per chunk matters here), and runs
``anchorgraph.loaders.claims.RuleClaimExtractor`` over ``--chunks`` of them ``--repeats`` times
after one unmeasured warm-up pass. The process is pinned to one CPU where the OS allows
(``os.sched_setaffinity``): the extractor is pure Python, so one core is all it would get in
ingestion anyway.

It prints the median, fastest and slowest chunks/s, claims per chunk, what was left out per chunk
by reason (question, anecdote, hedged, fragment), the ``prob_fact`` distribution (quartiles and
a histogram), how often each scoring feature fires, the target line, and one line of JSON.
``--show N`` also prints every claim and rejection of the first chunk of the first N abstracts,
for judging the quality by eye.

    .venv/bin/python -m benchmarks.claims
    .venv/bin/python -m benchmarks.claims --chunks 5000 --repeats 9 --show 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter
from pathlib import Path

from anchorgraph.loaders.claims import RuleClaimExtractor

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "datasets" / "scifact" / "corpus.jsonl"
TARGET_CHUNKS_S = 500.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Rule claim extraction speed, chunks/s.")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="BEIR corpus.jsonl.")
    parser.add_argument("--chunks", type=int, default=3000, help="Chunks per pass (≥ 2,000).")
    parser.add_argument("--chunk-words", type=int, default=150, help="Words per chunk.")
    parser.add_argument("--repeats", type=int, default=5, help="Measured passes.")
    parser.add_argument("--show", type=int, default=0, help="Print claims of N abstracts.")
    args = parser.parse_args(argv)
    if args.chunks < 1 or args.chunk_words < 1 or args.repeats < 1 or args.show < 0:
        parser.error("--chunks, --chunk-words and --repeats must be at least 1, --show ≥ 0")
    return args


def read_chunks(corpus: Path, limit: int, words_per_chunk: int) -> tuple[list[str], list[int]]:
    """``limit`` chunks of ``words_per_chunk`` words, and the index of each abstract's first
    chunk. An abstract's remainder shorter than half a chunk joins its last chunk, so chunks are
    ``words_per_chunk`` to 1.5 × ``words_per_chunk`` words, or a whole shorter abstract."""
    chunks: list[str] = []
    firsts: list[int] = []
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            title = record.get("title", "").strip()
            if title and title[-1] not in ".!?":
                title += "."  # the title as a sentence of its own
            words = f"{title} {record.get('text', '')}".split()
            firsts.append(len(chunks))
            cuts = list(range(0, len(words), words_per_chunk))
            if len(cuts) > 1 and len(words) - cuts[-1] < words_per_chunk // 2:
                cuts.pop()
            for start, end in zip(cuts, [*cuts[1:], len(words)], strict=True):
                chunks.append(" ".join(words[start:end]))
            if len(chunks) >= limit:
                break
    return chunks[:limit], [first for first in firsts if first < limit]


def pin_to_one_core() -> str:
    """Pin this process to one of the CPUs it may use; say which, or why not."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity here)"
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    pinned = pin_to_one_core()
    chunks, firsts = read_chunks(args.corpus, args.chunks, args.chunk_words)
    extractor = RuleClaimExtractor()

    extractor.extract(chunks)  # warm-up: regex caches, imports
    rates: list[float] = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        extractor.extract(chunks)
        rates.append(len(chunks) / (time.perf_counter() - started))

    claims_per_chunk: list[int] = []
    rejections: Counter[str] = Counter()
    features: Counter[str] = Counter()
    scores: list[float] = []
    for chunk in chunks:
        claims, rejected = extractor.analyse(chunk)
        claims_per_chunk.append(len(claims))
        rejections.update(rejection.reason for rejection in rejected)
        for claim in claims:
            scores.append(claim.prob_fact)
            features.update(claim.features)

    if args.show:
        for number, first in enumerate(firsts[: args.show], 1):
            claims, rejected = extractor.analyse(chunks[first])
            print(f"\n--- abstract {number}, first chunk: {chunks[first][:100]}…")
            for claim in claims:
                print(f"  {claim.prob_fact:.2f}  {claim.text}  [{', '.join(claim.features)}]")
            for rejection in rejected:
                print(f"  ✗ {rejection.reason:8} {rejection.text}")

    median = statistics.median(rates)
    words = sum(len(chunk.split()) for chunk in chunks) / len(chunks)
    quartiles = statistics.quantiles(scores, n=4) if len(scores) > 1 else [0.0, 0.0, 0.0]
    histogram = Counter(min(int(score * 10), 9) for score in scores)
    met = median >= TARGET_CHUNKS_S
    print(
        f"\n{len(chunks)} chunks of {words:.0f} words on average from {args.corpus.name} "
        f"({len(firsts)} abstracts), {args.repeats} passes, {pinned}, "
        f"signature {extractor.signature}"
    )
    print(
        f"chunks/s: median {median:.0f}, fastest {max(rates):.0f}, slowest {min(rates):.0f} "
        f"({1000 / median:.2f} ms per chunk)"
    )
    print(
        f"claims per chunk: {statistics.mean(claims_per_chunk):.2f} "
        f"(median {statistics.median(claims_per_chunk):.0f}, "
        f"none in {claims_per_chunk.count(0)} chunks)"
    )
    left_out = ", ".join(
        f"{reason} {count / len(chunks):.2f}" for reason, count in rejections.most_common()
    )
    print(f"left out per chunk: {left_out or 'nothing'}")
    print(
        f"prob_fact: min {min(scores):.2f}, Q1 {quartiles[0]:.2f}, median {quartiles[1]:.2f}, "
        f"Q3 {quartiles[2]:.2f}, max {max(scores):.2f}, mean {statistics.mean(scores):.3f}"
    )
    for decile in range(2, 10):
        share = histogram[decile] / len(scores)
        upper = "1.0]" if decile == 9 else f"{(decile + 1) / 10:.1f})"
        print(f"  [{decile / 10:.1f}, {upper} {share:6.1%} {'#' * round(share * 60)}")
    fired = ", ".join(f"{name} {count / len(scores):.0%}" for name, count in features.most_common())
    print(f"features fired (share of claims): {fired}")
    print(f"target ≥ {TARGET_CHUNKS_S:.0f} chunks/s: {'met' if met else 'NOT met'}")
    summary = {
        "chunks": len(chunks),
        "words_per_chunk": round(words, 1),
        "repeats": args.repeats,
        "chunks_per_s": round(median),
        "chunks_per_s_fastest": round(max(rates)),
        "chunks_per_s_slowest": round(min(rates)),
        "claims_per_chunk": round(statistics.mean(claims_per_chunk), 3),
        "rejections_per_chunk": {r: round(c / len(chunks), 3) for r, c in rejections.items()},
        "prob_fact_quartiles": [round(q, 3) for q in quartiles],
        "prob_fact_mean": round(statistics.mean(scores), 3),
        "target_chunks_per_s": TARGET_CHUNKS_S,
        "target_met": met,
        "signature": extractor.signature,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
