"""What each hardware task type is (metrics.md §1): its kind, looked up case-insensitively.

Only ``compute`` counts as AI Core / AI Vector / AI CPU work. The other kinds document
what the rest of a hardware stream holds; they are never counted as compute. The producer's task
types are written in ``producers.cann_tasks``; lookups here are case-insensitive.
"""

from __future__ import annotations

from timelineview.producers.cann_tasks import (  # noqa: F401 (the kinds are this module's vocabulary too)
    COMPUTE,
    MEMORY,
    OTHER,
    REDUCE,
    RUNTIME_TASK_NAMES,
    SYNC,
    TASK_TYPE_KIND,
)


def _name_key(text: str) -> str:
    """Upper case without spaces and underscores: ``Notify Wait`` = ``NOTIFY_WAIT`` = ``Notify_Wait``."""
    return text.strip().upper().replace(" ", "").replace("_", "")


_NON_COMPUTE_TYPE_KEYS = frozenset(_name_key(t) for t, kind in TASK_TYPE_KIND.items() if kind != COMPUTE)


def is_runtime_task_name(name: str) -> bool:
    """Is a hardware task of this *name* a runtime or communication task (never compute)?"""
    key = _name_key(name)
    return key in RUNTIME_TASK_NAMES or key in _NON_COMPUTE_TYPE_KEYS


def task_kind(task_type: str) -> str:
    """Kind of a task type; unknown types are ``other`` (never compute)."""
    return TASK_TYPE_KIND.get(task_type.strip().upper(), OTHER)


def is_compute_task_type(task_type: str) -> bool:
    return task_kind(task_type) == COMPUTE


def is_known_task_type(task_type: str) -> bool:
    return task_type.strip().upper() in TASK_TYPE_KIND
