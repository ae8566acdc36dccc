"""Two runs compared by op type (metrics.md §7.1, §9): node names change between graph builds, op types do not.

Per op type, its total time and task count over the matched cards of each run, as :class:`NameDelta` rows
(the op type in ``name``), largest change first. Cards whose analysis holds no kernel descriptions (summaries
written before them) count nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

NS_PER_US = 1000.0


def op_type_totals(session: Any, numbers: list[int]) -> dict[str, list[int]]:
    """{op type: [total ns, count]} over the cards ``numbers`` of ``session``."""
    out: dict[str, list[int]] = {}
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
        types, inverse = np.unique(type_of_task, return_inverse=True)
        totals = np.bincount(inverse.reshape(-1), weights=durations, minlength=len(types))
        counts = np.bincount(inverse.reshape(-1), minlength=len(types))
        for label, total, count in zip(g.text(types), totals.tolist(), counts.tolist(), strict=True):
            acc = out.setdefault(label or "(untyped)", [0, 0])
            acc[0] += int(round(total))
            acc[1] += int(count)
    return out
