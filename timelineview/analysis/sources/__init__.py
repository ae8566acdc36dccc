"""Card sources: what one card gives the analysis, from its trace or from its summary.

:class:`CardSource` is the interface :class:`~timelineview.analysis.session.AnalysisSession` reads;
:class:`TraceSource` computes it from a loaded card (JSON files or a profiler database),
:class:`SummarySource` reads it from a card's summary. No Qt.
"""

from timelineview.analysis.sources.card_source import CardSource, StepRows
from timelineview.analysis.sources.summary_source import SummarySource
from timelineview.analysis.sources.trace_source import TraceSource

__all__ = ["CardSource", "StepRows", "SummarySource", "TraceSource"]
