"""The FD* audits (docs/design.md §3), each a pure computation over what the graph holds, a
typed result that the CLI (``anchorgraph audit``) prints and the API (``/audit``) returns, and a
PNG:

* ``length``: Pearson r and p of FD_raw and of FD* against length, per level;
* ``tiers``: FD* per source type and the SD across the types' means (the "ghost audit");
* ``coverage``: the share of benchmark claims that some chunk covers (cosine and shared
  keywords), over the full corpus and over a seeded sample;
* ``blindness``: the source types of the top documents under cosine, BM25 and FD*-optimised
  retrieval for one query.

See ``docs/audits.md`` for the formulas, the figures they are compared with, and how to read
the plots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anchorgraph.audit.blindness import BlindnessAudit as BlindnessAudit
    from anchorgraph.audit.blindness import Condition as Condition
    from anchorgraph.audit.blindness import blindness_audit as blindness_audit
    from anchorgraph.audit.blindness import plot_blindness as plot_blindness
    from anchorgraph.audit.coverage import CoverageAudit as CoverageAudit
    from anchorgraph.audit.coverage import coverage_audit as coverage_audit
    from anchorgraph.audit.coverage import plot_coverage as plot_coverage
    from anchorgraph.audit.coverage import read_claims as read_claims
    from anchorgraph.audit.length import LengthAudit as LengthAudit
    from anchorgraph.audit.length import length_audit as length_audit
    from anchorgraph.audit.length import pearson as pearson
    from anchorgraph.audit.length import plot_length as plot_length
    from anchorgraph.audit.nodes import FdNode as FdNode
    from anchorgraph.audit.nodes import read_nodes as read_nodes
    from anchorgraph.audit.tiers import TierAudit as TierAudit
    from anchorgraph.audit.tiers import plot_tiers as plot_tiers
    from anchorgraph.audit.tiers import tier_audit as tier_audit

# Where each name lives, imported when first used: `anchorgraph audit length` reads numbers and
# draws them, and imports the retrieval engine `blindness` runs no more (0.17 of its 1.8 CPU
# seconds).
_LAZY = {
    "BlindnessAudit": "blindness",
    "Condition": "blindness",
    "blindness_audit": "blindness",
    "plot_blindness": "blindness",
    "CoverageAudit": "coverage",
    "coverage_audit": "coverage",
    "plot_coverage": "coverage",
    "read_claims": "coverage",
    "LengthAudit": "length",
    "length_audit": "length",
    "pearson": "length",
    "plot_length": "length",
    "FdNode": "nodes",
    "read_nodes": "nodes",
    "TierAudit": "tiers",
    "plot_tiers": "tiers",
    "tier_audit": "tiers",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"anchorgraph.audit.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'anchorgraph.audit' has no attribute {name!r}")
