"""The ``stats --json`` document (metrics.md §5–§8, §11), written once for every kind of session: the trace
session and the summary session hold the same parts (cards, slow cards, communication, operators across
cards, memory imbalance, findings) and this puts them together, so both print the same keys."""

from __future__ import annotations

from typing import Protocol

from timelineview.analysis.communication.document import cluster_json
from timelineview.analysis.kernels.slow_card_excess import with_op_type_excess
from timelineview.analysis.kernels.stage_flops import pipeline_stages

STATS_SCHEMA = "timelineview.stats/3"  # the document's format: raised when a key changes meaning or goes


class StatsParts(Protocol):
    """What a session gives the document."""

    card_documents: list[dict]
    slow_cards: list
    communication: object
    operators_across_cards: list
    memory_imbalance: list[dict]
    findings: list
    critical_path: object  # has document() -> {"critical_path": [...], "what_if": [...]}
    comparison: object  # the ClusterComparison: each card's step rows (FLOPs per pipeline stage)


def stats_document(session: StatsParts) -> dict:
    """{"schema", "cards": [by rank], "slow_cards", "links", "slow_links", "operators_across_cards",
    "pipeline_stages", "memory_imbalance", "findings", "critical_path", "what_if"} of ``session`` (its schema:
    ``timelineview/schemas/stats.schema.json``)."""
    return {"schema": STATS_SCHEMA, "cards": session.card_documents,
            "slow_cards": with_op_type_excess([f.document() for f in session.slow_cards], session.card_documents),
            **cluster_json(session.communication),
            "operators_across_cards": [o.document() for o in session.operators_across_cards],
            "pipeline_stages": pipeline_stages(session.comparison),
            "memory_imbalance": session.memory_imbalance,
            "findings": [f.document() for f in session.findings], **session.critical_path.document()}
