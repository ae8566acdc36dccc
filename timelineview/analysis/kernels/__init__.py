"""Each compute task's operator description (op type, input shapes, data types, formats, block dim, PMU
figures) from the best source the capture has, and the tables built on it: by op type, by shape,
FLOPs and MFU (metrics.md §7.1). No Qt."""

from timelineview.analysis.kernels.card import card_kernels
from timelineview.analysis.kernels.table import KernelGroups, KernelTable

__all__ = ["KernelGroups", "KernelTable", "card_kernels"]
