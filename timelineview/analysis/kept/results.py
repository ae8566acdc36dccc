"""Kept results: each field of a card's analysis saved beside the card's cache entry, read back on the next open.

A card re-opened from the card cache has its columns memory-mapped in a second; its analysis (classification,
interval sets, steps, operators, communication, memory, the §5 object) would still take as long as the first
time. Each field computed is therefore kept in the entry's folder, all of a card's fields in one file,
``analysis-<key>.pack``: one record per field, each a header (its JSON's length and SHA-1, its columns' length and
CRC-32), the value's tree as JSON (:mod:`.encoding`; each array's dtype, shape and place in it) and its arrays'
bytes one after the other. A file per field (its JSON, its digest, its columns, its check record) cost about 25
files created per card and 20 opened per re-open, half a millisecond each: on a thousand small cards more than
the analysis they saved. The fields computed during one ``ensure`` are written together at its end
(``flush``), appended in one write; records are whole multiples of ``ALIGN`` bytes, so every array lies aligned.

A re-open reads the pack once (mapped when large) and, on the first read in a boot, checks every record: its JSON
against its SHA-1 and its columns against their CRC-32; after that, while the pack keeps its identity, the JSON is
only parsed and the columns only mapped (``check_record``, ``analysis-<key>.checked``: why a changed file is still
checked before use). A record that fails is not served (its field is computed and kept again); a pack holding one,
or cut short, is written anew, without it, at the next flush. A field's parsed JSON is let go once it is decoded:
held for every card, a thousand cards' trees made each of Python's full collections slower.

The key is the entry's own key (the card's files and the code that loaded them), the stamp of the analysis code,
the gap threshold, the card's files by their real paths (a folder opened by another spelling, a symlink or a
relative path, is the same card) and its load report (the report also says what lies beside the files) and the
identity of the memory files beside the card (the memory analysis reads them). Results hold paths as the card
was opened (the §5 object its path and report, the memory analysis the paths of its files): a field records the
spelling it was computed under, and one read back under another has each such path spelled as now. A field written under
another key is never read: a change of any of these computes it again, and the files of other keys are removed
at the next write. Nothing here raises into an analysis: a field that cannot be read (missing, corrupt,
written by other code) is computed, one that cannot be written is only not kept. No Qt.
"""

from __future__ import annotations

import hashlib
import os
import struct
import time
import zlib
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import orjson

from timelineview.analysis.kept.encoding import BadTree, Decoder, Encoder
from timelineview.analysis.kernels.task_sources.kernel_details_source import kernel_details_file
from timelineview.model.memory.load import memory_files
from timelineview.model.store.card_cache.check_record import Check
from timelineview.model.store.card_cache.columns_file import ALIGN, BadColumn, column_view, dtype_of, places
from timelineview.model.store.card_cache.whole_file import PARTIAL_PREFIX, STALE_PARTIAL_S, write_whole
from timelineview.model.store.file_stamp import file_stamp, sample_digest
from timelineview.model.store.regular_file import open_regular, regular_fd
from timelineview.model.store.trace_store import TraceStore
from timelineview.provenance import code_stamp

KEPT_FORMAT = "timelineview-kept-3"  # 3: one pack of records per card
ANALYSIS_CODE = ("analysis",)  # the sub-package whose code decides what a card's analysis holds
PREFIX = "analysis-"
PACK = "pack"  # suffix of the file of a card's kept fields
CHECKED = "checked"  # suffix of the record of the pack's last full check (``check_record``)
READ_WHOLE_BYTES = 1 << 20  # a pack up to this size is read, not mapped (mapping costs ~0.3 ms)
RECORD_MAGIC = b"TLVKEPT3"
_HEADER = struct.Struct("<8sQQ20sI")  # magic, JSON bytes, columns bytes, SHA-1 of the JSON, CRC-32 of the columns
HEADER_BYTES = ALIGN  # the header, padded
JOIN_BYTES = 8 << 20  # records up to this size in all are joined and appended in one write
MISSING = object()  # ``restore``: nothing kept for that field


