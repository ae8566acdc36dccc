"""Two runs compared by op type (metrics.md §7.1, §9): node names change between graph builds, op types do not.

Per op type, and per (op type, input shapes), its total time and task count over the matched cards of each run,
as :class:`NameDelta` rows (the op type in ``name``, the shapes in ``shapes``), largest change first. Cards
whose analysis holds no kernel descriptions (summaries written before them) count nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

NS_PER_US = 1000.0
UNTYPED = "(untyped)"


def op_type_totals(session: Any, numbers: list[int], by_shape: bool = False) -> dict:
    """{op type: [total ns, count]} over the cards ``numbers`` of ``session``; ``by_shape``: keyed by
    (op type, input shapes)."""
    out: dict = {}
    stores = getattr(session, "stores", [])
    for i in numbers:
        if i >= len(stores):
            continue
        a = session.analyse(i, ("kernels",))
        table = getattr(a, "kernels", None)
        if a.error or table is None or not len(table):
            continue
        durations = stores[i].slices.dur[table.slices].astype(np.int64)
        g = table.groups
        type_of_task = g.op_type[table.group]
        if by_shape:  # one key per (op type id, shapes id): ids are below 2^31
            key_of_task = type_of_task.astype(np.int64) << 32 | (g.shapes[table.group].astype(np.int64) & 0xFFFFFFFF)
        else:
            key_of_task = type_of_task.astype(np.int64)
        keys, inverse = np.unique(key_of_task, return_inverse=True)
        totals = np.bincount(inverse.reshape(-1), weights=durations, minlength=len(keys))
        counts = np.bincount(inverse.reshape(-1), minlength=len(keys))
        if by_shape:
            types = g.text((keys >> 32).astype(np.int32))
            shapes = g.text((keys & 0xFFFFFFFF).astype(np.uint32).astype(np.int32))
            labels = [(t or UNTYPED, sh) for t, sh in zip(types, shapes, strict=True)]
        else:
            labels = [t or UNTYPED for t in g.text(keys.astype(np.int32))]
        for label, total, count in zip(labels, totals.tolist(), counts.tolist(), strict=True):
            acc = out.setdefault(label, [0, 0])
            acc[0] += int(round(total))
            acc[1] += int(count)
    return out
