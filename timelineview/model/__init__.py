"""Loading, columnar store and interval index (no Qt)."""

from timelineview.model.discovery import CardSource, find_cards
from timelineview.model.load.loader import LoadCancelled, load, load_cards
from timelineview.model.store.trace_store import TraceStore

__all__ = ["CardSource", "LoadCancelled", "TraceStore", "find_cards", "load", "load_cards"]