class SiblingFailed(Exception):
    """Computing another field that a kept one refers to failed (``cause``: that failure, raised again)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _side_files(store: TraceStore) -> list[str]:
    """Identity of the files beside the card that its analysis reads (the memory records, the producer's kernel
    table): path, stat identity and sampled content."""
    csvs, dbs = memory_files(store.paths)
    kernel_table = kernel_details_file(store)
    out = []
    for path in [*csvs.values(), *dbs, *([kernel_table] if kernel_table is not None else [])]:
        stamp = file_stamp(path)
        try:
            sample = sample_digest(path, stamp.size) if stamp is not None else ""
        except OSError:
            sample = ""
        try:
            where = Path(path).resolve()  # the same file under another path is the same file
        except (OSError, RuntimeError):
            where = path
        out.append(f"{where}|{stamp}|{sample}")
    return out


def _sha1(parts: list[str]) -> str:
    return hashlib.sha1("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _real_path(path: str | os.PathLike) -> str:
    """``path`` resolved (symlinks followed, made absolute), or as given when it cannot be."""
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return str(path)


def _folder_of(path: str) -> str:
    """The folder part of ``path`` as spelled ("" for a bare file name)."""
    folder = os.path.dirname(path)
    return "" if folder in ("", os.curdir) else folder


def _card_path_key(path: str | os.PathLike) -> str:
    """A card file in the key: its real path; a bare file name (a card opened from its own folder) is keyed
    apart, since the paths derived from it in the results (the memory files beside it) have no folder to
    spell again (``_respelled``)."""
    bare = "" if _folder_of(str(path)) else "|bare"
    return _real_path(path) + bare


def _spelling(store: TraceStore) -> list[str]:
    """The card's paths as it was opened."""
    return [str(p) for p in store.paths]


def analysis_key(store: TraceStore, entry: Path, min_gap_ns: int) -> str:
    """Key of ``store``'s analysis results kept in cache entry ``entry``, as they would be computed now."""
    report = orjson.dumps(store.report.to_json(), option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY)
    return _sha1([KEPT_FORMAT, entry.name, code_stamp(*ANALYSIS_CODE), str(min_gap_ns),
                  *map(_card_path_key, store.paths), report.decode(), *_side_files(store)])


def _respellings(kept: list[str], now: list[str]) -> list[tuple[str, str]]:
    """(as kept, as now) for each card path, its folder and the folder common to them (what the results
    derive from the paths), longest first; none when the spellings are the same (or do not pair up). A
    folder is spelled with a final separator: only the paths under it are respelled, not a text that
    merely equals it (a card without a rank is named after its folder)."""
    if kept == now or len(kept) != len(now):
        return []
    pairs = dict(zip(kept, now, strict=True))
    folders = [(_folder_of(k), _folder_of(n)) for k, n in pairs.items()]
    pairs.update(_under(k, n) for k, n in folders if _is_folder_part(k) and _is_folder_part(n))
    if all(k for k, _ in folders) and all(n for _, n in folders):
        try:
            common = os.path.commonpath([k for k, _ in folders]), os.path.commonpath([n for _, n in folders])
        except ValueError:  # absolute and relative paths mixed: no common folder
            common = ("", "")
        if all(_is_folder_part(c) for c in common):  # not "" or the root: under them lies every other path
            pairs.update([_under(*common)])
    return sorted(((k, n) for k, n in pairs.items() if k != n), key=lambda kn: -len(kn[0]))


def _under(kept: str, now: str) -> tuple[str, str]:
    """The spellings of what lies under folder ``kept`` and under ``now``."""
    return os.path.join(kept, ""), os.path.join(now, "")


def _is_folder_part(path: str) -> bool:
    """Whether ``path`` names a folder short of everything: neither empty nor a filesystem root."""
    return bool(path) and os.path.dirname(path) != path


