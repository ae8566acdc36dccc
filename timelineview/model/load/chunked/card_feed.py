"""A card's decoded chunks handed to its builder in file order, each chunk's start confirmed first."""

from __future__ import annotations

from timelineview.model.decode.chunk_decode import decode_range
from timelineview.model.discovery import CardSource
from timelineview.model.load.chunked.file_job import FileJob
from timelineview.model.load.chunked.file_report import file_report
from timelineview.model.store.assemble import CardBuilder
from timelineview.model.store.report import LoadReport
from timelineview.model.store.trace_store import TraceStore


class CardFeed:
    """Hands a card's decoded chunks to its ``CardBuilder`` in file order, as they arrive.

    Chunk k is taken only once chunk k-1 has been, because k-1's end says whether k
    started at a real boundary (see ``layout_scan``).
    """

    def __init__(self, src: CardSource, jobs: list[FileJob]) -> None:
        self.src = src
        self.jobs = jobs
        size = sum(b - a for j in jobs for a, b in j.ranges)
        self.builder = CardBuilder(src.label, src.rank, [j.path for j in jobs], [j.read_path for j in jobs],
                                   size // 200)
        self.j = 0
        self.k = 0

    def pump(self) -> None:
        while self.j < len(self.jobs):
            job = self.jobs[self.j]
            if self.k >= len(job.ranges):
                self.j, self.k = self.j + 1, 0
                continue
            if self.k not in job.results:
                return
            packed = job.packed.pop(self.k, None)
            if packed is not None and _starts_confirmed(job, self.k, len(packed.results)):
                self.builder.add_packed(packed)  # the whole task at once: one remap, one copy
                self.k += len(packed.results)
                continue
            if self.k > 0:
                _confirm_start(job, self.k)
            self.builder.add(job.results[self.k])
            self.k += 1

    @property
    def taken(self) -> int:
        """Elements handed to the builder so far."""
        return self.builder.base

    @property
    def taken_bytes(self) -> int:
        """The bytes of the chunks handed to the builder so far."""
        return sum(p.end - p.start for p in self.builder.places)

    def snapshot(self) -> TraceStore:
        """A store of the chunks taken so far (the file's first part), for a picture in progress."""
        return self.builder.snapshot()

    def finish(self) -> TraceStore:
        self.pump()
        report = LoadReport()
        for job in self.jobs:
            file_report(job)
            report.merge(job.report)
        if not self.src.files:
            report.error = f"{self.src.label}: no trace files found" if not self.src.problems else \
                f"{self.src.label}: no readable trace file ({'; '.join(self.src.problems)})"
        for problem in self.src.problems if self.src.files else ():  # files found but not read
            report.warn(problem)
        return self.builder.finish(report)


def _ends_at_cut(job: FileJob, k: int) -> bool:
    """Chunk k ended exactly at its planned cut (or, its last event damaged, where chunk k+1
    starts: its resync point), so chunk k+1 starts at a real boundary. (A chunk decoded again
    from where the one before it really ended may end past its cut, inside chunk k+1.)"""
    res = job.results.get(k)
    return res is not None and (res.end == job.ranges[k][1]
                                or k + 1 < len(job.ranges) and res.end == job.ranges[k + 1][0])


def _starts_confirmed(job: FileJob, k: int, count: int) -> bool:
    """Whether ranges k .. k+count-1 all start at real boundaries (no re-decode needed)."""
    return all(_ends_at_cut(job, j - 1) for j in range(max(k, 1), k + count))


def _confirm_start(job: FileJob, k: int) -> None:
    """Re-decode chunk k if chunk k-1 showed that k's start was not a real boundary."""
    if _ends_at_cut(job, k - 1):
        return
    prev = job.results[k - 1]
    nominal_end = job.ranges[k - 1][1]
    if prev.end > nominal_end:
        # the previous chunk's last event ran past the cut: decode from its real end
        a, b = prev.end, max(job.ranges[k][1], prev.end)
        job.results[k] = decode_range(job.read_path, job.index, a, b, k == len(job.ranges) - 1)
    else:
        job.report.drop("unreadable bytes between events", job.path, prev.end)
