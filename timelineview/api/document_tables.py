"""Tables read from the ``stats --json`` document (docs/metrics.md §5–§8): the same numbers as ``stats``,
one row per card, step, operator, collective, link or finding."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import orjson

from timelineview.api.schema import BOOL, DOUBLE, INT32, INT64, STRING, STRINGS, Column, TableSource, TableSpec

CARD = (Column("card", STRING, "the card's name"), Column("rank", INT32, "its rank; null when unknown"))
# the whole-card and per-step metrics of metrics.md §5 (µs unless the name says otherwise)
METRICS = ("span_us", "compute_us", "communication_us", "overlapped_us", "pure_communication_us", "free_us",
           "uncaptured_us", "overlap_ratio", "idle_gap_count", "idle_gap_total_us", "idle_gap_max_us",
           "idle_gap_communication_us", "idle_gap_free_us")
COUNTS = {"idle_gap_count"}
STEP_EXTRA = ("stage_us", "stage_free_us", "step_interval_us", "fp_bp_us", "tail_us")
SEE_METRICS = "metrics.md §5"


def _metric_columns(names: Iterable[str]) -> tuple[Column, ...]:
    return tuple(Column(n, INT64 if n in COUNTS else DOUBLE, SEE_METRICS) for n in names)


def _rows(spec: TableSpec, rows: list[dict]):
    """An Arrow table of ``spec``'s columns from document rows (a key a row lacks is null)."""
    from timelineview.api.extras import require

    pa = require("pyarrow")
    schema = spec.arrow_schema()
    names = [c.name for c in spec.columns]
    return pa.Table.from_pylist([{k: r.get(k) for k in names} for r in rows], schema=schema)


def _per_card(section: Callable[[dict], list[dict]]) -> Callable[[TableSource], list[dict]]:
    """The rows ``section(card document)`` of every card by rank, each with its card's name and rank."""
    def rows(source: TableSource) -> list[dict]:
        return [{"card": c["card"], "rank": c.get("rank"), **row}
                for c in source.document()["cards"] for row in section(c) or []]
    return rows


def _spec(name: str, doc: str, columns: tuple[Column, ...], rows: Callable[[TableSource], list[dict]]) -> TableSpec:
    spec = TableSpec(name, doc, columns, lambda source: _rows(spec, rows(source)))  # ``spec`` is bound by then
    return spec


CARDS = _spec("cards", "one row per card: its whole-run metrics (the card objects of stats --json)", (
    *CARD, Column("path", STRING, "the card's file or folder"), Column("events", INT64, "events loaded"),
    Column("lanes", INT64, "lanes"), *_metric_columns(METRICS),
    Column("clock_offset_us", DOUBLE, "subtracted from the card's times to align it with the first card (§4)")),
    lambda source: source.document()["cards"])

STEPS = _spec("steps", "one row per step of each card (metrics.md §5)", (
    *CARD, Column("step", INT64, "the step's number"), Column("start_us", DOUBLE, "µs from the card's start"),
    Column("dur_us", DOUBLE, "the step's duration"), *_metric_columns(METRICS),
    *(Column(n, DOUBLE, SEE_METRICS) for n in STEP_EXTRA)),
    _per_card(lambda c: c.get("steps")))

_OP_STATS = (Column("count", INT64, "slices"), Column("total_us", DOUBLE, "their total duration"),
             Column("mean_us", DOUBLE, "mean"), Column("min_us", DOUBLE, "shortest"),
             Column("max_us", DOUBLE, "longest"), Column("share", DOUBLE, "total over the card's compute total"))
OPERATORS = _spec("operators", "one row per compute operator name of each card (metrics.md §7)",
                  (*CARD, Column("name", STRING, "operator name"), *_OP_STATS),
                  _per_card(lambda c: (c.get("operators") or {}).get("by_name")))
TASK_TYPES = _spec("task_types", "one row per task type of each card (metrics.md §7)",
                   (*CARD, Column("task_type", STRING, "the Task Type of the device tasks"), *_OP_STATS),
                   _per_card(lambda c: (c.get("operators") or {}).get("by_type")))

MAIN_PLANE_FIGURES = (("transit_us", "transit"), ("wait_us", "wait"), ("synchronization_us", "synchronisation"),
                      ("idle_us", "idle"))


def _comm_op_row(op: dict) -> dict:
    """A ``comm_ops`` entry with its ``main_plane`` object as ``main_…`` columns."""
    main = op.get("main_plane") or {}
    return {**op, "main_plane": main.get("plane"), **{f"main_{k}": main.get(k) for k, _ in MAIN_PLANE_FIGURES}}


