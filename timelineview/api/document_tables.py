"""Tables read from the ``stats --json`` document (docs/metrics.md §5–§8): the same numbers as ``stats``,
one row per card, step, operator, collective, link or finding."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import orjson

from timelineview.analysis.vocabulary import quantity
from timelineview.api.schema import BOOL, DOUBLE, INT32, INT64, STRING, STRINGS, Column, TableSource, TableSpec
from timelineview.producers import hccl

CARD = (Column("card", STRING, "the card's name"), Column("rank", INT32, quantity("rank").tooltip))
# the whole-card and per-step metrics of metrics.md §5 (µs unless the name says otherwise)
METRICS = ("span_us", "compute_us", "communication_us", "overlapped_us", "pure_communication_us", "free_us",
           "uncaptured_us", "overlap_ratio", "idle_gap_count", "idle_gap_total_us", "idle_gap_max_us",
           "idle_gap_communication_us", "idle_gap_free_us")
COUNTS = {"idle_gap_count"}
STEP_EXTRA = ("stage_us", "window_free_us", "step_interval_us", "fp_bp_us", "tail_us")


def declared(key: str, type_: str = DOUBLE) -> Column:
    """A column of a quantity of the vocabulary: its key, and its definition as the column's meaning."""
    return Column(key, type_, quantity(key).tooltip)


def _metric_columns(names: Iterable[str]) -> tuple[Column, ...]:
    return tuple(declared(n, INT64 if n in COUNTS else DOUBLE) for n in names)


def _rows(spec: TableSpec, rows: list[dict]):
    """An Arrow table of ``spec``'s columns from document rows (a key a row lacks is null)."""
    from timelineview.api.extras import require

    pa = require("pyarrow")
    schema = spec.arrow_schema()
    names = [c.name for c in spec.columns]
    return pa.Table.from_pylist([{k: r.get(k) for k in names} for r in rows], schema=schema)


def per_card(section: Callable[[dict], list[dict]]) -> Callable[[TableSource], list[dict]]:
    """The rows ``section(card document)`` of every card by rank, each with its card's name and rank."""
    def rows(source: TableSource) -> list[dict]:
        return [{"card": c["card"], "rank": c.get("rank"), **row}
                for c in source.document()["cards"] for row in section(c) or []]
    return rows


def document_spec(name: str, doc: str, columns: tuple[Column, ...],
                  rows: Callable[[TableSource], list[dict]]) -> TableSpec:
    """A table of ``columns`` whose rows are ``rows(source)``, read from the stats document."""
    spec = TableSpec(name, doc, columns, lambda source: _rows(spec, rows(source)))  # ``spec`` is bound by then
    return spec


CARDS = document_spec("cards", "one row per card: its whole-run metrics (the card objects of stats --json)", (
    *CARD, Column("path", STRING, "the card's file or folder"), declared("events", INT64),
    declared("start_ns", INT64), declared("lanes", INT64), *_metric_columns(METRICS), declared("clock_offset_us")),
    lambda source: source.document()["cards"])

STEPS = document_spec("steps", "one row per step of each card (metrics.md §5)", (
    *CARD, declared("step", INT64), declared("start_ns", INT64), declared("dur_us"),
    *_metric_columns(METRICS), *(declared(n) for n in STEP_EXTRA)),
    per_card(lambda c: c.get("steps")))

_OP_STATS = (declared("count", INT64), *(declared(k) for k in ("total_us", "mean_us", "min_us", "max_us", "share")))
OPERATORS = document_spec("operators", "one row per compute operator name of each card (metrics.md §7)",
                          (*CARD, Column("name", STRING, "operator name"), *_OP_STATS),
                          per_card(lambda c: (c.get("operators") or {}).get("by_name")))
TASK_TYPES = document_spec("task_types", "one row per task type of each card (metrics.md §7)",
                           (*CARD, Column("task_type", STRING, "the Task Type of the device tasks"), *_OP_STATS),
                           per_card(lambda c: (c.get("operators") or {}).get("by_type")))

COMM_FIGURES = ("transit_us", "wait_us", "synchronization_us", "idle_us", "wait_ratio")
ALL_PLANES = "all_planes"


def _comm_op_row(op: dict) -> dict:
    """A ``comm_ops`` entry with its ``all_planes`` object as ``all_planes_…`` columns."""
    union = op.get(ALL_PLANES) or {}
    row = {k: v for k, v in op.items() if k not in (ALL_PLANES, "bandwidth")}
    return {**row, **{f"{ALL_PLANES}_{k}": union.get(k) for k in COMM_FIGURES}}


COMM_OPS = document_spec("comm_ops", "one row per collective communication operation of each card (metrics.md §6)", (
    *CARD, Column("name", STRING, "the collective"), declared("start_ns", INT64), declared("elapse_us"),
    declared("plane", INT64),
    *(declared(key) for key in COMM_FIGURES), *(declared(f"{ALL_PLANES}_{key}") for key in COMM_FIGURES)),
    per_card(lambda c: [_comm_op_row(op) for op in (c.get("communication") or {}).get("comm_ops") or []]))


def _bandwidth_rows(card: dict) -> list[dict]:
    return [{"name": op["name"], "start_ns": op["start_ns"], **{k: v for k, v in b.items() if k != "packets"}}
            for op in (card.get("communication") or {}).get("comm_ops") or [] for b in op.get("bandwidth") or []]


