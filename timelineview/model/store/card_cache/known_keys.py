"""The cards' keys of one load, found again by their files' identities in this boot, without reading the files.

A card's key hashes a sample of each of its files (``file_stamp.sample_digest``): on a small card that is the whole
file, read and hashed on every open (half a millisecond per card of 350 kB, half a second on a thousand cards). A
load whose every file was settled (last changed ``RACY_NS`` before its identity was taken) and kept that identity
through the sampling writes one record of all its keys, named by the identities of all its files (path, device,
inode, size, modification and change times), the boot, the cache's format and the code's stamp. The next load of
the same files finds the record by name and takes the keys from it.

Why a record is never stale: the record's keys were computed from the bytes the files had while they had the
identities its name holds. Every change of a file's bytes through the file system (a write, a truncation, a file
renamed over it) sets its change time to the kernel's clock, which no program can set back, so a changed file has
another identity and the load looks for another record (and, not finding it, samples the files). A change in the
same tick of a coarse file-system clock as the identity was taken could keep it: hence a record only for files
last changed ``RACY_NS`` before. Bytes changed below the file system (the disk itself, another system mounting it)
do not change the change time: the record names the boot, and a new boot samples again. A record is checked
against the SHA-1 written in it (a damaged record is not read) and holds one key per card; anything else about it
that does not fit means the keys are computed as without it. One that cannot be written is not written.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path

import orjson

from timelineview.model.store.card_cache import check_record
from timelineview.model.store.card_cache.json_digest import digest_of
from timelineview.model.store.card_cache.whole_file import PARTIAL_PREFIX, STALE_PARTIAL_S, write_whole
from timelineview.model.store.card_files import CardFiles
from timelineview.model.store.file_stamp import FileStamp, file_stamp
from timelineview.model.store.regular_file import read_regular

KNOWN_FORMAT = "timelineview-known-keys-1"
FOLDER = ".known-keys"  # under the cache folder (not named like an entry: never taken for one)
KEEP_RECORDS = 64  # the most recently written records kept; older ones are removed at a write
_RECORD_LIMIT = 1 << 24  # a record of 100k cards is ~5 MB: anything larger is not one
RACY_NS = check_record.RACY_NS  # files changed this recently are sampled on every load (coarse clocks)
_DIGEST_BYTES = 40  # the record's first line: the SHA-1 (hex) of the rest


def settled(stamps: Sequence[dict[str, FileStamp | None]], taken_ns: int) -> bool:
    """Whether every file was last changed ``RACY_NS`` before ``taken_ns`` (the time its identity was taken),
    and could be stat-ed."""
    limit = taken_ns - RACY_NS
    for card in stamps:
        for stamp in card.values():
            if stamp is None or max(stamp.mtime_ns, stamp.ctime_ns) > limit:
                return False
    return True


def same_identities(sources: Sequence[CardFiles], stamps: Sequence[dict[str, FileStamp | None]]) -> bool:
    """Whether every file still has the identity in ``stamps``."""
    return all(file_stamp(f) == card.get(str(f)) for src, card in zip(sources, stamps, strict=True)
               for f in src.files)


def record_name(sources: Sequence[CardFiles], stamps: Sequence[dict[str, FileStamp | None]], boot: str,
                code: str) -> str:
    """The record's name for these cards with these identities, in this boot, for this cache ``code`` (its
    format and the stamp of the code that keys a card)."""
    h = hashlib.sha1(f"{KNOWN_FORMAT}\n{boot}\n{code}\n".encode())
    for src, card in zip(sources, stamps, strict=True):
        h.update(f"{src.label}\0{src.rank}\0{len(src.files)}\n".encode("utf-8", "surrogatepass"))
        for f in src.files:
            h.update(f"{f}\0{card.get(str(f))}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def read_keys(cache_dir: Path, name: str, cards: int) -> list[str | None] | None:
    """The keys recorded under ``name`` (one per card, None for a card that cannot be cached), or None when
    there is no such record or it is damaged or not one of ``cards`` keys."""
    try:
        data = read_regular(cache_dir / FOLDER / name, limit=_RECORD_LIMIT)
    except OSError:
        return None
    digest, body = data[:_DIGEST_BYTES], data[_DIGEST_BYTES + 1:]
    if digest_of(body) != digest:
        return None
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict) or doc.get("format") != KNOWN_FORMAT or doc.get("name") != name:
        return None
    keys = doc.get("keys")
    if not isinstance(keys, list) or len(keys) != cards:
        return None
    if not all(k is None or (isinstance(k, str) and len(k) == 40) for k in keys):
        return None
    return keys


def write_keys(cache_dir: Path, name: str, keys: Sequence[str | None]) -> None:
    """Record ``keys`` under ``name`` (whole or not at all), and remove the oldest records past
    ``KEEP_RECORDS``."""
    folder = cache_dir / FOLDER
    try:
        folder.mkdir(exist_ok=True)
        body = orjson.dumps({"format": KNOWN_FORMAT, "name": name, "keys": list(keys)})
        write_whole(folder / name, [digest_of(body), b"\n", body])
        _remove_oldest(folder)
    except OSError:
        pass  # a read-only cache: the files are sampled on every open


def _remove_oldest(folder: Path) -> None:
    records = []
    now = time.time()
    for f in folder.iterdir():
        try:
            st = f.stat()
        except OSError:
            continue
        if f.name.startswith(PARTIAL_PREFIX):
            if now - st.st_mtime > STALE_PARTIAL_S:
                f.unlink(missing_ok=True)
            continue
        records.append((st.st_mtime, f))
    for _, f in sorted(records, reverse=True)[KEEP_RECORDS:]:
        f.unlink(missing_ok=True)
