"""On-disk cache of loaded cards: numpy columns as ``.npy`` files, opened memory-mapped.

A card is keyed by its files' paths, sizes and modification times, so an edited or
replaced file is loaded again. Compressed (``.gz``) cards are not cached: their lazy
args read a temporary copy that does not outlive the session.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import fields
from pathlib import Path

import numpy as np
import orjson

from timelineview.model.discovery import CardSource
from timelineview.model.store.args_reader import ArgsReader, ChunkTable
from timelineview.model.store.interval_index import IntervalIndex
from timelineview.model.store.report import LoadReport, Problem
from timelineview.model.store.trace_store import (
    CounterTable,
    FlowTable,
    InstantTable,
    LaneTable,
    LazyFlowTable,
    ProcessTable,
    SliceColumns,
    TraceStore,
)

FORMAT = "timelineview-cache-2"  # 2: flows keep their start event, not a name
MAX_CACHE_BYTES = int(os.environ.get("TIMELINEVIEW_CACHE_MB", "20000")) << 20


def default_cache_dir() -> Path:
    """``$TIMELINEVIEW_CACHE``, else the user's cache folder."""
    env = os.environ.get("TIMELINEVIEW_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "timelineview"


def card_key(src: CardSource) -> str | None:
    """Key of a card's files (None when it cannot be cached)."""
    parts = [FORMAT, src.label, str(src.rank)]
    for f in src.files:
        if f.suffix == ".gz":
            return None
        try:
            st = f.stat()
        except OSError:
            return None
        parts.append(f"{f.resolve()}|{st.st_size}|{st.st_mtime_ns}")
    if not src.files:
        return None
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def _arrays(prefix: str, obj: object) -> dict[str, np.ndarray]:
    return {f"{prefix}.{f.name}": getattr(obj, f.name) for f in fields(obj)
            if isinstance(getattr(obj, f.name), np.ndarray)}


def _lists(prefix: str, obj: object) -> dict[str, list]:
    return {f"{prefix}.{f.name}": getattr(obj, f.name) for f in fields(obj)
            if isinstance(getattr(obj, f.name), list)}


def _report_json(r: LoadReport) -> dict:
    return {"counts_by_ph": dict(r.counts_by_ph), "dropped": dict(r.dropped),
            "examples": [[p.path, p.offset, p.event, p.reason] for p in r.examples],
            "truncated": r.truncated, "truncated_path": r.truncated_path, "truncated_offset": r.truncated_offset,
            "warnings": r.warnings, "duplicates_dropped": r.duplicates_dropped,
            "overlapping_slices": r.overlapping_slices, "open_slices": r.open_slices,
            "bytes_read": r.bytes_read, "error": r.error}


def _report_from(d: dict) -> LoadReport:
    r = LoadReport()
    r.counts_by_ph = Counter(d["counts_by_ph"])
    r.dropped = Counter(d["dropped"])
    r.examples = [Problem(*e) for e in d["examples"]]
    for k in ("truncated", "truncated_path", "truncated_offset", "warnings", "duplicates_dropped",
              "overlapping_slices", "open_slices", "bytes_read", "error"):
        setattr(r, k, d[k])
    return r


def save(store: TraceStore, src: CardSource, cache_dir: Path) -> Path | None:
    """Write ``store`` under ``cache_dir``; returns its folder (None if not cacheable)."""
    key = card_key(src)
    reader = store._args_reader
    if key is None or store.index is None or store.report.error:
        return None
    arrays: dict[str, np.ndarray] = {}
    lists: dict[str, list] = {}
    for prefix, part in (("slices", store.slices), ("lanes", store.lanes), ("processes", store.processes),
                         ("counters", store.counters), ("instants", store.instants), ("index", store.index)):
        arrays.update(_arrays(prefix, part))
        lists.update(_lists(prefix, part))
    flows = store.flows.resolve() if isinstance(store.flows, LazyFlowTable) else store.flows
    arrays.update(_arrays("flows", flows))
    ids = np.asarray(flows.flow_id)
    arrays["flows.flow_id"] = ids.astype(str) if ids.dtype == object else ids
    if isinstance(reader, ArgsReader):
        arrays.update(_arrays("chunks", reader.chunks))
        lists["chunks.path"] = reader.chunks.path
    meta = {"format": FORMAT, "card": store.card, "rank": store.rank, "paths": [str(p) for p in store.paths],
            "strings": store.strings, "generation": store.generation, "report": _report_json(store.report),
            "lists": lists, "arrays": sorted(arrays)}
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".partial-", dir=cache_dir))
    try:
        for name, arr in arrays.items():
            np.save(tmp / f"{name}.npy", np.ascontiguousarray(arr), allow_pickle=False)
        (tmp / "meta.json").write_bytes(orjson.dumps(meta))
        final = cache_dir / key
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        prune(cache_dir, keep=final)
        return final
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return None


def _build(cls: type, prefix: str, arrays: dict, lists: dict):
    kwargs = {}
    for f in fields(cls):
        key = f"{prefix}.{f.name}"
        kwargs[f.name] = arrays[key] if key in arrays else lists[key]
    return cls(**kwargs)


def load_cached(src: CardSource, cache_dir: Path) -> TraceStore | None:
    """The cached store of this card, memory-mapped, or None."""
    key = card_key(src)
    if key is None:
        return None
    folder = cache_dir / key
    try:
        meta = orjson.loads((folder / "meta.json").read_bytes())
        if meta.get("format") != FORMAT:
            return None
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)
                  for name in meta["arrays"]}
    except (OSError, ValueError, KeyError):
        return None
    lists = meta["lists"]
    ids = arrays["flows.flow_id"]
    if ids.dtype.kind == "U":
        arrays["flows.flow_id"] = ids.astype(object)
    store = TraceStore(
        card=meta["card"], rank=meta["rank"], paths=[Path(p) for p in meta["paths"]], strings=meta["strings"],
        processes=_build(ProcessTable, "processes", arrays, lists),
        lanes=_build(LaneTable, "lanes", arrays, lists),
        slices=_build(SliceColumns, "slices", arrays, lists),
        counters=_build(CounterTable, "counters", arrays, lists),
        instants=_build(InstantTable, "instants", arrays, lists),
        flows=_build(FlowTable, "flows", arrays, lists),
        report=_report_from(meta["report"]),
        generation=meta["generation"],
        index=_build(IntervalIndex, "index", arrays, lists),
    )
    if "chunks.start" in arrays:
        store._args_reader = ArgsReader(_build(ChunkTable, "chunks", arrays, lists))
    try:
        os.utime(folder / "meta.json")  # recently used: kept longest by ``prune``
    except OSError:
        pass
    return store


def prune(cache_dir: Path, keep: Path | None = None, max_bytes: int | None = None) -> int:
    """Delete the least recently used cards until the cache fits ``max_bytes``; returns how many."""
    limit = MAX_CACHE_BYTES if max_bytes is None else max_bytes
    entries = []
    for folder in cache_dir.iterdir() if cache_dir.exists() else []:
        meta = folder / "meta.json"
        if folder.is_dir() and meta.exists():
            size = sum(f.stat().st_size for f in folder.iterdir())
            entries.append((meta.stat().st_mtime, size, folder))
    total = sum(e[1] for e in entries)
    removed = 0
    for _, size, folder in sorted(entries):
        if total <= limit:
            break
        if folder == keep:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        total -= size
        removed += 1
    return removed


def cache_size(cache_dir: Path) -> int:
    """Bytes the cache takes on disk."""
    return sum(f.stat().st_size for f in cache_dir.rglob("*") if f.is_file()) if cache_dir.exists() else 0
