"""Cards through the on-disk cache: stamp the files before anything reads them, serve what the
cache holds, save what was loaded.

The stamps also go to each loaded card's args reader, so args are only ever read from the
file the slices came from. The keys of a load whose files were all settled are recorded once
(``known_keys``): the next load of the same files takes them from there instead of sampling every
file again. Loading never depends on the cache: a folder that cannot be created or written is
warned about once, and cards load without it (or are only read from it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from timelineview.model.discovery import CardSource
from timelineview.model.store.args_reader import ArgsReader
from timelineview.model.store.card_cache.cache import (
    CARD_CODE,
    FORMAT,
    PARTIAL_PREFIX,
    Room,
    card_key,
    default_cache_dir,
    load_cached,
    max_cache_bytes,
    remove_stale_partials,
    save,
    source_stamps,
)
from timelineview.model.store.card_cache.cache_notice import say_once
from timelineview.model.store.card_cache.check_record import boot_id
from timelineview.model.store.card_cache.known_keys import read_keys, record_name, same_identities, settled, write_keys
from timelineview.model.store.card_files import CardFiles
from timelineview.model.store.trace_store import TraceStore
from timelineview.provenance import code_stamp


def _warn_once(folder: Path, what: str) -> None:
    say_once(f"folder {folder}", f"card cache {folder}: {what}")


def open_cache_dir(cache: bool | str | os.PathLike | None) -> tuple[Path | None, bool]:
    """(the cache folder, whether cards can be saved in it); (None, False) when off or unusable. Raises
    ``CacheSettingError`` when ``$TIMELINEVIEW_CACHE_MB`` is not a size."""
    if not cache:
        return None, False
    folder = default_cache_dir() if cache is True else Path(cache)
    max_cache_bytes()  # a size setting that is not a number stops here with its own message (CacheSettingError)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _warn_once(folder, f"cannot be used ({exc.strerror or exc}); loading without it")
        return None, False
    try:
        shutil.rmtree(tempfile.mkdtemp(prefix=PARTIAL_PREFIX, dir=folder))
    except OSError as exc:
        _warn_once(folder, f"cannot be written ({exc.strerror or exc}); loaded cards are not saved")
        return folder, False
    remove_stale_partials(folder)  # also when nothing is saved this time
    return folder, True


def card_files(src: CardSource) -> CardFiles:
    """What the cache needs of a discovered card."""
    return CardFiles(src.label, src.rank, tuple(src.files))


class CachedCards:
    """The cache's view of one load: file stamps and keys taken before the files are read."""

    def __init__(self, sources: list[CardSource], cache: bool | str | os.PathLike | None) -> None:
        self.sources = [card_files(src) for src in sources]
        taken_ns = time.time_ns()
        self.stamps = [source_stamps(src) for src in self.sources]
        self.settled = [settled([st], taken_ns) for st in self.stamps]  # no change can hide in their identity
        self.folder, self.writable = open_cache_dir(cache)
        self.room = Room(self.folder) if self.folder is not None else None  # listed once for all the saves
        self.keys = self._keys() if self.folder is not None else [None] * len(self.sources)

    def _keys(self) -> list[str | None]:
        """Each card's key: from the record of an earlier load of the same files when there is one (every file
        settled, in this boot), else sampled from the files (and recorded when every file is settled and kept
        its identity through the sampling)."""
        boot = boot_id()
        name = None
        if boot is not None and self.sources and all(self.settled):
            name = record_name(self.sources, self.stamps, boot, f"{FORMAT}\n{code_stamp(*CARD_CODE)}")
            known = read_keys(self.folder, name, len(self.sources))
            if known is not None:
                return known
        keys = [card_key(src, st) for src, st in zip(self.sources, self.stamps)]
        if (name is not None and self.writable and all(k is not None or not _keyed(src) for k, src in
                                                       zip(keys, self.sources))
                and same_identities(self.sources, self.stamps)):
            write_keys(self.folder, name, keys)
        return keys

    def lookup(self, ci: int) -> TraceStore | None:
        """Card ``ci`` from the cache, or None."""
        if self.folder is None or self.keys[ci] is None:
            return None
        store = load_cached(self.sources[ci], self.folder, self.keys[ci], self.stamps[ci])
        if store is not None:
            store.cache_entry = self.folder / self.keys[ci]  # where its analysis results are kept too
        return store

    def keep(self, ci: int, store: TraceStore) -> None:
        """Pin card ``ci``'s args to its files as they were before the load, and save it unless a
        file changed while it was read."""
        if isinstance(store._args_reader, ArgsReader):
            store._args_reader.pin(self.stamps[ci])
        key = self.keys[ci]
        if self.writable and key is not None and self._unchanged(ci):
            store.cache_entry = save(store, self.sources[ci], self.folder, key, self.room)

    def _unchanged(self, ci: int) -> bool:
        """Whether card ``ci``'s files are as they were before the load: the same identities suffice for files
        settled then (a change of their bytes would have changed their change time, ``known_keys``); the others
        are sampled again."""
        src = self.sources[ci]
        if self.settled[ci]:
            return source_stamps(src) == self.stamps[ci]
        return card_key(src) == self.keys[ci]


def _keyed(src: CardFiles) -> bool:
    """Whether a card can have a key at all (files, none compressed): a card that can but has none could not be
    sampled this time, and is not recorded as keyless."""
    return bool(src.files) and not any(f.suffix == ".gz" for f in src.files)
