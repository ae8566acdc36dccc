"""Which producer wrote a card, and the load report's line saying so when it is not an Ascend one.

A card is read as Kineto when the Kineto module recognises it, as an Ascend / MindSpore generation when
a process carries one of their names (or, MindSpore ≤ 2.1 without metadata, a pid of theirs); anything
else is named for what it looks like, and said not to be read as either: never a silent misread.
"""

from __future__ import annotations

from collections import Counter
from types import ModuleType

import numpy as np

from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import ascend, kineto
from timelineview.producers.slice_kinds import strings_used

KINETO = kineto.KIND
ASCEND = "ascend"
MINDSPORE_LEGACY = "mindspore_legacy"
UNRECOGNISED = "unrecognised"
LISTED = 3  # process names and categories a line names
_TENSORFLOW = "a TensorFlow / JAX profiler trace"
# What a foreign trace looks like, told by its categories or its process names (first match wins).
_LOOKS_LIKE_BY_CATEGORY = (
    (("devtools.timeline", "blink", "v8", "toplevel", "disabled-by-default-devtools.timeline"),
     "a Chrome / browser trace"),
    (("TraceMe", "tf_op", "XLA Ops", "XLA Modules"), _TENSORFLOW),
)
_LOOKS_LIKE_BY_PROCESS = (("/device:", _TENSORFLOW), ("/host:", _TENSORFLOW))


def _slice_kind_producer(store: TraceStore, named: bool) -> ModuleType | None:
    # imported here: the package's tables import this folder's modules
    from timelineview.producers import SLICE_KIND_PRODUCERS

    return next((p for p in SLICE_KIND_PRODUCERS if p.recognises(store, ascend_processes=named)), None)


def _ascend_named(store: TraceStore) -> bool:
    procs = store.processes
    return any(ascend.role_of_process(n, lb) for n, lb in zip(procs.name, procs.label, strict=True))


def producer_of(store: TraceStore) -> str:
    """``KINETO`` (or another producer whose slices say what they are: its ``KIND``), ``ASCEND``,
    ``MINDSPORE_LEGACY`` or ``UNRECOGNISED`` (as the classification reads it)."""
    procs = store.processes
    named = _ascend_named(store)
    producer = _slice_kind_producer(store, named)
    if producer is not None:
        return producer.KIND
    if named:
        return ASCEND
    if any(ascend.legacy_role_of_pid(pid) for pid in procs.pid) and \
            ascend.pids_may_tell_legacy(strings_used(store, store.slices.cat)):
        return MINDSPORE_LEGACY
    return UNRECOGNISED


def _most_used(store: TraceStore, ids: np.ndarray) -> list[str]:
    ids = np.asarray(ids)
    counts = Counter({store.strings[i]: int(n) for i, n in enumerate(np.bincount(ids[ids >= 0]).tolist()) if n})
    return [s for s, _ in counts.most_common(LISTED)]


def looks_like(store: TraceStore) -> str:
    """A phrase for what a trace that no producer wrote looks like."""
    cats = strings_used(store, store.slices.cat)
    for markers, what in _LOOKS_LIKE_BY_CATEGORY:
        if cats & set(markers):
            return what
    names = [n for n in store.processes.name if n]
    for prefix, what in _LOOKS_LIKE_BY_PROCESS:
        if any(n.startswith(prefix) for n in names):
            return what
    shown_names = ", ".join(repr(n) for n in names[:LISTED]) or "none"
    shown_cats = ", ".join(repr(c) for c in _most_used(store, store.slices.cat)) or "none"
    return (f"a Chrome trace of {len(store.slices):,} slices (processes {shown_names}; categories {shown_cats})")


def unrecognised_note(store: TraceStore) -> str:
    """The load report's line for a trace no producer wrote."""
    return (f"not an Ascend timeline (no Ascend Hardware, HCCL or MindSpore device process) nor a "
            f"{kineto.NAME} trace: it looks like {looks_like(store)}, and is not read as one of them "
            f"(no slice counts as device compute or communication)")


def load_note(store: TraceStore) -> str:
    """The line a card's load report carries about its producer ("" for the Ascend generations)."""
    if not len(store.slices):
        return ""
    producer = _slice_kind_producer(store, _ascend_named(store))
    if producer is not None:
        return producer.card_note(store)
    if producer_of(store) == UNRECOGNISED:
        return unrecognised_note(store)
    return ""
