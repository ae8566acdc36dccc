"""What a synthetic card is made of (``CardSpec``) and how it is written (``WriteOptions``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

LAYOUTS = ("msprof", "msprof_per_iteration", "mindspore_gen_c", "mindspore_gen_b", "object")


@dataclass(frozen=True)
class CardSpec:
    """Workload of one card (one rank).

    Durations are drawn from ``seed`` and ``rank``, so the same spec always gives the same
    trace. ``compute_scale`` multiplies every compute task duration (a slow card),
    ``data_wait_us`` is the mean data-wait phase at the start of each step (a slow data
    pipeline), ``clock_offset_ns`` is added to every timestamp of this card (its clock runs
    ahead). ``with_duplicates`` writes some X events twice; ``with_overlaps`` adds a host lane
    whose slices partially overlap without nesting.
    """

    seed: int = 0
    rank: int = 0
    steps: int = 10
    streams: int = 2  # compute hardware streams, 1..4 (a communication stream is added)
    tasks_per_step: int = 400  # compute tasks per step, over all compute streams
    compute_scale: float = 1.0
    data_wait_us: float = 2000.0
    clock_offset_ns: int = 0
    pipeline: bool = False
    with_duplicates: bool = False
    with_overlaps: bool = False
    planes: int = 4  # HCCL link planes per communication group
    device_id: int | None = None  # default: rank % 8

    @property
    def device(self) -> int:
        return self.rank % 8 if self.device_id is None else self.device_id

    def validate(self) -> None:
        """Raise ``ValueError`` for a spec the generator cannot honour."""
        if not 1 <= self.streams <= 4:
            raise ValueError("streams must be in 1..4")
        if self.steps < 1 or self.tasks_per_step < 8:
            raise ValueError("need steps >= 1 and tasks_per_step >= 8")
        if self.compute_scale <= 0 or self.data_wait_us < 0:
            raise ValueError("compute_scale must be > 0 and data_wait_us >= 0")
        if not 1 <= self.planes <= 8:
            raise ValueError("planes must be in 1..8")

    def with_(self, **changes) -> CardSpec:
        return replace(self, **changes)


@dataclass(frozen=True)
class WriteOptions:
    """Layout-level switches (they change the file, not the workload).

    ``pretty`` writes each event indented over several lines; ``be_events`` adds a lane of
    ``B``/``E`` pairs (the last ``B`` never closed); ``instants`` adds ``i`` events;
    ``step_trace`` adds the ``Step Trace(Model ID:2)`` thread to the msprof layouts (the
    per-iteration layout always has it); ``per_event_metadata`` keeps MindSpore Gen C's two
    ``thread_sort_index`` records per device event.
    """

    pretty: bool = False
    be_events: bool = False
    instants: bool = False
    step_trace: bool = False
    per_event_metadata: bool = True
