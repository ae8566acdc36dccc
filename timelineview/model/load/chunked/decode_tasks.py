"""A load's ranges grouped into decode tasks, and each task's results kept by its file."""

from __future__ import annotations

from timelineview.model.decode.chunk_decode import unread
from timelineview.model.decode.chunk_result import PackedResults, pack, unpack
from timelineview.model.load.chunked.file_job import FileJob

TASK_BYTES = 8 << 20  # consecutive ranges per worker task (amortises the hand-over)


def group_tasks(jobs: list[FileJob], task_bytes: int | None = None) -> list[tuple[FileJob, list[int]]]:
    """Group consecutive ranges of each file into tasks of about ``task_bytes`` (TASK_BYTES).

    Cards take turns (their files in order), so every card of a cluster makes progress
    from the start instead of one card after another.
    """
    per_card: dict[int, list] = {}
    for job in jobs:
        tasks = per_card.setdefault(job.card, [])
        group: list[int] = []
        size = 0
        for k, (a, b) in enumerate(job.ranges):
            group.append(k)
            size += b - a
            if size >= (task_bytes or TASK_BYTES):
                tasks.append((job, group))
                group, size = [], 0
        if group:
            tasks.append((job, group))
    queues = list(per_card.values())
    return [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]


def task_args(job: FileJob, group: list[int], scanner: bool) -> tuple:
    """``decode_group`` arguments of one task."""
    return job.read_path, job.index, [job.ranges[k] for k in group], group[-1] == len(job.ranges) - 1, scanner


def keep_task(job: FileJob, group: list[int], packed: PackedResults) -> None:
    """Keep a decoded task: joined columns for a whole-task merge, and each range's result."""
    job.packed[group[0]] = packed
    for k, res in zip(group, unpack(packed)):
        job.results[k] = res


def unreadable_task(job: FileJob, group: list[int], exc: OSError) -> PackedResults:
    """Empty results for a task whose file could not be read any more (removed, cut, unreadable
    since its layout was read): the report says the file ends where the task began."""
    reason = f"cannot be read from here on ({exc.strerror or exc})"
    return pack(unread([job.ranges[k] for k in group], job.index, reason))
