"""On-disk cache of loaded cards: numpy columns in one file per card (``columns.bin``), opened memory-mapped.

A card is keyed by its files' paths, identities and sampled content (``file_stamp``), so an
edited or replaced file is loaded again, even when its size and modification time were kept, and
by the package version and the source of the code that builds a card (``provenance``), so an
upgraded or edited install never serves what older code decoded. An entry is checked before use
(its meta against its SHA-1, every column's dtype, shape and CRC-32, then every reference between its tables:
``entry_checks``); one that fails is deleted and the card loaded again. Nothing here raises into a load: a cache that
cannot be written is only not written. Compressed (``.gz``) cards are not cached: their lazy
args read a temporary copy that does not outlive the session.

One file, one map. Each column lies at a multiple of ``columns_file.ALIGN`` bytes in ``columns.bin``; the meta gives its
dtype, shape, place and CRC-32. A re-open maps the file once and takes each column as a view of the map
(one ``np.load`` per column cost about 0.3 ms, 13 ms for a card of 43 columns).

Checked once per boot. The full check reads every byte of every column (CRC-32 and the reference checks
together about 0.5 s per GB of trace). An entry that passed it gets a record (``verified.json``,
``check_record``: the boot, the digest of its meta and the identity of its columns file); while these are
unchanged the next open checks the meta and each column's kind, shape and place only, so a re-open reads
nothing in proportion to the data. ``check_record`` says why that is safe: a changed file is checked in
full again before any number of it is used. The first open after a save checks in full (and writes the
record): the save's own bytes are not trusted before they were read back.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from timelineview.model.store.args_reader import ArgsReader, ChunkTable
from timelineview.model.store.card_cache.cache_notice import say_once
from timelineview.model.store.card_cache.check_record import Check
from timelineview.model.store.card_cache.cluster_record import RECORD_NAME
from timelineview.model.store.card_cache.columns_file import (
    BadColumn,
    column_view,
    describe,
    dtype_of,
    places,
    write_arrays,
)
from timelineview.model.store.card_cache.entry_checks import CorruptEntry, check_chunks, check_entry, check_ids
from timelineview.model.store.card_cache.json_digest import digest_of, digest_path, matches
from timelineview.model.store.card_cache.whole_file import (  # a save in progress (here a folder)
    PARTIAL_PREFIX,
    STALE_PARTIAL_S,
)
from timelineview.model.store.card_files import CardFiles
from timelineview.model.store.file_stamp import FileStamp, file_stamp, sample_digest
from timelineview.model.store.interval_index import IntervalIndex
from timelineview.model.store.regular_file import open_regular, read_regular
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
from timelineview.provenance import code_stamp

FORMAT = "timelineview-cache-6"  # 3: content key, checked columns, chunks name their file by index; 4: one
# file; 5: the slices' span in the meta; 6: the index without its times (read from the slices)
COLUMNS_FILE = "columns.bin"  # every column of an entry (a columns file)
CARD_CODE = ("model",)  # the sub-packages whose code decides what a cached card holds
SIZE_VARIABLE = "TIMELINEVIEW_CACHE_MB"  # the most the cache may hold, in MiB
DEFAULT_CACHE_MB = 20000
MIN_FREE_BYTES = 1 << 30  # the cache never leaves less free on its disk than this ...
MIN_FREE_FRACTION = 0.05  # ... or than this share of the disk
_ENTRY_NAME = re.compile(r"^[0-9a-f]{40}$")  # only folders named like a key are ever pruned
_FLOAT_COLUMNS = {"counters.value"}
_TEXT_OR_INT_COLUMNS = {"flows.flow_id"}
VERIFIED = "verified.json"  # the record of the last full check (module docstring)
_TABLES = (("slices", SliceColumns), ("lanes", LaneTable), ("processes", ProcessTable),
           ("counters", CounterTable), ("instants", InstantTable), ("index", IntervalIndex))


class CacheSettingError(ValueError):
    """A cache setting of the environment that is not usable (the message says which and why)."""


def max_cache_bytes() -> int:
    """The most the cache may hold: ``$TIMELINEVIEW_CACHE_MB`` MiB (default 20000); ``CacheSettingError`` when
    that is not a whole number of MiB, 0 or more."""
    text = os.environ.get(SIZE_VARIABLE, "").strip() or str(DEFAULT_CACHE_MB)
    try:
        mib = int(text)
    except ValueError:
        raise CacheSettingError(f"{SIZE_VARIABLE}={text!r}: not a whole number of MiB") from None
    if mib < 0:
        raise CacheSettingError(f"{SIZE_VARIABLE}={text!r}: a size cannot be negative")
    return mib << 20


def default_cache_dir() -> Path:
    """``$TIMELINEVIEW_CACHE``, else the user's cache folder."""
    env = os.environ.get("TIMELINEVIEW_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "timelineview"


def source_stamps(src: CardFiles) -> dict[str, FileStamp | None]:
    """Each file's identity now, by the path the loader reads it under."""
    return {str(f): file_stamp(f) for f in src.files}


def card_key(src: CardFiles, stamps: dict[str, FileStamp | None] | None = None) -> str | None:
    """Key of a card's files as they are (or as ``stamps`` saw them, with their content sampled
    now); None when it cannot be cached."""
    if not src.files:
        return None
    stamps = source_stamps(src) if stamps is None else stamps
    parts = [FORMAT, code_stamp(*CARD_CODE), src.label, str(src.rank)]
    for f in src.files:
        stamp = stamps.get(str(f))
        if f.suffix == ".gz" or stamp is None:
            return None
        try:
            digest = sample_digest(f, stamp.size)
            where = str(f.resolve())
        except (OSError, RuntimeError):
            return None
        parts.append(f"{where}|{'|'.join(map(str, stamp))}|{digest}")
    return hashlib.sha1("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


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


def _dump_meta(meta: dict) -> bytes:
    try:
        return orjson.dumps(meta)
    except TypeError:  # a name with a lone surrogate ("\ud800"): orjson only writes valid UTF-8
        return json.dumps(meta, ensure_ascii=True).encode("ascii")


def _load_meta(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)  # written by ``json`` (lone surrogates escaped)


def _columns(store: TraceStore, src: CardFiles) -> tuple[dict[str, np.ndarray], dict[str, list]] | None:
    """The store's arrays and lists by name; None when it cannot be cached (a card whose args are found by
    slice, not by an ordinal in its files)."""
    if store.slices.src is None:
        return None
    arrays: dict[str, np.ndarray] = {}
    lists: dict[str, list] = {}
    for prefix, _ in _TABLES:
        part = getattr(store, prefix)
        arrays.update(_arrays(prefix, part))
        lists.update(_lists(prefix, part))
    flows = store.flows.resolve() if isinstance(store.flows, LazyFlowTable) else store.flows
    arrays.update(_arrays("flows", flows))
    ids = np.asarray(flows.flow_id)
    arrays["flows.flow_id"] = ids.astype(str) if ids.dtype == object else ids
    reader = store._args_reader
    if isinstance(reader, ArgsReader):
        files = [str(f) for f in src.files]
        if not set(reader.chunks.path) <= set(files):
            return None  # read from elsewhere (a decompressed copy)
        arrays.update(_arrays("chunks", reader.chunks))
        arrays["chunks.file"] = np.array([files.index(p) for p in reader.chunks.path], dtype=np.int64)
    return {k: np.ascontiguousarray(v) for k, v in arrays.items()}, lists


def save(store: TraceStore, src: CardFiles, cache_dir: Path, key: str | None = None,
         room: Room | None = None) -> Path | None:
    """Write ``store`` under ``cache_dir`` as entry ``key`` (default: the files as they are now);
    returns its folder, or None when it was not written (not cacheable, no room, an error). ``room``:
    the cache's size as counted through a load of many cards (default: the cache is listed for this save)."""
    key = card_key(src) if key is None else key
    if key is None or store.index is None or store.report.error:
        return None
    tmp: Path | None = None
    try:
        columns = _columns(store, src)
        if columns is None:
            return None
        arrays, lists = columns
        meta = {"format": FORMAT, "key": key, "code": code_stamp(*CARD_CODE), "card": store.card, "rank": store.rank,
                "strings": store.strings, "generation": store.generation, "report": _report_json(store.report),
                "lists": lists, "span": list(store.span_ns()), "arrays": {name: describe(arr, at)
                                           for (name, arr), at in zip(arrays.items(), places(arrays.values()))}}
        meta_bytes = _dump_meta(meta)
        cache_dir.mkdir(parents=True, exist_ok=True)
        incoming = sum(a.nbytes for a in arrays.values()) + len(meta_bytes)
        if not (room.make(incoming) if room is not None else make_room(cache_dir, incoming)):
            _say_no_room(cache_dir)
            return None
        tmp = Path(tempfile.mkdtemp(prefix=PARTIAL_PREFIX, dir=cache_dir))
        with open(tmp / COLUMNS_FILE, "wb") as f:
            write_arrays(f, arrays.values(), places(arrays.values()))
        (tmp / "meta.json").write_bytes(meta_bytes)
        digest_path(tmp / "meta.json").write_bytes(digest_of(meta_bytes))
        final = cache_dir / key
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        return final
    except Exception:  # a card that cannot be cached is loaded all the same
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        return None


def _build(cls: type, prefix: str, arrays: dict, lists: dict):
    kwargs = {}
    for f in fields(cls):
        key = f"{prefix}.{f.name}"
        kwargs[f.name] = arrays[key] if key in arrays else lists[key]
    return cls(**kwargs)


def load_cached(src: CardFiles, cache_dir: Path, key: str | None = None,
                stamps: dict[str, FileStamp | None] | None = None) -> TraceStore | None:
    """The cached store of this card (entry ``key``, default: its files as they are now),
    memory-mapped, or None. An entry that fails its checks is deleted."""
    stamps = source_stamps(src) if stamps is None else stamps
    key = card_key(src, stamps) if key is None else key
    if key is None:
        return None
    folder = cache_dir / key
    try:
        data = read_regular(folder / "meta.json")  # a FIFO there is refused, never waited on
    except OSError:
        return None  # not cached (or the cache cannot be read)
    try:
        store = _open_entry(folder, data, key, src, stamps)
    except Exception:  # whatever is wrong with an entry, the card still loads from its file
        shutil.rmtree(folder, ignore_errors=True)  # corrupt: the caller loads the card again
        return None
    try:
        os.utime(folder / "meta.json")  # recently used: kept longest by ``prune``
    except OSError:
        pass
    return store


def _open_entry(folder: Path, meta_bytes: bytes, key: str, src: CardFiles,
                stamps: dict[str, FileStamp | None]) -> TraceStore:
    if not matches(folder / "meta.json", meta_bytes):
        raise CorruptEntry("meta: not the bytes written (its digest differs)")
    meta = _load_meta(meta_bytes)
    if (not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("key") != key
            or meta.get("code") != code_stamp(*CARD_CODE)):
        raise CorruptEntry("not an entry of this format, key and code")
    check = Check.of(folder / COLUMNS_FILE)  # before reading: a change during the check is seen next time
    against = hashlib.sha1(meta_bytes).hexdigest()
    trusted = check.passed_before(folder / VERIFIED, against)
    data = _map(check.path) if check.size else np.zeros(0, np.uint8)
    arrays = {name: _checked_array(data, name, desc, checksum=not trusted) for name, desc in meta["arrays"].items()}
    lists = meta["lists"]
    strings = meta["strings"]
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
        raise CorruptEntry("strings")
    ids = arrays["flows.flow_id"]
    if ids.dtype.kind == "U":
        arrays["flows.flow_id"] = ids.astype(object)
    parts = {prefix: _build(cls, prefix, arrays, lists) for prefix, cls in _TABLES}
    flows = _build(FlowTable, "flows", arrays, lists)
    _check_lengths(parts, flows)
    parts["index"].bind(parts["slices"].start, parts["slices"].dur)
    store = TraceStore(
        card=meta["card"], rank=meta["rank"], paths=list(src.files), strings=strings,
        processes=parts["processes"], lanes=parts["lanes"], slices=parts["slices"], counters=parts["counters"],
        instants=parts["instants"], flows=flows, report=_report_from(meta["report"]),
        generation=meta["generation"], index=parts["index"],
    )
    if not trusted:
        check_entry(store)
    span = meta["span"]
    if not (isinstance(span, list) and len(span) == 2 and all(type(t) is int for t in span)):
        raise CorruptEntry("span")
    if not trusted and list(store.span_ns()) != span:  # checked with the columns, then taken as saved
        raise CorruptEntry("span: not the slices' span")
    store.known_span((span[0], span[1]))
    if "chunks.start" in arrays:
        files = [str(f) for f in src.files]
        file_ids = arrays.pop("chunks.file")
        check_ids("chunks.file", file_ids, len(files))  # each a file the card has
        paths = [files[i] for i in file_ids.tolist()]  # today's paths to the same files
        chunks = _build(ChunkTable, "chunks", arrays, {"chunks.path": paths})
        _same_length("chunks", [chunks.path, chunks.start, chunks.end, chunks.first, chunks.count, chunks.fast])
        # trusted: the slices' ordinals passed this check with these chunks (the same checked file); the ranges
        # against the files as they are now are checked on every open (the chunks only, no pass over the slices)
        events = int(store.slices.src.max()) + 1 if len(store.slices) and not trusted else 0
        check_chunks(chunks, stamps, events)
        store._args_reader = ArgsReader(chunks, stamps=stamps)
    if not trusted:
        check.passed(folder / VERIFIED, against)
    return store


def _map(path: Path) -> np.ndarray:
    """The bytes of regular file ``path``, memory-mapped read-only, as a plain array over the map (a slice of an
    ``np.memmap`` runs its Python ``__array_finalize__``: 2 µs a column, 0.09 s per re-open of a thousand cards)."""
    with open_regular(path) as f:
        return np.memmap(f, dtype=np.uint8, mode="r").view(np.ndarray)


def _checked_array(data: np.ndarray, name: str, desc: dict, checksum: bool = True) -> np.ndarray:
    """Column ``name``: a view of the columns file's map ``data``, if it is a column of a kind this name may
    have, inside the file and (``checksum``) of the CRC-32 saved."""
    dtype = dtype_of(desc["dtype"])
    allowed = "f" if name in _FLOAT_COLUMNS else "iuU" if name in _TEXT_OR_INT_COLUMNS else "iub"
    if dtype.kind not in allowed or dtype.fields is not None or dtype.subdtype is not None:
        raise CorruptEntry(f"{name}: not a column of this name")
    try:
        return column_view(data, desc, dtype, checksum)
    except BadColumn as exc:
        raise CorruptEntry(f"{name}: {exc}") from None


def _same_length(what: str, columns: list) -> None:
    if len({len(c) for c in columns}) > 1:
        raise CorruptEntry(f"{what}: columns of different lengths")


def _check_lengths(parts: dict, flows: FlowTable) -> None:
    """Columns of one table have one length (a column cut short is not served)."""
    for prefix, table in [*parts.items(), ("flows", flows)]:
        if prefix in ("index", "counters"):
            continue
        _same_length(prefix, [getattr(table, f.name) for f in fields(table)])
    c = parts["counters"]
    _same_length("counters", [c.series_process, c.series_name, c.series_counter, c.series_key, c.offsets[1:]])
    _same_length("counters", [c.ts, c.value])
    ix = parts["index"]
    _same_length("index", [ix.order, parts["slices"].start])
    _same_length("index", [ix.row_lane, ix.row_level, ix.row_ptr[1:]])
    _same_length("index", [ix.lane_first_row, ix.lane_row_count, parts["lanes"].tid])


def _stale_partial(folder: Path, now: float) -> bool:
    """Whether a ``.partial-*`` folder (a card's save) or file (a cluster record's write) was left by a killed
    write."""
    inside = [f.stat().st_mtime for f in folder.iterdir()] if folder.is_dir() else []
    return now - max([folder.stat().st_mtime, *inside]) > STALE_PARTIAL_S


def _remove(path: Path) -> None:
    """Remove an entry's folder, a cluster record or a leftover of a killed write (gone already: nothing)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def remove_stale_partials(cache_dir: Path) -> int:
    """Remove the ``.partial-*`` folders that killed saves left; returns how many."""
    now = time.time()
    removed = 0
    try:
        partials = [f for f in cache_dir.iterdir() if f.name.startswith(PARTIAL_PREFIX)]
    except OSError:
        return 0
    for folder in partials:
        try:
            if _stale_partial(folder, now):
                _remove(folder)
                removed += 1
        except OSError:
            continue  # finished or removed meanwhile by another process
    return removed


def _entries(cache_dir: Path) -> tuple[list[tuple[float, int, Path]], list[Path]]:
    """(last use, bytes, path) of each entry (a card's folder, or a cluster record's file: ``cluster_record``), and
    the ``.partial-*`` folders and files of killed writes."""
    entries, stale = [], []
    now = time.time()
    try:
        children = list(cache_dir.iterdir())
    except OSError:
        return [], []
    for folder in children:
        try:
            if folder.name.startswith(PARTIAL_PREFIX):
                if _stale_partial(folder, now):
                    stale.append(folder)
            elif _ENTRY_NAME.match(folder.name) and folder.is_dir():
                size = sum(f.stat().st_size for f in folder.iterdir())
                meta = folder / "meta.json"
                used = meta.stat().st_mtime if meta.exists() else 0.0  # no meta: unusable, goes first
                entries.append((used, size, folder))
            elif RECORD_NAME.match(folder.name) and folder.is_file():
                st = folder.stat()
                entries.append((st.st_mtime, st.st_size, folder))
        except OSError:
            continue  # removed meanwhile by another process
    return entries, stale


def _room_limit(cache_dir: Path, total: int, max_bytes: int) -> int:
    """Bytes the cache may hold: ``max_bytes``, less when its disk runs short."""
    try:
        disk = shutil.disk_usage(cache_dir)
    except OSError:
        return max_bytes
    reserve = max(MIN_FREE_BYTES, int(disk.total * MIN_FREE_FRACTION))
    return min(max_bytes, total + disk.free - reserve)


def _say_no_room(cache_dir: Path) -> None:
    """Once: a card was not saved for want of room (the size limit, or a disk short of free space)."""
    try:
        free = shutil.disk_usage(cache_dir).free
    except OSError:
        free = -1
    try:
        limit = max_cache_bytes()
    except CacheSettingError:
        limit = 0
    why = (f"{free / (1 << 30):.2f} GiB free on its disk, it keeps at least {MIN_FREE_BYTES / (1 << 30):.0f} GiB "
           f"(or {MIN_FREE_FRACTION:.0%} of the disk) free" if free >= 0 and limit > 0
           else f"it may hold {limit >> 20} MiB ({SIZE_VARIABLE})")
    say_once(f"room {cache_dir}", f"card cache {cache_dir}: no room ({why}); loaded cards are not saved")


def make_room(cache_dir: Path, incoming: int = 0, keep: Path | None = None, max_bytes: int | None = None) -> bool:
    """Prune so that ``incoming`` more bytes fit; whether they do."""
    return _prune(cache_dir, incoming, keep, max_bytes)[1]


def fits_beside(cache_dir: Path, incoming: int) -> bool:
    """Whether ``incoming`` bytes may be written into the cache without listing it (a cluster record, written
    once per command): within the size limit on their own and leaving the disk its free space. What they add to
    the cache's size is counted, and pruned, at its next listing (``Room``, ``prune``)."""
    try:
        cap = max_cache_bytes()
        disk = shutil.disk_usage(cache_dir)
    except (OSError, CacheSettingError):
        return False
    return incoming <= cap and disk.free - incoming >= max(MIN_FREE_BYTES, int(disk.total * MIN_FREE_FRACTION))


class Room:
    """Room in the cache for the saves of one load. Listing the cache stats every file of every entry: done
    for each save, a load of a thousand cards stats a million files (a quarter of a minute). The cache is
    listed (and pruned) once, then each save adds its bytes to the count; it is listed again only when the
    count says the next save does not fit. The disk's free space is still asked for on every save, so the
    cache never leaves its disk short; only the cap on its own size relies on the count (what another
    process saves meanwhile is counted at its next listing)."""

    def __init__(self, cache_dir: Path, max_bytes: int | None = None) -> None:
        self.cache_dir = cache_dir
        self.max_bytes = max_bytes
        self.total: int | None = None  # bytes the cache holds as counted; None: not listed yet

    def make(self, incoming: int) -> bool:
        """Whether ``incoming`` more bytes fit (pruning when the count says they may not); counts them if so."""
        cap = max_cache_bytes() if self.max_bytes is None else self.max_bytes
        if self.total is not None and self.total + incoming <= _room_limit(self.cache_dir, self.total, cap):
            self.total += incoming
            return True
        _, fits, total = _prune_counted(self.cache_dir, incoming, None, self.max_bytes)
        self.total = total + incoming if fits else total
        return fits


def prune(cache_dir: Path, keep: Path | None = None, max_bytes: int | None = None) -> int:
    """Remove the leftovers of killed saves, then the least recently used cards until the cache
    fits ``max_bytes`` (default ``max_cache_bytes()``) and leaves its disk enough free space;
    returns how many cards were removed."""
    return _prune(cache_dir, 0, keep, max_bytes)[0]


def _prune(cache_dir: Path, incoming: int, keep: Path | None, max_bytes: int | None) -> tuple[int, bool]:
    removed, fits, _ = _prune_counted(cache_dir, incoming, keep, max_bytes)
    return removed, fits


def _prune_counted(cache_dir: Path, incoming: int, keep: Path | None,
                   max_bytes: int | None) -> tuple[int, bool, int]:
    """(entries removed, whether ``incoming`` fits, bytes the cache holds after pruning)."""
    entries, stale = _entries(cache_dir)
    for folder in stale:
        try:
            _remove(folder)
        except OSError:
            continue  # removed meanwhile, or cannot be: tried again at the next listing
    total = sum(e[1] for e in entries)
    limit = _room_limit(cache_dir, total, max_cache_bytes() if max_bytes is None else max_bytes)
    removed = 0
    for _, size, folder in sorted(entries):
        if total + incoming <= limit:
            break
        if folder == keep:
            continue
        try:
            _remove(folder)
        except OSError:
            continue  # a record that cannot be removed still counts
        total -= size
        removed += 1
    return removed, total + incoming <= limit, total


def cache_size(cache_dir: Path) -> int:
    """Bytes the cache takes on disk."""
    return sum(f.stat().st_size for f in cache_dir.rglob("*") if f.is_file()) if cache_dir.exists() else 0
