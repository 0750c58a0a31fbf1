"""A sync's last line: a dry run says what it would do, a sync what it did (from what was written
and deleted, not from the plan)."""

from anchorgraph.loaders.ingest import IngestStats, Refusal
from anchorgraph.loaders.sync import SyncPlan, SyncReport

PLAN = SyncPlan(
    collection="wiki",
    folder_uri="file:///wiki",
    add=["new.md", "other.md"],
    update=["index.md"],
    unchanged=["a.md", "b.md", "c.md"],
    delete=["old.md"],
    kept=["from-elsewhere.md"],
)


def test_a_dry_run_says_what_it_would_do() -> None:
    assert PLAN.summary() == (
        "Would add 2, update 1 and delete 1 documents: 3 unchanged, 0 to refuse (another "
        "origin, or another id; --replace replaces), 1 from elsewhere kept"
    )
    assert "0 to replace" in PLAN.summary(replace=True)


def test_a_sync_says_what_it_did_in_the_past_tense() -> None:
    # One of the two files to add was taken by another writer meanwhile: refused, not added.
    refused = Refusal("other.md", "file:///wiki/other.md", "file:///elsewhere/other.md")
    # The plan's three unchanged files were not read (their revision is the stored one).
    stats = IngestStats(collection="wiki", written=2, replaced=1, refused=[refused])
    assert SyncReport(PLAN, stats, deleted=1).summary() == (
        "Synced: 1 added, 1 updated, 1 deleted, 3 unchanged, 1 refused (another origin, or "
        "another id; --replace replaces), 1 from elsewhere kept"
    )
    nothing_refused = IngestStats(collection="wiki", written=3, replaced=1)
    assert SyncReport(PLAN, nothing_refused, deleted=1).summary() == (
        "Synced: 2 added, 1 updated, 1 deleted, 3 unchanged, 0 refused, 1 from elsewhere kept"
    )
