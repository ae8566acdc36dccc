"""Find a card's memory records beside its trace files and read them into one :class:`MemoryRecords`.

torch_npu writes ``memory_record.csv``, ``operator_memory.csv`` and ``npu_module_mem.csv`` into the
folder of ``trace_view.json``; with ``export_type=db`` the same records are tables of
``ascend_pytorch_profiler_<rank>.db`` in that folder. A card read from the database itself (its file
is the ``.db``) has its memory read from that file. When a folder has both, the CSV files are used
(they are the export the trace came with) and the database fills only the tables they lack.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from timelineview.model.load.file_access import file_problem
from timelineview.model.memory.csv_files import (
    CSV_FILES,
    MEMORY_RECORD_CSV,
    MODULE_MEMORY_CSV,
    OPERATOR_MEMORY_CSV,
    read_memory_record,
    read_module_memory,
    read_operator_memory,
)
from timelineview.model.memory.database import read_database_memory
from timelineview.model.memory.records import MemoryRecords
from timelineview.producers import torch_npu

PROFILER_DB = torch_npu.DATABASE


def memory_files(paths: Sequence[str | Path]) -> tuple[dict[str, Path], list[Path]]:
    """(the memory CSV files by name, the profiler databases) in the folders of a card's ``paths``."""
    csvs: dict[str, Path] = {}
    dbs: list[Path] = []
    folders = []
    for p in paths:
        p = Path(p)
        if PROFILER_DB.match(p.name) and p not in dbs:
            dbs.append(p)
        if p.parent not in folders:
            folders.append(p.parent)
    for folder in folders:
        for name in CSV_FILES:
            f = folder / name
            if name not in csvs and f.exists():
                csvs[name] = f
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        dbs.extend(e for e in entries if PROFILER_DB.match(e.name) and e not in dbs)
    return csvs, dbs


def load_memory(paths: Sequence[str | Path]) -> MemoryRecords:
    """Every memory record found beside the card's files (empty when there is none)."""
    out = MemoryRecords()
    csvs, dbs = memory_files(paths)
    readers = {MEMORY_RECORD_CSV: ("curves", read_memory_record),
               OPERATOR_MEMORY_CSV: ("allocations", read_operator_memory),
               MODULE_MEMORY_CSV: ("modules", read_module_memory)}
    for name, path in csvs.items():
        problem = file_problem(path)
        if problem:
            out.report.warn(f"{path}: {problem}, not read")
            continue
        attr, read = readers[name]
        setattr(out, attr, read(path, out.names, out.report))
        out.sources.append(str(path))
    for db in dbs[:1]:  # one capture per card: the first database by name
        problem = file_problem(db)
        if problem:
            out.report.warn(f"{db}: {problem}, not read")
            continue
        tables = read_database_memory(db, out.names, out.report)
        for attr in ("curves", "allocations", "modules"):
            if not len(getattr(out, attr)):
                setattr(out, attr, getattr(tables, attr))
        out.sources.append(str(db))
    return out