COMM_OPS = _spec("comm_ops", "one row per collective communication operation of each card (metrics.md §6)", (
    *CARD, Column("name", STRING, "the collective"), Column("start_us", DOUBLE, "its start, µs on the card's clock"),
    Column("elapse_us", DOUBLE, "elapsed"), Column("transit_us", DOUBLE, "time moving data"),
    Column("wait_us", DOUBLE, "time waiting"), Column("synchronization_us", DOUBLE, "wait before the first transit"),
    Column("idle_us", DOUBLE, "neither"), Column("wait_ratio", DOUBLE, "wait / (wait + transit)"),
    Column("main_plane", INT64, "N of its main Plane N: the producer's figures below are measured there; "
                                "null (and they are) when it has no wait task"),
    *(Column(f"main_{key}", DOUBLE, f"the producer's {what}, on the main plane alone (metrics.md §6)")
      for key, what in MAIN_PLANE_FIGURES)),
    _per_card(lambda c: [_comm_op_row(op) for op in (c.get("communication") or {}).get("comm_ops") or []]))

LINKS = _spec("links", "one row per link between two ranks, joined over the cards (metrics.md §6)", (
    Column("link", STRING, "\"src-dst\""), Column("src", INT64, "sending rank"), Column("dst", INT64, "receiving rank"),
    Column("transport", STRING, "SDMA, RDMA, …"), Column("link_type", STRING, "as the producer names it"),
    Column("bytes", INT64, "bytes moved"), Column("transit_us", DOUBLE, "time moving them"),
    Column("count", INT64, "transfers"), Column("bandwidth_gbps", DOUBLE, "bytes / transit, GB/s"),
    Column("slow", BOOL, "a slow link of metrics.md §6")),
    lambda source: source.document().get("links") or [])


def _finding_rows(source: TableSource) -> list[dict]:
    return [{**f, "evidence": orjson.dumps(f.get("evidence") or []).decode()}
            for f in source.document().get("findings") or []]


FINDINGS = _spec("findings", "one row per finding (metrics.md §8): anomalies first, then by severity", (
    Column("rule", STRING, "the rule that fired"),
    Column("kind", STRING, "anomaly (names a card, a link or a step) or where the time goes (metrics.md §8)"),
    Column("severity", STRING, "high, medium or low"),
    Column("cards", STRINGS, "the cards it names (empty: a step slow for the whole job)"),
    Column("step", INT64, "the step; null for the whole run"),
    Column("metric", STRING, "the metric compared"), Column("value", DOUBLE, "its value"),
    Column("reference", DOUBLE, "what it is compared with"), Column("advice", STRING, "what to look at"),
    Column("method", STRING, "how it was decided"),
    Column("evidence", STRING, "JSON list of {card, start_us, end_us, lane[, name]} spans")), _finding_rows)


def _memory_rows(card: dict) -> list[dict]:
    memory = card.get("memory") or {}
    return [{"component": name, **peaks} for name, peaks in (memory.get("components") or {}).items()]


MEMORY = _spec("memory", "one row per memory component of each card: its peaks (metrics.md §11)", (
    *CARD, Column("component", STRING, "APP, PTA, GE or PTA+GE"),
    Column("peak_allocated_mb", DOUBLE, "the most allocated at once, MB (2^20 bytes)"),
    Column("peak_allocated_at_us", DOUBLE, "when, µs from the card's start"),
    Column("peak_reserved_mb", DOUBLE, "the most reserved at once, MB"),
    Column("peak_reserved_at_us", DOUBLE, "when, µs from the card's start"),
    Column("peak_active_mb", DOUBLE, "the most active at once, MB"),
    Column("reserved_at_peak_mb", DOUBLE, "reserved at the allocated peak, MB"),
    Column("unallocated_at_peak_mb", DOUBLE, "reserved but not allocated at the allocated peak, MB")),
    _per_card(_memory_rows))


def _allocation_rows(card: dict) -> list[dict]:
    memory = card.get("memory") or {}
    live = {(a.get("name"), a.get("allocated_at_us")) for a in memory.get("live_at_peak") or []}
    return [{**a, "live_at_peak": (a.get("name"), a.get("allocated_at_us")) in live}
            for a in memory.get("largest_allocations") or []]


ALLOCATIONS = _spec("allocations", "the largest allocations of each card (metrics.md §11), by size", (
    *CARD, Column("name", STRING, "the operator that allocated it"), Column("size_mb", DOUBLE, "MB"),
    Column("allocated_at_us", DOUBLE, "µs from the card's start"),
    Column("released_at_us", DOUBLE, "µs from the card's start; null when never released"),
    Column("live_at_peak", BOOL, "alive at the allocated peak")),
    _per_card(_allocation_rows))
