"""The offline rule of benchmarks/tfidf_budget.py: which query terms walk their postings
(cypher/search/tfidf_chunks.cypher's finders), on authored document frequencies."""

from __future__ import annotations

from benchmarks.tfidf_budget import finders

# 10,000 chunks: a term in more than 100 (1 %) is common.
DF = {"rare": 2.0, "scarce": 6.0, "usual": 80.0, "frequent": 500.0, "everywhere": 5_000.0}
N = 10_000.0


def test_rarest_first_within_the_budget_and_common_terms_never() -> None:
    walk = finders(DF, ["usual", "rare", "scarce", "frequent"], N, 100, rarest_free=False)
    assert walk.finders == ("rare", "scarce", "usual")  # 2 + 6 + 80 = 88 postings
    assert walk.postings == 88
    assert finders(DF, ["usual", "rare", "scarce"], N, 10, rarest_free=False).finders == (
        "rare",
        "scarce",
    )


def test_the_rarest_term_keeps_to_the_budget_unless_free() -> None:
    assert finders(DF, ["scarce", "usual"], N, 5, rarest_free=False).finders == ()
    assert finders(DF, ["scarce", "usual"], N, 5, rarest_free=True).finders == ("scarce",)


def test_common_terms_walk_only_when_every_term_is_common() -> None:
    walk = finders(DF, ["frequent", "everywhere"], N, 1_000, rarest_free=False)
    assert walk.only_common and walk.finders == ("frequent",)
    assert finders(DF, ["frequent", "everywhere"], N, 100, rarest_free=False).finders == ()
    assert finders(DF, ["missing"], N, 100, rarest_free=False).finders == ()
