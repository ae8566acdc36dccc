"""Ground truth of a generated card: what the file was built from, as compact numpy columns.

All times are absolute int64 nanoseconds *exactly as the file's text represents them* (after
the time base and the clock offset). Slices are the distinct X events (and completed B/E
pairs); an exact duplicate is one row with ``copies == 2``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
import orjson

CATEGORIES = ("compute", "comm_op", "comm_task", "other_hw", "host", "overlap_lane", "step_marker", "scope")
PHASE_X, PHASE_BE = 0, 1

_ARRAYS = {"start_ns": np.int64, "dur_ns": np.int64, "lane": np.int32, "name": np.int32,
           "task_type": np.int16, "category": np.uint8, "copies": np.uint8, "phase": np.uint8,
           "step_start_ns": np.int64, "step_end_ns": np.int64, "step_fp_ns": np.int64,
           "step_bp_ns": np.int64}


@dataclass
class GroundTruth:
    """What one card's files contain. See the package docstring for the lane naming rules."""

    layout: str
    rank: int
    device_id: int
    paths: list[str]  # trace files of the card (for per-iteration: the msprof_* files)
    time_base_ns: int  # true time 0 of the layout (epoch / monotonic base, 0 for relative files)
    clock_offset_ns: int  # file time - (time_base_ns + true time); equal ends across cards after removing it
    spec_clock_offset_ns: int  # CardSpec.clock_offset_ns (not applied by relative-time layouts)
    lane_pid: list[str]  # lanes holding slices, in display order: raw pid token as text
    lane_tid: list[str]
    lane_process: list[str]  # process display name
    lane_thread: list[str]  # thread display name
    start_ns: np.ndarray
    dur_ns: np.ndarray
    lane: np.ndarray  # index into lane_*
    name: np.ndarray  # index into names
    task_type: np.ndarray  # index into task_types (0 is "": no args["Task Type"])
    category: np.ndarray  # index into CATEGORIES
    copies: np.ndarray  # how many identical copies were written (2 = one exact duplicate)
    phase: np.ndarray  # PHASE_X or PHASE_BE (a completed B/E pair)
    names: list[str]
    task_types: list[str]
    step_start_ns: np.ndarray
    step_end_ns: np.ndarray
    step_fp_ns: np.ndarray
    step_bp_ns: np.ndarray
    step_source: str  # "step_trace", "steps_lane", "profiler_step", or "" (no step markers written)
    counter_events: int = 0
    counter_series: int = 0  # distinct (pid, counter name, args key)
    flow_edges: int = 0  # s->f / s->t pairs
    instant_events: int = 0
    open_b_events: int = 0  # B events never closed (drawn to the end by a viewer)
    x_events: int = 0  # X events written, duplicates included
    duplicate_x: int = 0  # extra exact copies among them
    aux_x_events: dict[str, int] = field(default_factory=dict)  # per-iteration subset files
    bytes_written: int = 0
    seconds: float = 0.0
    # Communication (metrics.md §6), file times in ns: per operator {"name", "start_ns", "end_ns",
    # "transit_ns", "wait_ns", "synchronization_ns", "idle_ns"} (unions over every plane) and "producer": the
    # producer's main-plane {"plane", "transit_ns", "wait_ns", "synchronization_ns", "idle_ns"} (None when not
    # modelled: no wait, or network transfers on the main plane); per link sent by this card
    # {"src", "dst", "transport", "link_type", "bytes", "transit_ns", "count"}; the cluster's planted slow
    # link "src-dst" (on every card; "" for none).
    comm_ops: list[dict] = field(default_factory=list)
    links: list[dict] = field(default_factory=list)
    slow_link: str = ""

    @property
    def distinct_x(self) -> int:
        """X events after dropping exact duplicates."""
        return self.x_events - self.duplicate_x

    @property
    def be_pairs(self) -> int:
        return int((self.phase == PHASE_BE).sum())

    @property
    def expected_slices(self) -> int:
        """Slices per metrics.md §5 ``events``: distinct X plus completed B/E pairs."""
        return self.distinct_x + self.be_pairs

    @property
    def end_ns(self) -> np.ndarray:
        return self.start_ns + self.dur_ns

    def mask(self, category: str) -> np.ndarray:
        return self.category == CATEGORIES.index(category)

    def slice_names(self, rows: np.ndarray | None = None) -> list[str]:
        ids = self.name if rows is None else self.name[rows]
        return [self.names[i] for i in ids.tolist()]

    def lane_of(self, process: str, thread: str) -> int:
        """Lane index by display names, or -1."""
        for i, (p, t) in enumerate(zip(self.lane_process, self.lane_thread)):
            if p == process and t == thread:
                return i
        return -1

    def to_json(self) -> bytes:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        return orjson.dumps(d, option=orjson.OPT_SERIALIZE_NUMPY)

    @classmethod
    def from_json(cls, data: bytes | str) -> GroundTruth:
        d = orjson.loads(data)
        for key, dtype in _ARRAYS.items():
            d[key] = np.asarray(d[key], dtype=dtype)
        return cls(**d)
