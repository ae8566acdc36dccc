"""A file's load report from its chunks' drops, notes and truncation."""

from __future__ import annotations

from collections import Counter
from operator import itemgetter

from timelineview.model.decode.chunk_decode import split_chunk
from timelineview.model.decode.chunk_result import MAX_NAME_CHARS, ChunkResult
from timelineview.model.load.chunked.file_job import FileJob
from timelineview.model.store.report import MAX_EXAMPLES

_REASON = itemgetter(2)  # of a chunk's drop: (offset, ordinal, reason)


class _ElementPlaces:
    """File offsets of a decoded range's elements by ordinal, found when first asked for
    (the fast decode paths do not keep them; only reported events need them)."""

    def __init__(self, path: str, chunk: ChunkResult) -> None:
        self.path, self.chunk = path, chunk
        self.starts: list[int] | None = None

    def __call__(self, ordinal: int) -> int:
        if self.starts is None:
            ch = self.chunk
            try:
                self.starts = (split_chunk(self.path, ch.start, ch.end)[1].starts + ch.start).tolist()
            except OSError:
                self.starts = []
        return self.starts[ordinal] if 0 <= ordinal < len(self.starts) else self.chunk.start


def file_report(job: FileJob) -> None:
    """Turn the chunks' drops and notes into the file's report (per-file event indices)."""
    rep = job.report
    first = cut = 0
    lossy = False
    for k in range(len(job.ranges)):
        ch = job.results[k]
        rep.bytes_read += ch.end - ch.start
        rep.counts_by_ph.update(ch.counts_by_ph)
        place = _ElementPlaces(job.read_path, ch)
        shown = max(0, MAX_EXAMPLES - len(rep.examples))  # drops with their places; the rest are counted
        for offset, ordinal, reason in ch.dropped[:shown]:
            if offset < 0:  # the fast paths do not keep places
                offset = place(ordinal)
            rep.drop(reason, job.path, offset, first + ordinal)
        if len(ch.dropped) > shown:
            rep.count_dropped(Counter(map(_REASON, ch.dropped[shown:])))
        rep.warn_all([f"{job.path} @ byte {offset if offset >= 0 else place(ordinal)}, event #{first + ordinal}: {note}"
                      for offset, ordinal, note in ch.notes]
                     + [f"{job.path} @ byte {offset}: {text}" for offset, text in ch.problems])
        lossy |= ch.lossy_numbers
        cut += ch.cut_names
        first += ch.n_elements
    if lossy:
        rep.warn(f"{job.path}: numeric timestamps of 2^42 µs or more are only as exact as float64 "
                 "(write them as strings for ns precision)")
    if cut:
        rep.warn(f"{job.path}: {cut} name(s) longer than {MAX_NAME_CHARS:,} characters cut to that length")
    if job.bounds is None or job.bounds.error:
        return
    last = job.results.get(len(job.ranges) - 1)
    if job.ranges and last is not None:
        cut_short = last.truncated or (not job.bounds.closed and not last.closed)
        if cut_short:
            rep.truncated = True
            rep.truncated_path = job.path
            with_data = [r for r in job.results.values() if r.n_elements]
            rep.truncated_offset = max((r.end for r in with_data), default=job.bounds.start)
    elif not job.bounds.closed and job.bounds.form != "empty":
        rep.truncated = True
        rep.truncated_path = job.path
        rep.truncated_offset = job.bounds.start
    if not rep.truncated:  # the copy's end is the truncation's cause only when the trace is cut short there
        rep.truncated_why = ""
