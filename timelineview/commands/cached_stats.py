"""The ``stats`` document of cards all served by (or just saved in) the card cache, kept whole in the cache
(``card_cache.cluster_record``): the next ``stats`` over the same cards, unchanged, reads it instead of
analysing every card again.

The key names everything the document is computed from: each card in order (its label, rank and the key of its
kept analysis, which holds its cache entry's key, the analysis code, the gap threshold, its paths, its load
report and the files beside it the analysis reads), the device descriptions the advisor reads near the cards,
the code of the analysis and of what it reads with, and the gap threshold. A card changed on disk has another
entry key, so the cluster another key. What ``stats`` adds after the analysis (``--peak-tflops``, the notes on
empty captures and skipped files) is applied to the document as read, as to one computed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from timelineview.analysis.advisor.device_info import info_files
from timelineview.analysis.kept.results import analysis_key
from timelineview.model.store.card_cache.cache import fits_beside
from timelineview.model.store.card_cache.cluster_record import CLUSTER_FORMAT, read_record, write_record
from timelineview.model.store.file_stamp import file_stamp, sample_digest
from timelineview.model.store.trace_store import TraceStore
from timelineview.provenance import code_stamp

DOCUMENT_CODE = ("analysis", "model", "producers")  # the sub-packages whose code decides what the document holds
STATS_RECORD = "stats-document"  # which command's value a record holds (in its key)


def _described_by(path: Path) -> str:
    """A device description's identity: real path, stat identity and sampled content."""
    stamp = file_stamp(path)
    try:
        sample = sample_digest(path, stamp.size) if stamp is not None else ""
        where = str(path.resolve())
    except (OSError, RuntimeError):
        sample, where = "", str(path)
    return f"{where}|{stamp}|{sample}"


def stats_key(stores: list[TraceStore], min_gap_ns: int) -> tuple[Path, str] | None:
    """(the cache folder, the key of the document of ``stores``) when every card is in the card cache, else
    None (a card loaded without it: its files have no key, nothing is kept)."""
    entries = [store.cache_entry for store in stores]
    if not stores or any(entry is None for entry in entries):
        return None
    folder = Path(entries[0]).parent
    if any(Path(entry).parent != folder for entry in entries):
        return None
    parts = [CLUSTER_FORMAT, STATS_RECORD, code_stamp(*DOCUMENT_CODE), str(min_gap_ns), str(len(stores))]
    for store, entry in zip(stores, entries):
        parts.append(f"{store.card}|{store.rank}|{analysis_key(store, Path(entry), min_gap_ns)}")
        parts.extend(_described_by(path) for path in info_files(store.paths))
    return folder, hashlib.sha1("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def cached_stats_document(stores: list[TraceStore], min_gap_ns: int,
                          compute: Callable[[list[TraceStore], int], dict]) -> dict:
    """The stats document of ``stores``: the cache's record when there is one that passes its checks, else
    ``compute(stores, min_gap_ns)``, recorded when every card is in the card cache."""
    keyed = stats_key(stores, min_gap_ns)
    if keyed is None:
        return compute(stores, min_gap_ns)
    folder, key = keyed
    doc = read_record(folder, key)
    if isinstance(doc, dict):
        return doc
    doc = compute(stores, min_gap_ns)
    write_record(folder, key, doc, lambda size: fits_beside(folder, size))
    return doc
