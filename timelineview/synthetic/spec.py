"""What a synthetic card is made of (``CardSpec``) and how it is written (``WriteOptions``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from timelineview.producers import msprof

# The layouts written (the msprof formats' ids are the producers' module's)
MSPROF_LAYOUT = msprof.FORMAT_ID
PER_ITERATION_LAYOUT = msprof.PER_ITERATION_FORMAT_ID
OBJECT_LAYOUT = "object"  # the msprof layout wrapped in a JSON object
GEN_C_LAYOUT, GEN_B_LAYOUT = "mindspore_gen_c", "mindspore_gen_b"
LAYOUTS = (MSPROF_LAYOUT, PER_ITERATION_LAYOUT, GEN_C_LAYOUT, GEN_B_LAYOUT, OBJECT_LAYOUT)
TASK_TYPES = ("real", "other")  # WriteOptions.task_types
OTHER_TYPE_LAYOUTS = (MSPROF_LAYOUT, OBJECT_LAYOUT)  # layouts that can write every task type as "Other"
MAX_MICROBATCHES = 16


@dataclass(frozen=True)
class CardSpec:
    """Workload of one card (one rank).

    Durations are drawn from ``seed`` and ``rank``, so the same spec always gives the same
    trace. ``compute_scale`` multiplies every compute task duration (a slow card),
    ``data_wait_us`` is the mean data-wait phase at the start of each step (a slow data
    pipeline), ``clock_offset_ns`` is added to every timestamp of this card (its clock runs
    ahead). ``with_duplicates`` writes some X events twice; ``with_overlaps`` adds a host lane
    whose slices partially overlap without nesting. ``slow_link`` = (src, dst) makes the
    transfers from rank src to rank dst ``slow_link_factor`` times slower (only the src card
    writes them); with ``slow_link_delays`` its collectives take longer by the extra transfer time
    (the same bytes as on a healthy link), else the same time with fewer bytes. A slow card
    (``compute_scale`` > 1) is the card the others wait for.
    ``pipeline_stages`` (with ``pipeline``) makes the ranks the stages of one pipeline: rank r receives
    its activations from rank r − 1's send (rank 0 receives nothing, the last rank sends nothing), each
    receive ends with its sender's send, and each card's forward starts after its own receive, so the
    stages start one after the other; without it every card's receive and send end together.
    ``microbatches`` (with ``pipeline_stages``, 0: off) runs each step as a one-forward-one-backward pipeline
    of that many microbatches: forwards send activations to the next stage, backwards send gradients to the
    previous one, pair by pair (``one_f_one_b``), and the collectives follow the pipeline's last backward.
    ``memory_scale`` multiplies the device memory the trace's ``NPU MEM`` counters give (a card that
    holds more memory, as the trace alone tells it).

    Two phenomena of real clusters (both off by default, which leaves every trace as before):
    ``step_stall_share`` (read from the cluster's first card) is the share of steps in which a
    data-loader hiccup, shared by every card (drawn from the cluster seed and the step only), lengthens
    the data wait so that the step is 20–50 % longer: heavy-tailed step-to-step noise.
    ``host_bubble_share`` is the share of this card's step boundaries that a host bubble moves later:
    the step marker ends late inside the next step's data wait, so that step k is long on this card and
    step k + 1 short by as much, with the device work where it was.
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
    pipeline_stages: bool = False  # ranks are successive stages: send/receive joined pair by pair
    microbatches: int = 0  # with pipeline_stages: a 1F1B pipeline of this many microbatches per step
    with_duplicates: bool = False
    with_overlaps: bool = False
    planes: int = 4  # HCCL link planes per communication group
    device_id: int | None = None  # default: rank % 8
    slow_link: tuple[int, int] | None = None  # (src, dst) ranks of a link that moves data slowly
    slow_link_factor: float = 1.0  # that link's bandwidth is divided by this
    slow_link_delays: bool = False  # the slow link lengthens its collectives (else fewer bytes fit)
    memory_scale: float = 1.0
    slow_op_types: tuple[str, ...] = ()  # base op types (``MatMulV2``) made slower on this card
    slow_op_factor: float = 1.0  # their durations are multiplied by this
    step_stall_share: float = 0.0
    host_bubble_share: float = 0.0

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
        if self.slow_link_factor <= 0:
            raise ValueError("slow_link_factor must be > 0")
        if self.pipeline_stages and not self.pipeline:
            raise ValueError("pipeline_stages needs pipeline")
        if self.microbatches and not (self.pipeline_stages and 1 <= self.microbatches <= MAX_MICROBATCHES):
            raise ValueError(f"microbatches needs pipeline_stages and must be in 1..{MAX_MICROBATCHES}")
        if self.memory_scale <= 0:
            raise ValueError("memory_scale must be > 0")
        if not (0 <= self.step_stall_share <= 1 and 0 <= self.host_bubble_share <= 1):
            raise ValueError("step_stall_share and host_bubble_share must be in 0..1")

    def with_(self, **changes) -> CardSpec:
        return replace(self, **changes)


@dataclass(frozen=True)
class WriteOptions:
    """Layout-level switches (they change the file, not the workload).

    ``pretty`` writes each event indented over several lines; ``be_events`` adds a lane of
    ``B``/``E`` pairs (the last ``B`` never closed); ``instants`` adds ``i`` events;
    ``step_trace`` adds the ``Step Trace(Model ID:2)`` thread to the msprof layouts (the
    per-iteration layout always has it); ``per_event_metadata`` keeps MindSpore Gen C's two
    ``thread_sort_index`` records per device event. ``task_types="other"`` (msprof layouts only)
    writes what some CANN 7 / torch_npu 2024 traces hold: ``"Task Type": "Other"`` (``"other"``
    for ``MemcopyAsync``) on every hardware task, compute and runtime or collective ones alike,
    with runtime task names (``NOTIFY_WAIT``, ``MEMCPY_ASYNC``, ``REDUCE_ASYNC_V2``, ...) and some
    tasks named just ``Other``; the file's Overlap Analysis lanes still follow the true compute.
    ``memory_counters=False`` leaves out the ``NPU MEM`` counters (msprof layouts): a card that tells
    nothing of its memory unless memory files are written beside it.
    """

    pretty: bool = False
    be_events: bool = False
    instants: bool = False
    step_trace: bool = False
    per_event_metadata: bool = True
    task_types: str = "real"
    memory_counters: bool = True

    def validate(self, layout: str) -> None:
        """Raise ``ValueError`` for options the layout cannot write."""
        if self.task_types not in TASK_TYPES:
            raise ValueError(f"task_types must be one of {TASK_TYPES}")
        if self.task_types != "real" and layout not in OTHER_TYPE_LAYOUTS:
            raise ValueError(f"task_types={self.task_types!r} needs one of the layouts {OTHER_TYPE_LAYOUTS}")
