"""The FD* audits' statistics on inputs small enough to work out by hand (service/audit)."""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

import pytest

from anchorgraph.audit.blindness import Condition, composition, condition_options
from anchorgraph.audit.coverage import Neighbour, covering, keywords, read_claims
from anchorgraph.audit.length import length_audit, pearson
from anchorgraph.audit.nodes import FdNode
from anchorgraph.audit.tiers import TierRow, sd_between, tier_audit, tier_rows
from anchorgraph.errors import InvalidInput
from anchorgraph.factual_density import BinStats, FdLevel, LengthBin, fd_star
from anchorgraph.retrieval.options import Mode


# --- Pearson -----------------------------------------------------------------------------------
def test_pearson_matches_the_hand_computed_r_and_p() -> None:
    # x̄ = 2.5, ȳ = 5: Σdxdy = 11, Σdx² = 5, Σdy² = 26, so r = 11 / √130. With n = 4 the t test
    # has 2 degrees of freedom, where the two-sided p is exactly 1 − |r|.
    result = pearson([1, 2, 3, 4], [2, 4, 5, 9])
    assert result is not None
    assert result.r == pytest.approx(11 / math.sqrt(130))
    assert result.p == pytest.approx(1 - 11 / math.sqrt(130))
    assert result.n == 4
    flipped = pearson([1, 2, 3, 4], [-2, -4, -5, -9])
    assert flipped is not None and flipped.r == pytest.approx(-result.r)


@pytest.mark.parametrize("n", [3, 4, 7, 30, 500])
def test_pearson_agrees_with_scipy(n: int) -> None:
    from scipy.stats import pearsonr  # type: ignore[import-untyped]

    rng = random.Random(n)
    for strength in (0.0, 0.3, 0.9, -0.6):
        x = [rng.gauss(0, 1) for _ in range(n)]
        y = [strength * v + rng.gauss(0, 1) for v in x]
        ours, theirs = pearson(x, y), pearsonr(x, y)
        assert ours is not None
        assert ours.r == pytest.approx(theirs.statistic, abs=1e-12)
        assert ours.p == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-300)


def test_pearson_is_undefined_for_too_few_pairs_or_a_constant_series() -> None:
    assert pearson([1, 2], [3, 4]) is None
    assert pearson([1, 2, 3], [5, 5, 5]) is None  # no ConstantInputWarning (warnings are errors)
    assert pearson([0.1, 0.1, 0.1, 0.1], [1, 2, 3, 4]) is None
    with pytest.raises(ValueError, match="lengths"):
        pearson([1, 2, 3], [1, 2])


# --- length audit ----------------------------------------------------------------------------
def binned(level: FdLevel, rows: list[tuple[int, float, LengthBin, str]]) -> list[FdNode]:
    """Nodes of one level with each bin's statistics taken from the bin's own values."""
    stats = {b: BinStats.of([fd for _, fd, bb, _ in rows if bb is b]) for b in LengthBin}
    return [
        FdNode(
            level=level,
            id=f"{level}-{i}",
            source_type=source_type,
            n_tokens=n_tokens,
            fd_raw=fd,
            length_bin=b,
            n=stats[b].n,
            total=stats[b].total,
            total_sq=stats[b].total_sq,
        )
        for i, (n_tokens, fd, b, source_type) in enumerate(rows)
    ]


# Density falls from bin to bin (the length confound), while inside each bin it goes high, low,
# high over increasing lengths: symmetric, so within every bin it does not move with length.
CONFOUNDED = [
    (10, 0.50, LengthBin.SHORT, "review"),
    (11, 0.30, LengthBin.SHORT, "trial"),
    (12, 0.50, LengthBin.SHORT, "review"),
    (20, 0.30, LengthBin.MEDIUM, "review"),
    (21, 0.10, LengthBin.MEDIUM, "trial"),
    (22, 0.30, LengthBin.MEDIUM, "review"),
    (30, 0.12, LengthBin.LONG, "review"),
    (31, 0.08, LengthBin.LONG, "trial"),
    (32, 0.12, LengthBin.LONG, "review"),
]


def test_length_audit_finds_the_confound_and_its_correction() -> None:
    nodes = binned(FdLevel.DOCUMENT, CONFOUNDED)
    audit = length_audit(nodes)
    (level,) = audit.levels
    assert level.level is FdLevel.DOCUMENT and level.n == 9 and level.unbinned == 0
    assert level.raw is not None and level.raw.r < -0.8 and level.raw.p < 0.01
    assert level.raw_confounded
    # z within each bin is (+, −, +) over (L, L+1, L+2): Σ z·(L − L̄) = 0, so r = 0 exactly.
    assert level.star is not None and level.star.r == pytest.approx(0.0, abs=1e-9)
    assert level.star.p == pytest.approx(1.0)
    assert not level.star_confounded
    assert pearson([n.fd_raw for n in nodes], [n.n_tokens for n in nodes]) == level.raw


