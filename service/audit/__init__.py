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

from anchorgraph.audit.blindness import BlindnessAudit, Condition, blindness_audit, plot_blindness
from anchorgraph.audit.coverage import CoverageAudit, coverage_audit, plot_coverage, read_claims
from anchorgraph.audit.length import LengthAudit, length_audit, pearson, plot_length
from anchorgraph.audit.nodes import FdNode, read_nodes
from anchorgraph.audit.tiers import TierAudit, plot_tiers, tier_audit

__all__ = [
    "BlindnessAudit",
    "Condition",
    "CoverageAudit",
    "FdNode",
    "LengthAudit",
    "TierAudit",
    "blindness_audit",
    "coverage_audit",
    "length_audit",
    "pearson",
    "plot_blindness",
    "plot_coverage",
    "plot_length",
    "plot_tiers",
    "read_claims",
    "read_nodes",
    "tier_audit",
]
