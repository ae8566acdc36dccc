"""Analysis of a loaded card: overlap statistics, idle gaps, steps, per-name tables, cluster.

Pure numpy over ``timelineview.model.store.trace_store.TraceStore``; no Qt. Definitions: metrics.md.
"""

from timelineview.analysis.card_analysis import CardAnalysis, analyse_card
from timelineview.analysis.classify import Classification, classify
from timelineview.analysis.cluster.clock_offsets import clock_offsets
from timelineview.analysis.cluster.slow_cards import slow_cards
from timelineview.analysis.derived import DerivedIntervals, derive
from timelineview.analysis.file_overlap import file_overlap
from timelineview.analysis.intervals import Intervals, gaps, intersect, subtract, union
from timelineview.analysis.names import NameTable, name_table
from timelineview.analysis.pipeline import PipelineIntervals, derive_pipeline, pipeline_metrics
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.steps import StepWindow, find_steps, step_metrics
from timelineview.analysis.summary import card_document, format_text, stats_document
from timelineview.analysis.window import window_metrics

__all__ = [
    "AnalysisSession", "CardAnalysis", "analyse_card",
    "Classification", "classify", "clock_offsets", "slow_cards", "DerivedIntervals", "derive",
    "file_overlap", "Intervals", "gaps", "intersect", "subtract", "union", "NameTable", "name_table",
    "PipelineIntervals", "derive_pipeline", "pipeline_metrics",
    "StepWindow", "find_steps", "step_metrics", "card_document", "format_text", "stats_document",
    "window_metrics",
]
