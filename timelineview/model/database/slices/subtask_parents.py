"""The ``TASK`` rows drawn through their sub-tasks rather than themselves."""

from __future__ import annotations

import numpy as np

from timelineview.model.database import layout as L


def without_parents(task: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``TASK`` without the parents of sub-tasks: a task with no context id whose stream and task id
    a task with a context id shares, starting inside it, is an FFTS+ (or collective) task drawn
    through its sub-tasks, as the JSON generation draws it (drawn too, it would count its sub-tasks'
    time twice and a collective's whole span as an AI Core task)."""
    if "taskId" not in task or "contextId" not in task or not len(task["taskId"]):
        return task
    is_child = task["contextId"] != L.NONE_U32
    if not is_child.any():
        return task
    key = (task["streamId"].astype(np.int64) << 32) + task["taskId"]
    # only the rows of a (stream, task id) that has sub-tasks can be parents: sort those alone
    rows = np.flatnonzero(np.isin(key, key[is_child]))
    # parents before children at equal (key, start): a parent's next row is its first sub-task
    order = rows[np.lexsort((is_child[rows], task["startNs"][rows], key[rows]))]
    k, c, st = key[order], is_child[order], task["startNs"][order]
    parent = ~c & np.roll(c, -1) & (np.roll(k, -1) == k) & (np.roll(st, -1) <= task["endNs"][order])
    parent[-1] = False
    drop = np.zeros(len(key), bool)
    drop[order[parent]] = True
    return {name: col[~drop] for name, col in task.items()} if drop.any() else task