def _respelled(tree: Any, pairs: list[tuple[str, str]]) -> Any:
    """``tree`` (a kept field's JSON) with each path under a kept spelling (``pairs``) spelled as now."""
    if isinstance(tree, str):
        for kept, now in pairs:
            if tree.startswith(kept) if kept.endswith(os.sep) else tree == kept or tree.startswith(kept + os.sep):
                return now + tree[len(kept):]
        return tree
    if isinstance(tree, list):
        return [_respelled(v, pairs) for v in tree]
    if isinstance(tree, dict):
        return {_respelled(k, pairs): _respelled(v, pairs) for k, v in tree.items()}
    return tree


def _column(data: np.ndarray, desc: dict, what: str) -> np.ndarray:
    """The array ``desc`` describes in a record's column bytes ``data`` (checked with the record's CRC-32)."""
    dtype = dtype_of(desc["dtype"])
    if dtype.hasobject or dtype.fields is not None:
        raise BadTree(f"{what}: not a column")
    try:
        return column_view(data, desc, dtype, checksum=False)
    except BadColumn as exc:
        raise BadTree(f"{what}: {exc}") from None


def _pack_bytes(path: Path, size: int) -> np.ndarray:
    """The bytes of a pack, writable (a result's arrays stay writable, as computed): a small file read
    at once (mapping it costs more than reading it), a large one mapped copy-on-write (pages read when used)."""
    if not size:
        return np.zeros(0, np.uint8)
    if size <= READ_WHOLE_BYTES:
        data = bytearray(size)
        with open_regular(path) as f:  # never a FIFO (it would wait)
            if f.readinto(data) != size:
                raise BadTree("pack: not the size checked")  # changed meanwhile: computed instead
        return np.frombuffer(data, dtype=np.uint8)
    return _map_copy_on_write(path)


def _dumps(doc: dict) -> bytes:
    try:
        return orjson.dumps(doc)
    except TypeError:  # an integer past 64 bits, or a lone surrogate: the standard library writes both
        import json

        return json.dumps(doc, ensure_ascii=True, allow_nan=False).encode("ascii")