def _packet_rows(card: dict) -> list[dict]:
    return [{"name": op["name"], "start_ns": op["start_ns"], "transport": b["transport"], **p}
            for op in (card.get("communication") or {}).get("comm_ops") or [] for b in op.get("bandwidth") or []
            for p in b["packets"]]


_OP_KEY = (Column("name", STRING, "the collective"), declared("start_ns", INT64),
           Column("transport", STRING, "RDMA, a copy-engine link type (HCCS, PCIE, SIO) or SDMA (their sum)"))
COMM_BANDWIDTH = document_spec(
    "comm_bandwidth", "one row per transport of each collective of each card: the producer's bandwidth "
    "(CommAnalyzerBandwidth, metrics.md §6)", (
        *CARD, *_OP_KEY, declared("bytes", INT64), declared("transit_us"), declared("count", INT64),
        declared("bandwidth_gbps"),
        declared("large_packet_ratio")),
    per_card(_bandwidth_rows))
COMM_PACKETS = document_spec(
    "comm_packets", "one row per transfer size of each transport of each collective: the producer's size "
    "distribution (metrics.md §6)", (
        *CARD, *_OP_KEY, declared("size_bytes", INT64),
        declared("count", INT64), declared("transit_us")),
    per_card(_packet_rows))

LINKS = document_spec("links", "one row per link between two ranks, joined over the cards (metrics.md §6)", (
    Column("link", STRING, "\"src-dst\""), declared("src", INT64), declared("dst", INT64),
    Column("transport", STRING, f"{hccl.TRANSPORT_SDMA}, {hccl.TRANSPORT_RDMA}, …"),
    Column("link_type", STRING, "as the producer names it"),
    declared("bytes", INT64), declared("transit_us"), declared("count", INT64), declared("bandwidth_gbps"),
    Column("slow", BOOL, "a slow link of metrics.md §6")),
    lambda source: source.document().get("links") or [])

LOCAL_LINKS = document_spec("local_links", "one row per LOCAL link of each card: bytes moved on the card itself, the "
                            "producer's src = dst links (metrics.md §6)", (
    *CARD, Column("link", STRING, "\"src-src\""), declared("src", INT64), declared("dst", INT64),
    Column("transport", STRING, "LOCAL"), Column("link_type", STRING, "as the producer names it (ON_CHIP)"),
    declared("bytes", INT64), declared("transit_us"), declared("count", INT64), declared("bandwidth_gbps")),
    per_card(lambda c: (c.get("communication") or {}).get("local_links")))


def _finding_rows(source: TableSource) -> list[dict]:
    return [{**f, "evidence": orjson.dumps(f.get("evidence") or []).decode()}
            for f in source.document().get("findings") or []]


FINDINGS = document_spec("findings", "one row per finding (metrics.md §8): anomalies first, then by the gain "
                         "of fixing them (§12), then by severity", (
    Column("rule", STRING, "the rule that fired"),
    Column("kind", STRING, "anomaly (names a card, a link or a step) or where the time goes (metrics.md §8)"),
    Column("severity", STRING, "high, medium or low"),
    Column("cards", STRINGS, quantity("cards").tooltip), declared("step", INT64),
    Column("metric", STRING, "the metric compared"), declared("value"), declared("reference"),
    Column("advice", STRING, "what to look at"),
    Column("method", STRING, "how it was decided"),
    Column("evidence", STRING, "JSON list of {card, lane[, name], start_ns, end_ns} spans, ns on the card's clock"),
    declared("gain_us"),
    Column("what_if", STRING, "that what-if's change"),
    declared("steps_on_critical_path", INT64), declared("steps_priced", INT64)),
    _finding_rows)


def _memory_rows(card: dict) -> list[dict]:
    memory = card.get("memory") or {}
    return [{"component": name, **peaks} for name, peaks in (memory.get("components") or {}).items()]


# the components: memory_record.csv's (and the database's MEMORY_RECORD), or the memory counters' owners
COMPONENTS = ("APP, PTA, GE or PTA+GE (memory_record.csv, MEMORY_RECORD); from the trace's memory counters or "
              "NPU_MEM: APP (the application's reserved device memory) and DEVICE (the whole device's: every "
              "process and the driver)")


MEMORY = document_spec("memory", "one row per memory component of each card: its peaks (metrics.md §11)", (
    *CARD, Column("component", STRING, COMPONENTS),
    declared("peak_allocated_mb"), declared("peak_allocated_at_ns", INT64), declared("peak_reserved_mb"),
    declared("peak_reserved_at_ns", INT64), declared("peak_active_mb"), declared("reserved_at_peak_mb"),
    declared("unallocated_at_peak_mb")),
    per_card(_memory_rows))


def _allocation_rows(card: dict) -> list[dict]:
    memory = card.get("memory") or {}
    live = {(a.get("name"), a.get("allocated_at_ns")) for a in memory.get("live_at_peak") or []}
    return [{**a, "live_at_peak": (a.get("name"), a.get("allocated_at_ns")) in live}
            for a in memory.get("largest_allocations") or []]


ALLOCATIONS = document_spec("allocations", "the largest allocations of each card (metrics.md §11), by size", (
    *CARD, Column("name", STRING, "the operator that allocated it"), declared("size_mb"),
    declared("allocated_at_ns", INT64), declared("released_at_ns", INT64),
    Column("live_at_peak", BOOL, "alive at the allocated peak")),
    per_card(_allocation_rows))