def test_fd_star_of_a_node_is_the_service_formula_and_unbinned_nodes_are_counted() -> None:
    nodes = binned(FdLevel.CHUNK, CONFOUNDED)
    short = BinStats.of([0.5, 0.3, 0.5])
    assert nodes[0].fd_star == pytest.approx(fd_star(0.5, short))
    weighted = nodes[0].model_copy(update={"a_source": 2.0})
    assert weighted.fd_star == pytest.approx(2 * fd_star(0.5, short))
    unbinned = FdNode(level=FdLevel.CHUNK, id="new", n_tokens=50, fd_raw=0.2)
    assert unbinned.fd_star is None
    (level,) = length_audit([*nodes, unbinned]).levels
    assert (level.n, level.unbinned) == (9, 1)
    with pytest.raises(ValueError, match="alpha"):
        length_audit(nodes, alpha=0.0)


def test_length_audit_reports_each_level_and_undefined_correlations() -> None:
    one = FdNode(
        level=FdLevel.CHUNK, id="c", n_tokens=5, fd_raw=0.1, length_bin=LengthBin.SHORT, n=1
    )
    audit = length_audit([*binned(FdLevel.DOCUMENT, CONFOUNDED), one])
    assert [level.level for level in audit.levels] == [FdLevel.CHUNK, FdLevel.DOCUMENT]
    chunk = audit.levels[0]
    assert chunk.raw is None and chunk.star is None
    assert not chunk.raw_confounded and not chunk.star_confounded


# --- tier audit ------------------------------------------------------------------------------
def test_tier_rows_and_the_sd_of_their_means() -> None:
    rows = tier_rows([("b", 0.0), ("a", 1.0), ("a", 3.0), ("b", 0.0)])
    assert rows == [
        TierRow(source_type="a", n=2, mean=2.0, sd=1.0),
        TierRow(source_type="b", n=2, mean=0.0, sd=0.0),
    ]
    assert sd_between(rows) == pytest.approx(1.0)  # population SD of (2, 0)
    assert sd_between(rows[:1]) == 0.0
    assert sd_between([]) == 0.0


def test_tier_audit_flags_a_level_whose_tiers_have_equal_means() -> None:
    nodes = binned(FdLevel.DOCUMENT, CONFOUNDED)
    audit = tier_audit(nodes)
    (level,) = audit.levels
    by_type = {row.source_type: row for row in level.tiers}
    assert by_type["review"].n == 6 and by_type["trial"].n == 3
    # In each bin the two reviews sit above the mean and the trial below it.
    assert by_type["review"].mean > 0 > by_type["trial"].mean
    assert level.sd_between == pytest.approx(
        abs(by_type["review"].mean - by_type["trial"].mean) / 2
    )
    assert not level.flagged
    assert tier_audit(nodes, threshold=level.sd_between + 0.01).levels[0].flagged
    # One source type: nothing to tell apart.
    single = [node.model_copy(update={"source_type": "x"}) for node in nodes]
    assert tier_audit(single).levels[0].flagged
    with pytest.raises(ValueError, match="threshold"):
        tier_audit(nodes, threshold=-1)


# --- coverage --------------------------------------------------------------------------------
def test_keywords_drop_stop_words_and_case() -> None:
    assert keywords("Does the Exercise lower the risk of a stroke?") == {
        "exercise", "lower", "risk", "stroke",
    }  # fmt: skip


def test_covering_needs_both_the_cosine_and_the_shared_keywords() -> None:
    claim = keywords("exercise lowers stroke risk")
    neighbours = [
        Neighbour("far", 0.74, keywords("exercise lowers stroke risk")),  # cosine too low
        Neighbour("one-word", 0.90, keywords("exercise is fun")),  # 1 keyword shared
        Neighbour("edge", 0.75, keywords("stroke risk in adults")),  # both exactly at threshold
        Neighbour("best", 0.95, keywords("Exercise and stroke risk")),
    ]
    found = covering(claim, neighbours, min_cosine=0.75, min_shared=2)
    assert [(n.chunk_id, shared) for n, shared in found] == [
        ("best", ["exercise", "risk", "stroke"]),
        ("edge", ["risk", "stroke"]),
    ]
    assert [n.chunk_id for n, _ in covering(claim, neighbours, 0.75, 0)] == [
        "best", "one-word", "edge",
    ]  # fmt: skip
    assert covering(claim, neighbours, 0.96, 0) == []


