"""Kept results: each field of a card's analysis saved beside the card's cache entry, read back on the next open.

A card re-opened from the card cache has its columns memory-mapped in a second; its analysis (classification,
interval sets, steps, operators, communication, memory, the §5 object) would still take as long as the first
time. Each field computed is therefore written into the entry's folder, as ``analysis-<key>.<field>.json`` (the
value's tree, :mod:`.encoding`) and ``analysis-<key>.<field>.columns`` (its arrays' bytes one after the other,
each array's dtype, shape, place and CRC-32 in the JSON: mapped once, with no header to parse; the JSON's own
SHA-1 beside it, ``json_digest``), and read
back, field by field, when an analysis asks for it again. A columns file's CRC-32s are compared on its first
read in a boot; after that, while the file keeps its identity, it is only mapped (``check_record``: why a
changed file is still checked before use).

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
import tempfile
import time
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from timelineview.analysis.kept.encoding import BadTree, Decoder, Encoder
from timelineview.analysis.kernels.kernel_details_source import kernel_details_file
from timelineview.model.memory.load import memory_files
from timelineview.model.store.card_cache import json_digest
from timelineview.model.store.card_cache.check_record import Check
from timelineview.model.store.card_cache.columns_file import BadColumn, column_view, describe, places, write_arrays
from timelineview.model.store.file_stamp import file_stamp, sample_digest
from timelineview.model.store.regular_file import open_regular, read_regular
from timelineview.model.store.trace_store import TraceStore
from timelineview.provenance import code_stamp

KEPT_FORMAT = "timelineview-kept-2"
ANALYSIS_CODE = ("analysis",)  # the sub-package whose code decides what a card's analysis holds
PREFIX = "analysis-"
PARTIAL = ".partial-"  # a write in progress (the cache's own prefix)
STALE_PARTIAL_S = 600.0  # a write takes well under a second: one untouched this long was killed
COLUMNS = "columns"  # suffix of a field's file of arrays
CHECKED = "checked"  # suffix of the record of its columns' last full check (``check_record``)
READ_WHOLE_BYTES = 1 << 20  # a columns file up to this size is read, not mapped (mapping costs ~0.3 ms)
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


def _column(data: np.ndarray, desc: dict, what: str, checksum: bool = True) -> np.ndarray:
    """The array ``desc`` describes in the columns file's bytes ``data``, if it is the one written (its CRC-32
    compared unless ``checksum`` is False: a file that passed that check before, unchanged since)."""
    dtype = np.dtype(desc["dtype"])
    if dtype.hasobject or dtype.fields is not None:
        raise BadTree(f"{what}: not a column")
    try:
        return column_view(data, desc, dtype, checksum)
    except BadColumn as exc:
        raise BadTree(f"{what}: {exc}") from None


def _columns_bytes(path: Path, size: int) -> np.ndarray:
    """The bytes of a columns file, writable (a result's arrays stay writable, as computed): a small file read
    at once (mapping it costs more than reading it), a large one mapped copy-on-write (pages read when used)."""
    if not size:
        return np.zeros(0, np.uint8)
    if size <= READ_WHOLE_BYTES:
        data = bytearray(size)
        with open_regular(path) as f:  # never a FIFO (it would wait)
            if f.readinto(data) != size:
                raise BadTree("columns: not the size checked")  # changed meanwhile: computed instead
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


class KeptResults:
    """The kept fields of one card's analysis, in its cache entry's folder ``entry``."""

    def __init__(self, store: TraceStore, entry: Path, min_gap_ns: int) -> None:
        self.store = store
        self.entry = entry
        self.min_gap_ns = min_gap_ns
        self._cleaned = False
        self._listed: set[str] | None = None  # the entry's file names when first asked (``_maybe_kept``)

    @classmethod
    def of(cls, store: TraceStore, min_gap_ns: int) -> KeptResults | None:
        """The kept results of ``store``'s analysis, None for a card not in the card cache."""
        entry = getattr(store, "cache_entry", None)
        return None if entry is None else cls(store, Path(entry), min_gap_ns)

    @cached_property
    def key(self) -> str:
        return analysis_key(self.store, self.entry, self.min_gap_ns)

    def _path(self, name: str, suffix: str) -> Path:
        return self.entry / f"{PREFIX}{self.key}.{name}.{suffix}"

    def restore(self, name: str, field: Callable[[str], Any]) -> Any:
        """Field ``name`` as kept, or ``MISSING``; ``field(other)`` gives a field it refers to (raising
        ``SiblingFailed`` when that fails). A kept field that fails its checks is removed."""
        try:
            if not self._maybe_kept(name):
                return MISSING
            data = read_regular(self._path(name, "json"))  # a FIFO there is refused, never waited on
        except Exception:  # noqa: BLE001 - not kept (or no key: a card whose files cannot be stamped)
            return MISSING
        try:
            return self._read(name, data, field)
        except SiblingFailed:
            raise
        except Exception:  # noqa: BLE001 - whatever is wrong with a kept field, it is computed instead
            self._remove(name)
            return MISSING

    def _maybe_kept(self, name: str) -> bool:
        """Whether field ``name``'s JSON was in the entry when its first field was asked for. One listing per
        card instead of a failed open per field (a card just saved has none). A field another process wrote
        since is only computed again."""
        if self._listed is None:
            self._listed = set(os.listdir(self.entry))
        return self._path(name, "json").name in self._listed

    def _read(self, name: str, data: bytes, field: Callable[[str], Any]) -> Any:
        if not json_digest.matches(self._path(name, "json"), data):
            raise BadTree("not the bytes written (the digest differs)")
        doc = _loads(data)
        if (not isinstance(doc, dict) or doc.get("format") != KEPT_FORMAT or doc.get("key") != self.key
                or doc.get("field") != name):
            raise BadTree("not a kept field of this format, key and name")
        described = doc["arrays"]
        arrays: list[np.ndarray] = []
        check, against, trusted = None, hashlib.sha1(data).hexdigest(), False
        if described:
            check = Check.of(self._path(name, COLUMNS))  # before reading: a change meanwhile is seen next time
            trusted = check.passed_before(self._path(name, CHECKED), against)
            columns = _columns_bytes(check.path, check.size)
            for i, desc in enumerate(described):
                arrays.append(_column(columns, desc, f"{name}: column {i}", checksum=not trusted))
        pairs = _respellings(doc["paths"], _spelling(self.store))
        tree = _respelled(doc["value"], pairs) if pairs else doc["value"]
        value = Decoder(arrays, field).decode(tree)
        if check is not None and not trusted:
            check.passed(self._path(name, CHECKED), against)
        return value

    def keep(self, name: str, value: Any, siblings: dict[int, str]) -> bool:
        """Write field ``name`` (``siblings``: id of another field's value -> its name); whether it was kept."""
        try:
            encoder = Encoder(siblings)
            tree = encoder.encode(value)
            arrays = [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in encoder.arrays]
            offsets = places(arrays)
            doc = {"format": KEPT_FORMAT, "key": self.key, "field": name, "paths": _spelling(self.store), "value": tree,
                   "arrays": [describe(a, at) for a, at in zip(arrays, offsets, strict=True)]}
            data = _dumps(doc)
        except Exception:  # noqa: BLE001 - NotKeepable, or a value the encoding cannot walk: computed each time
            return False
        try:
            self._clean_other_keys()
            if arrays:
                self._write(self._path(name, COLUMNS), lambda f: write_arrays(f, arrays, offsets))
            self._write(self._path(name, "json" + json_digest.SUFFIX), lambda f: f.write(json_digest.digest_of(data)))
            self._write(self._path(name, "json"), lambda f: f.write(data))  # last: the field is complete
        except Exception:  # noqa: BLE001 - no room, a read-only or removed entry: computed next time
            return False
        return True

    def _write(self, final: Path, fill: Callable[[Any], Any]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=PARTIAL, dir=self.entry)
        try:
            with os.fdopen(fd, "wb") as f:
                fill(f)
            os.replace(tmp, final)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _remove(self, name: str) -> None:
        for suffix in ("json", "json" + json_digest.SUFFIX, COLUMNS, CHECKED):
            try:
                self._path(name, suffix).unlink(missing_ok=True)
            except OSError:  # a folder put in its place, a read-only entry: the field is computed each time
                pass

    def _clean_other_keys(self) -> None:
        """Remove the fields kept under other keys (older code, another gap threshold) once."""
        if self._cleaned:
            return
        self._cleaned = True
        mine = f"{PREFIX}{self.key}."
        now = time.time()
        for f in self.entry.iterdir():
            if f.name.startswith(PREFIX) and not f.name.startswith(mine):
                f.unlink(missing_ok=True)
            elif f.name.startswith(PARTIAL) and now - f.stat().st_mtime > STALE_PARTIAL_S:
                f.unlink(missing_ok=True)
