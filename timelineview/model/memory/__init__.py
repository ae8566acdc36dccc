"""A card's device-memory records (torch_npu's memory CSV files or the profiler database) as columns."""

from timelineview.model.memory.load import load_memory, memory_files
from timelineview.model.memory.records import (
    NEVER,
    Allocations,
    MemoryCurves,
    MemoryRecords,
    MemoryReport,
    ModuleMemory,
    Names,
)

__all__ = ["NEVER", "Allocations", "MemoryCurves", "MemoryRecords", "MemoryReport", "ModuleMemory", "Names",
           "load_memory", "memory_files"]