def test_read_claims_from_beir_queries_and_a_csv_column(tmp_path: Path) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        '{"_id": "1", "text": "Exercise lowers risk"}\n\n{"_id": "2", "text": "  "}\n'
        '{"_id": "3", "text": "Statins and stroke"}\n',
        encoding="utf-8",
    )
    assert read_claims(queries) == ["Exercise lowers risk", "Statins and stroke"]
    table = tmp_path / "claims.csv"
    table.write_text(
        'en_claim,label\n"Can masks, worn by many, reduce infections?",0\nIs tea healthy?,1\n',
        encoding="utf-8-sig",
    )
    assert read_claims(table) == ["Can masks, worn by many, reduce infections?", "Is tea healthy?"]
    assert read_claims(table, "label") == ["0", "1"]
    with pytest.raises(InvalidInput, match="no column 'de_claim'"):
        read_claims(table, "de_claim")
    with pytest.raises(InvalidInput, match="no text field 'title'"):
        read_claims(queries, "title")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"text": "a"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"broken\.jsonl:2"):
        read_claims(broken)
    with pytest.raises(InvalidInput, match=r"\.jsonl or \.csv"):
        read_claims(tmp_path / "claims.txt")
    empty = tmp_path / "empty.csv"
    empty.write_text("en_claim\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="no claims"):
        read_claims(empty)


# HealthFC's Datensatz.csv (Vladika et al., LREC-COLING; CC BY-NC-ND 4.0, so not carried
# here) as its README describes it: UTF-8 with a byte-order mark, twelve columns, quoted fields
# that hold commas, quotes and line breaks. The rows are made up, in its layout.
HEALTHFC_COLUMNS = (
    "en_claim,en_explanation,en_top_sentences,de_claim,de_explanation,de_top_sentences,label,"
    "de_verdict,de_title,authors,date,url"
)
HEALTHFC_ROWS = [
    (
        "Can masks reduce infections when worn by many?",
        'Studies suggest fewer infections, "probably", whatever the mask.',
        "Slow spread.\nA second sentence, on its own line.",
        "Können Masken Infektionen verringern?",
        "Studien legen es nahe.",
        "Langsame Ausbreitung.",
        "0",
        "wahrscheinlich Ja",
        "Masken, Corona",
        "Anna Autorin, Bert Autor",
        "5. Dezember 2022",
        "https://medizin-transparent.at/masken",
    ),
    (
        "Does green tea help against a cold?",
        "",
        "",
        "Hilft grüner Tee gegen Erkältung?",
        "Unklar.",
        "",
        "1",
        "unklar",
        "Grüner Tee",
        "Clara Autorin",
        "1. März 2011",
        "https://medizin-transparent.at/tee",
    ),
]


def test_read_claims_reads_healthfc_english_and_german_claims(tmp_path: Path) -> None:
    table = tmp_path / "Datensatz.csv"
    with table.open("w", encoding="utf-8-sig", newline="") as handle:
        handle.write(HEALTHFC_COLUMNS + "\r\n")
        csv.writer(handle).writerows(HEALTHFC_ROWS)
    assert table.read_bytes().startswith(b"\xef\xbb\xbfen_claim,")
    assert read_claims(table) == [row[0] for row in HEALTHFC_ROWS]
    assert read_claims(table, "de_claim") == [row[3] for row in HEALTHFC_ROWS]
    assert read_claims(table, "en_top_sentences") == [HEALTHFC_ROWS[0][2]]


# --- blindness -------------------------------------------------------------------------------
def test_composition_counts_most_frequent_first() -> None:
    assert list(composition(["rct", "review", "rct", "", "review", "rct"]).items()) == [
        ("rct", 3), ("review", 2), ("", 1),
    ]  # fmt: skip


def test_condition_options_are_the_seeds_three_conditions() -> None:
    cosine = condition_options(Condition.COSINE, "q", 5, 0.5, 20, "default")
    bm25 = condition_options(Condition.BM25, "q", 5, 0.5, 20, "default")
    fd = condition_options(Condition.FD_OPTIMISED, "q", 5, 0.3, 30, "default")
    assert {cosine.level, bm25.level, fd.level} == {"document"}
    assert (cosine.mode, bm25.mode, fd.mode) == (Mode.DENSE, Mode.BM25, Mode.DENSE)
    assert not cosine.fd.rerank and not bm25.fd.rerank
    assert fd.fd.rerank and (fd.fd.weight, fd.fd.pool, fd.k) == (0.3, 30, 5)
    assert condition_options(Condition.COSINE, "q", 200, 0.5, 20, "default").k_over >= 200
    with pytest.raises(InvalidInput, match="query"):
        condition_options(Condition.COSINE, "", 5, 0.5, 20, "default")
    with pytest.raises(InvalidInput, match="fd_lambda"):
        condition_options(Condition.FD_OPTIMISED, "q", 5, 1.5, 20, "default")
