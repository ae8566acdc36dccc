"""Where each card's device memory goes (metrics.md §11): per card, across cards, and the findings."""

from timelineview.analysis.memory.card import CardMemory, analyse_memory
from timelineview.analysis.memory.findings import MemoryCard, memory_findings
from timelineview.analysis.memory.imbalance import high_outliers, memory_imbalance

__all__ = ["CardMemory", "MemoryCard", "analyse_memory", "high_outliers", "memory_findings", "memory_imbalance"]