def _loads(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        import json

        return json.loads(data)


def _map_copy_on_write(path: Path) -> np.ndarray:
    """The bytes of regular file ``path``, mapped copy on write."""
    with open_regular(path) as f:
        return np.memmap(f, dtype=np.uint8, mode="c").view(np.ndarray)


def _padded(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


class PackRecord(NamedTuple):
    """One field's record in a pack: its parsed JSON and where its columns start in the pack's bytes."""

    doc: dict | None  # None once decoded
    columns_at: int
    columns: int  # bytes of its columns
    start: int  # where the record starts in the pack (copied from there into a pack written anew)
    end: int


def encode_record(doc: dict, arrays: list[np.ndarray], offsets: list[int]) -> list[memoryview]:
    """A pack record as the pieces to write one after the other: the header and ``doc`` as JSON, then each array
    at its offset (each padded to ``ALIGN``). The arrays are not copied: a large card's are written from where
    they lie."""
    data = _dumps(doc)
    head = bytearray(HEADER_BYTES + _padded(len(data)))
    head[HEADER_BYTES:HEADER_BYTES + len(data)] = data
    pieces: list[memoryview] = [memoryview(head)]
    written, crc = 0, 0
    for a, at in zip(arrays, offsets, strict=True):
        if not a.nbytes:
            continue
        gap = memoryview(bytes(at - written))
        body = memoryview(a.reshape(-1).view(np.uint8))
        pieces += [gap, body]
        crc = zlib.crc32(body, zlib.crc32(gap, crc))
        written = at + a.nbytes
    pieces.append(memoryview(bytes(_padded(written) - written)))
    _HEADER.pack_into(head, 0, RECORD_MAGIC, len(data), written, hashlib.sha1(data).digest(), crc)
    return pieces


class ReadPack(NamedTuple):
    """What a pack held: each good record by its field, and whether a record failed (or the pack was cut)."""

    records: dict[str, PackRecord]
    damaged: bool


def read_records(data: np.ndarray, key: str, checksum: bool) -> ReadPack:
    """The records of a pack's bytes ``data`` written under ``key`` (with ``checksum``, each record's JSON
    compared with its SHA-1 and its columns with their CRC-32: one pass over the record's columns, not one per
    column). A record that fails is left out; one whose header is not a header ends the reading."""
    records: dict[str, PackRecord] = {}
    damaged, at, size = False, 0, len(data)
    while at < size:
        if size - at < HEADER_BYTES:
            return ReadPack(records, True)
        magic, json_bytes, columns, sha1, crc = _HEADER.unpack_from(data, at)
        end = at + HEADER_BYTES + _padded(json_bytes) + _padded(columns)
        if magic != RECORD_MAGIC or end > size:
            return ReadPack(records, True)  # not a record's header, or cut short: nothing after it is framed
        try:
            text = bytes(data[at + HEADER_BYTES:at + HEADER_BYTES + json_bytes])
            if checksum and hashlib.sha1(text).digest() != sha1:
                raise BadTree("not the bytes written (the digest differs)")
            doc = _loads(text)
            if not isinstance(doc, dict) or doc.get("format") != KEPT_FORMAT or doc.get("key") != key:
                raise BadTree("not a kept field of this format and key")
            columns_at = at + HEADER_BYTES + _padded(json_bytes)
            if checksum and zlib.crc32(data[columns_at:columns_at + columns]) != crc:
                raise BadTree("columns: not the ones written (their CRC-32 differs)")
            name = doc["field"]
            if not isinstance(name, str):
                raise BadTree("a field without a name")
            records.setdefault(name, PackRecord(doc, columns_at, columns, at, end))
        except Exception:  # noqa: BLE001 - whatever is wrong with a record, its field is computed instead
            damaged = True
        at = end
    return ReadPack(records, damaged)


class KeptResults:
    """The kept fields of one card's analysis, in its cache entry's folder ``entry``."""

    def __init__(self, store: TraceStore, entry: Path, min_gap_ns: int) -> None:
        self.store = store
        self.entry = entry
        self.min_gap_ns = min_gap_ns
        self._cleaned = False
        self._read: ReadPack | None = None  # the pack as read at the first field asked for
        self._data: np.ndarray | None = None  # its bytes
        self._pending: list[memoryview] = []  # records of fields computed since the last flush, in pieces

    @classmethod
    def of(cls, store: TraceStore, min_gap_ns: int) -> KeptResults | None:
        """The kept results of ``store``'s analysis, None for a card not in the card cache."""
        entry = getattr(store, "cache_entry", None)
        return None if entry is None else cls(store, Path(entry), min_gap_ns)

    @cached_property
    def key(self) -> str:
        return analysis_key(self.store, self.entry, self.min_gap_ns)

    def _path(self, suffix: str) -> Path:
        return self.entry / f"{PREFIX}{self.key}.{suffix}"

    def restore(self, name: str, field: Callable[[str], Any]) -> Any:
        """Field ``name`` as kept, or ``MISSING``; ``field(other)`` gives a field it refers to (raising
        ``SiblingFailed`` when that fails). A kept field that fails its checks is not served again."""
        try:
            record = self._pack().records.get(name)
        except Exception:  # noqa: BLE001 - not kept (or no key: a card whose files cannot be stamped)
            return MISSING
        if record is None or record.doc is None:  # not kept, or decoded already (an analysis asks once a field)
            return MISSING
        try:
            return self._decode(record, field)
        except SiblingFailed:
            raise
        except Exception:  # noqa: BLE001 - whatever is wrong with a kept field, it is computed instead
            self._drop(name)
            return MISSING
        finally:  # its parsed JSON is not held for the card's life (a thousand cards' trees slow every collection)
            self._forget_tree(name)

    def _pack(self) -> ReadPack:
        """The pack as it was when its first field was asked for: read once per card (a card just saved has
        none: one failed open)."""
        if self._read is None:
            self._read = ReadPack({}, False)
            path = self._path(PACK)
            try:
                check = Check.of(path)  # before reading: a change meanwhile is seen next time
            except OSError:
                return self._read  # nothing kept yet
            trusted = check.passed_before(self._path(CHECKED), self.key)
            self._data = _pack_bytes(path, check.size)
            self._read = read_records(self._data, self.key, checksum=not trusted)
            if not trusted and not self._read.damaged:
                check.passed(self._path(CHECKED), self.key)
        return self._read

    def _forget_tree(self, name: str) -> None:
        """Field ``name`` was decoded (or failed): its record keeps where it lies in the pack, not its tree."""
        read = self._read
        record = None if read is None else read.records.get(name)
        if record is not None and record.doc is not None:
            read.records[name] = record._replace(doc=None)

    def _decode(self, record: PackRecord, field: Callable[[str], Any]) -> Any:
        doc = record.doc
        described = doc["arrays"]
        block = self._data[record.columns_at:record.columns_at + record.columns]
        arrays = [_column(block, desc, f"{doc['field']}: column {i}") for i, desc in enumerate(described)]
        pairs = _respellings(doc["paths"], _spelling(self.store))
        tree = _respelled(doc["value"], pairs) if pairs else doc["value"]
        return Decoder(arrays, field).decode(tree)

    def _drop(self, name: str) -> None:
        """Serve field ``name`` no more; the pack is written anew without it at the next flush."""
        read = self._pack()
        read.records.pop(name, None)
        self._read = ReadPack(read.records, True)

    def keep(self, name: str, value: Any, siblings: dict[int, str]) -> bool:
        """Queue field ``name`` for the next ``flush`` (``siblings``: id of another field's value -> its name);
        whether it can be kept."""
        try:
            encoder = Encoder(siblings)
            tree = encoder.encode(value)
            arrays = [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in encoder.arrays]
            offsets = places(arrays)
            described = [{"dtype": a.dtype.str, "shape": list(a.shape), "offset": at}  # checked by the record's CRC
                         for a, at in zip(arrays, offsets, strict=True)]
            doc = {"format": KEPT_FORMAT, "key": self.key, "field": name, "paths": _spelling(self.store), "value": tree,
                   "arrays": described}
            self._pending += encode_record(doc, arrays, offsets)
        except Exception:  # noqa: BLE001 - NotKeepable, or a value the encoding cannot walk: computed each time
            return False
        return True

    def flush(self) -> bool:
        """Write the fields queued since the last flush, appended to the pack in one write (or, when the pack
        held a record that failed or was cut short, a new pack of its good records and these); whether they
        were written. Nothing raises: a field not written is computed next time."""
        if not self._pending:
            return True
        pending, self._pending = self._pending, []
        try:
            self._clean_other_keys()
            read = self._read
            if read is not None and read.damaged:
                good = [memoryview(self._data[r.start:r.end]) for r in read.records.values()]
                write_whole(self._path(PACK), [*good, *pending])
                self._read = ReadPack(read.records, False)
            else:
                self._append(self._path(PACK), pending)
        except Exception:  # noqa: BLE001 - no room, a read-only or removed entry: computed next time
            return False
        return True

    def _append(self, path: Path, pieces: list[memoryview]) -> None:
        try:  # a pack that is there, and a regular file (a FIFO's open would wait for a reader)
            fd = regular_fd(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
        except OSError:  # none yet (or not a file): a new pack of these records, put in place whole
            write_whole(path, pieces)
            return
        try:  # small records in one write; a piece at a time past JOIN_BYTES (a large card's arrays, not copied)
            small = sum(p.nbytes for p in pieces) <= JOIN_BYTES
            for piece in [memoryview(b"".join(pieces))] if small else pieces:
                while piece:  # a short write leaves a record cut short: the next reader writes the pack anew
                    piece = piece[os.write(fd, piece):]
        finally:
            os.close(fd)


    def _clean_other_keys(self) -> None:
        """Remove the fields kept under other keys (older code, another gap threshold, an older format) once."""
        if self._cleaned:
            return
        self._cleaned = True
        mine = f"{PREFIX}{self.key}."
        now = time.time()
        for f in self.entry.iterdir():
            if f.name.startswith(PREFIX) and not f.name.startswith(mine):
                f.unlink(missing_ok=True)
            elif f.name.startswith(PARTIAL_PREFIX) and now - f.stat().st_mtime > STALE_PARTIAL_S:
                f.unlink(missing_ok=True)
