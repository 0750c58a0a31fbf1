"""The outputs of a run: ``results.json``, ``results.md`` (a table and the paired tests) and
``chart.png`` (grouped bars of NDCG@10, Recall@100 and MRR@10 per condition)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from anchorgraph.evaluation.metrics import (
    ALL_GOLD5,
    ALL_GOLD10,
    MEASURES,
    MRR10,
    NDCG10,
    RECALL5,
    RECALL10,
    RECALL100,
    TIERS5,
    Paired,
    part_mean,
    wilcoxon,
)

# FD* conditions and the condition each is measured against (the same search without FD*).
FD_BASES = {"fd-rerank": "cosine", "hybrid+fd": "hybrid", "hybrid+fd-rerank": "hybrid"}


@dataclass
class ConditionResult:
    """One condition over every query of a split."""

    name: str
    metrics: dict[str, float]  # measure → mean over the queries
    per_query: dict[str, dict[str, float]]  # measure → query id → value
    latency_ms: dict[str, float]  # p50, p95, mean
    tokens_top10: float  # mean whitespace tokens of the texts returned in the top 10
    failures: int = 0  # queries whose rank() raised (scored 0)
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def ndcg(self) -> float:
        return self.metrics[NDCG10]

    def half(self, measure: str, held: bool) -> float:
        """The mean of ``measure`` over the tune half (``held`` False) or the held-aside part."""
        return part_mean(self.per_query.get(measure, {}), held)


@dataclass
class EvalReport:
    """A whole run: what was measured, how, and the paired tests."""

    dataset: str
    split: str
    queries: int
    documents: int
    setup: dict[str, Any]
    conditions: list[ConditionResult]
    references: dict[str, str] = field(default_factory=dict)  # role → condition name
    significance: list[Paired] = field(default_factory=list)

    def condition(self, name: str) -> ConditionResult | None:
        return next((c for c in self.conditions if c.name == name), None)


def reference_names(
    conditions: list[ConditionResult], plain_hybrid: str, peers: tuple[str, ...]
) -> dict[str, str]:
    """``plain_hybrid`` and ``best_peer`` (the peer with the highest NDCG@10), when present."""
    names = {c.name for c in conditions}
    references: dict[str, str] = {}
    if plain_hybrid in names:
        references["plain_hybrid"] = plain_hybrid
    ran_peers = [c for c in conditions if c.name.split("@")[0] in peers]
    if ran_peers:
        references["best_peer"] = max(ran_peers, key=lambda c: c.ndcg).name
    return references


def paired_tests(conditions: list[ConditionResult], references: dict[str, str]) -> list[Paired]:
    """Every condition against each reference, Wilcoxon signed-rank on per-query NDCG@10."""
    by_name = {c.name: c for c in conditions}
    tests: list[Paired] = []
    for reference in dict.fromkeys(references.values()):
        base = by_name[reference]
        for condition in conditions:
            if condition.name != reference:
                tests.append(
                    wilcoxon(
                        condition.name,
                        reference,
                        condition.per_query[NDCG10],
                        base.per_query[NDCG10],
                    )
                )
    return tests


# --- JSON ---------------------------------------------------------------------------------------
def to_json(report: EvalReport) -> dict[str, Any]:
    return {
        "dataset": report.dataset,
        "split": report.split,
        "queries": report.queries,
        "documents": report.documents,
        "setup": report.setup,
        "references": report.references,
        "conditions": [
            {
                "name": c.name,
                "metrics": c.metrics,
                "latency_ms": c.latency_ms,
                "tokens_top10": c.tokens_top10,
                "failures": c.failures,
                "notes": c.notes,
                "per_query_ndcg@10": c.per_query[NDCG10],
                "ndcg@10_tune": c.half(NDCG10, held=False),
                "ndcg@10_held": c.half(NDCG10, held=True),
            }
            for c in report.conditions
        ],
        "significance": [asdict(p) for p in report.significance],
    }


def write_json(report: EvalReport, path: Path) -> None:
    path.write_text(json.dumps(to_json(report), indent=1, ensure_ascii=False) + "\n")


# --- Markdown -----------------------------------------------------------------------------------
def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def markdown(report: EvalReport) -> str:
    """The table, one row per condition, with the margins and p-values against the references."""
    plain = report.references.get("plain_hybrid")
    peer = report.references.get("best_peer")
    tests = {(p.a, p.b): p for p in report.significance}
    base = report.condition(plain) if plain else None
    tiers = [TIERS5] if any(TIERS5 in c.metrics for c in report.conditions) else []
    header = ["condition", *MEASURES, *tiers, "NDCG tune", "NDCG held", "p50 ms", "p95 ms"]
    header.append("tokens@10")
    if plain:
        header += ["Δ NDCG vs plain", "p vs plain"]
    if peer:
        header += ["Δ NDCG vs best peer", "p vs best peer"]
    peer_result = report.condition(peer) if peer else None
    lines = [
        f"### {report.dataset} · {report.split} · {report.queries} queries · "
        f"{report.documents} documents",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    for c in report.conditions:
        row = [
            f"`{c.name}`",
            *(f"{c.metrics[m]:.3f}" if m in c.metrics else "–" for m in MEASURES),
            *(f"{c.metrics.get(m, 0.0):.3f}" for m in tiers),
            f"{c.half(NDCG10, held=False):.3f}",
            f"{c.half(NDCG10, held=True):.3f}",
            f"{c.latency_ms['p50']:.0f}",
            f"{c.latency_ms['p95']:.0f}",
            f"{c.tokens_top10:.0f}",
        ]
        for reference, result in ((plain, base), (peer, peer_result)):
            if reference is None or result is None:
                continue
            if c.name == reference:
                row += ["(ref)", "–"]
            else:
                row += [f"{c.ndcg - result.ndcg:+.3f}", _p(tests[(c.name, reference)].p_value)]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", *fd_comparisons(report), *_notes(report)]
    return "\n".join(lines) + "\n"


def fd_comparisons(report: EvalReport) -> list[str]:
    """Each FD* condition against its base (``FD_BASES``): NDCG@10 and the evidence-tier share
    of the top 5, their differences on the tune half and the held-aside part, and Wilcoxon p
    over all queries."""
    rows: list[str] = []
    for condition in report.conditions:
        base = report.condition(FD_BASES.get(condition.name.split("@")[0], ""))
        if base is None:
            continue
        cells = [f"`{condition.name}` vs `{base.name}`"]
        for measure in (NDCG10, TIERS5):
            if measure not in condition.per_query or measure not in base.per_query:
                cells += ["–"] * 4
                continue
            paired = wilcoxon(
                condition.name, base.name, condition.per_query[measure], base.per_query[measure]
            )
            relative = _relative(condition.metrics[measure], base.metrics[measure])
            cells += [
                f"{condition.metrics[measure] - base.metrics[measure]:+.3f}{relative}",
                f"{condition.half(measure, False) - base.half(measure, False):+.3f}",
                f"{condition.half(measure, True) - base.half(measure, True):+.3f}",
                _p(paired.p_value),
            ]
        rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return []
    header = ["FD* against its base"]
    for measure in (NDCG10, TIERS5):
        header += [f"Δ {measure}", "Δ tune", "Δ held", "p"]
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
        *rows,
        "",
    ]


def _relative(value: float, base: float) -> str:
    return f" ({(value - base) / base:+.0%})" if base else ""


def _notes(report: EvalReport) -> list[str]:
    setup = report.setup
    notes = [
        f"- Metrics by ir-measures {setup.get('ir_measures', '?')} (pytrec_eval): "
        f"{NDCG10} (graded gains), {RECALL5}, {RECALL10}, {RECALL100}, {MRR10}; means over "
        f"all {report.queries} queries. {ALL_GOLD5} / {ALL_GOLD10}: the share of queries with "
        "every relevant document in the top 5 / 10.",
        "- p: two-sided Wilcoxon signed-rank test on per-query NDCG@10 (scipy; zero differences "
        "dropped).",
        "- Latency: wall clock of one `rank()` call per query, query embedding included, after "
        "one untimed warm-up query.",
        f"- {TIERS5}: share of the top 5 that are systematic reviews / meta-analyses or "
        "randomised trials, by the documents' source types.",
        "- NDCG tune / held: NDCG@10 over the ~70 % of queries choices are made on and over the "
        "~30 % held aside (a fixed hash of the query id).",
        "- tokens@10: mean whitespace tokens of the texts each condition returns in its top 10 "
        "(best chunk for chunk-level systems; title + text for the in-memory references).",
    ]
    for key in ("model", "entities", "title_in_text", "chunking", "neo4j", "graph", "ingest"):
        if key in setup:
            notes.append(f"- {key}: {setup[key]}")
    for c in report.conditions:
        if c.failures:
            notes.append(f"- `{c.name}`: {c.failures} queries failed (scored 0).")
        if c.notes.get("escaped_retries"):
            notes.append(
                f"- `{c.name}`: {c.notes['escaped_retries']} queries failed in Lucene's query "
                "parser and were retried with special characters escaped."
            )
    return notes


def write_markdown(report: EvalReport, path: Path) -> None:
    path.write_text(markdown(report))


# --- chart --------------------------------------------------------------------------------------
def write_chart(report: EvalReport, path: Path) -> None:
    """Horizontal grouped bars: one group per condition, one bar per measure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [c.name for c in report.conditions]
    measures = [NDCG10, RECALL100, MRR10]  # the chart keeps to three
    height = 0.8 / len(measures)
    figure, axes = plt.subplots(figsize=(10, 1.2 + 0.45 * len(names)))
    for offset, measure in enumerate(measures):
        positions = [i + (offset - (len(measures) - 1) / 2) * height for i in range(len(names))]
        values = [c.metrics[measure] for c in report.conditions]
        bars = axes.barh(positions, values, height=height, label=measure)
        axes.bar_label(bars, fmt="%.3f", fontsize=6, padding=2)
    axes.set_yticks(range(len(names)), labels=names, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, 1.08)
    axes.set_title(f"{report.dataset} · {report.split} · {report.queries} queries", fontsize=10)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def write_all(report: EvalReport, out: Path) -> dict[str, Path]:
    """results.json, results.md and chart.png in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out / "results.json",
        "markdown": out / "results.md",
        "chart": out / "chart.png",
    }
    write_json(report, paths["json"])
    write_markdown(report, paths["markdown"])
    write_chart(report, paths["chart"])
    return paths
