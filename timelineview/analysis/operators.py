"""Operator tables (metrics.md §7): the compute tasks of a card grouped by name and by task type.

One pass of ``ufunc.at`` per statistic over the interned name (or task type) ids of the compute
slices: a 10 M-slice card takes tens of milliseconds, no sort. Across the cards of a cluster, the
per-name totals are compared so that an operator slow on one card stands out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.classify import Classification
from timelineview.model.store.trace_store import TraceStore

TOP_OPERATORS = 50  # rows of each table in ``stats --json``
UNTYPED = "Other"  # task type of compute tasks whose producer wrote none (older files)
UNNAMED = "(unnamed)"
NS_PER_US = 1000.0


@dataclass(frozen=True)
class OperatorTable:
    """Statistics per group (name or task type), rows ordered by total duration, descending.

    ``ids`` are the string ids of the groups in the card's string table (-1: no name/type), so a
    view can select a row's slices with ``store.slices.name == ids[k]``.
    """

    labels: list[str]
    ids: np.ndarray  # int64 string id per row
    count: np.ndarray  # int64
    total_ns: np.ndarray  # int64
    min_ns: np.ndarray  # int64
    max_ns: np.ndarray  # int64
    compute_total_ns: int  # Σ durations of all compute tasks (the share's denominator)

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def mean_ns(self) -> np.ndarray:
        return self.total_ns / np.maximum(self.count, 1)

    @property
    def share(self) -> np.ndarray:
        return self.total_ns / self.compute_total_ns if self.compute_total_ns else np.zeros(len(self))

    def rows(self, key: str, limit: int | None = TOP_OPERATORS) -> list[dict]:
        """JSON rows (µs), ``key`` naming the label field (``name`` or ``task_type``)."""
        n = len(self) if limit is None else min(limit, len(self))
        mean, share = self.mean_ns, self.share
        return [{key: self.labels[k], "count": int(self.count[k]), "total_us": int(self.total_ns[k]) / NS_PER_US,
                 "mean_us": float(mean[k]) / NS_PER_US, "min_us": int(self.min_ns[k]) / NS_PER_US,
                 "max_us": int(self.max_ns[k]) / NS_PER_US, "share": float(share[k])} for k in range(n)]


@dataclass(frozen=True)
class CardOperators:
    """The operator tables of one card."""

    by_name: OperatorTable
    by_type: OperatorTable

    def document(self) -> dict:
        """``operators`` of a card in ``stats --json``: the top names and every task type."""
        return {"by_name": self.by_name.rows("name"), "by_type": self.by_type.rows("task_type", limit=None)}


def _grouped(store: TraceStore, group_ids: np.ndarray, durations: np.ndarray, compute_total: int,
             missing_label: str) -> OperatorTable:
    """Group ``durations`` by ``group_ids`` (string ids, -1 = none) with one ``ufunc.at`` each."""
    slot = group_ids + 1  # slot 0 holds id -1
    size = len(store.strings) + 1
    count = np.bincount(slot, minlength=size).astype(np.int64)
    total = np.zeros(size, np.int64)
    np.add.at(total, slot, durations)
    low = np.full(size, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(low, slot, durations)
    high = np.zeros(size, np.int64)
    np.maximum.at(high, slot, durations)
    used = np.flatnonzero(count)
    labels = [store.strings[s - 1] if s > 0 else missing_label for s in used]
    # By total, descending; ties by label so the order does not depend on string ids.
    order = sorted(range(len(used)), key=lambda k: (-int(total[used[k]]), labels[k]))
    used = used[np.array(order, dtype=np.int64)] if order else used
    return OperatorTable(labels=[labels[k] for k in order], ids=used.astype(np.int64) - 1,
                         count=count[used], total_ns=total[used], min_ns=low[used], max_ns=high[used],
                         compute_total_ns=compute_total)


def card_operators(store: TraceStore, classification: Classification) -> CardOperators:
    """Operator tables of one card over its compute tasks (metrics.md §1 and §7)."""
    sl = store.slices
    mask = classification.compute
    durations = sl.dur[mask].astype(np.int64, copy=False)
    compute_total = int(durations.sum())
    by_name = _grouped(store, sl.name[mask].astype(np.int64), durations, compute_total, UNNAMED)
    by_type = _grouped(store, sl.task_type[mask].astype(np.int64), durations, compute_total, UNTYPED)
    return CardOperators(by_name, _merge_untyped(by_type))


def _merge_untyped(table: OperatorTable) -> OperatorTable:
    """Fold a literal ``Other`` type and compute tasks without a type into one ``Other`` row."""
    rows = [k for k, label in enumerate(table.labels) if label.strip().lower() == UNTYPED.lower()]
    if len(rows) < 2:
        return table
    keep = [k for k in range(len(table)) if k not in rows]
    first = rows[0]
    merged = {"count": table.count[rows].sum(), "total_ns": table.total_ns[rows].sum(),
              "min_ns": table.min_ns[rows].min(), "max_ns": table.max_ns[rows].max()}
    labels = [table.labels[k] for k in keep] + [UNTYPED]
    cols = {name: np.append(getattr(table, name)[keep], value) for name, value in merged.items()}
    ids = np.append(table.ids[keep], table.ids[first])
    order = sorted(range(len(labels)), key=lambda k: (-int(cols["total_ns"][k]), labels[k]))
    return OperatorTable(labels=[labels[k] for k in order], ids=ids[order],
                         compute_total_ns=table.compute_total_ns,
                         **{name: col[order] for name, col in cols.items()})


@dataclass(frozen=True)
class OperatorAcrossCards:
    """One operator name over the cards of a cluster: its per-card totals compared."""

    name: str
    mean_total_ns: float  # over all cards; a card without the operator counts 0
    min_total_ns: int
    max_total_ns: int
    max_card: str
    cards: int  # how many cards ran it
    # its total on each card compared (ns, in the order given; 0 where absent): what a mark is judged on
    per_card_ns: np.ndarray | None = field(default=None, compare=False, repr=False)

    def document(self) -> dict:
        return {"name": self.name, "mean_total_us": self.mean_total_ns / NS_PER_US,
                "min_total_us": self.min_total_ns / NS_PER_US, "max_total_us": self.max_total_ns / NS_PER_US,
                "max_card": self.max_card, "cards": self.cards}


def operators_across_cards(cards: Sequence[tuple[str, CardOperators]],
                           limit: int | None = TOP_OPERATORS) -> list[OperatorAcrossCards]:
    """Per operator name across ``(card label, operators)``: mean, min and max total and the card
    with the max, ordered by mean total, descending. A card that never ran an operator counts as 0
    in its mean and min, so an operator present on some cards only stands out too."""
    if not cards:
        return []
    totals: dict[str, np.ndarray] = {}
    for c, (_, ops) in enumerate(cards):
        for label, total in zip(ops.by_name.labels, ops.by_name.total_ns.tolist(), strict=True):
            totals.setdefault(label, np.zeros(len(cards), np.int64))[c] += total
    out = []
    for name, per_card in totals.items():
        top = int(np.argmax(per_card))
        out.append(OperatorAcrossCards(name=name, mean_total_ns=float(per_card.mean()),
                                       min_total_ns=int(per_card.min()), max_total_ns=int(per_card[top]),
                                       max_card=cards[top][0], cards=int(np.count_nonzero(per_card)),
                                       per_card_ns=per_card))
    out.sort(key=lambda o: (-o.mean_total_ns, o.name))
    return out if limit is None else out[:limit]


TEXT_ROWS = 10  # operators per card in the readable output


def operators_text(card: str, operators: dict | None, rows: int = TEXT_ROWS) -> str:
    """The top operators of a card's ``operators`` document as a table."""
    from timelineview.analysis.text_table import format_table
    from timelineview.analysis.vocabulary import header

    by_name = (operators or {}).get("by_name") or []
    if not by_name:
        return ""
    table = [[r["name"], r["count"], r["total_us"], r["mean_us"], r["max_us"], f"{100 * r['share']:.1f} %"]
             for r in by_name[:rows]]
    return f"Top operators of {card}\n" + format_table(
        ["Operator", *(header(k) for k in ("count", "total_us", "mean_us", "max_us", "share"))], table)
