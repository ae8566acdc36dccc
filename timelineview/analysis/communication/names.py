"""The communication tables of metrics.md §6: the producer's spellings are ``producers.hccl``'s.

Plane tasks are the per-link tasks on the ``Plane N`` threads of the ``HCCL`` / ``Communication``
process. Their ``args`` say which ranks they join, over which transport and link, and how many
bytes they move. Comparisons of names and types are case-insensitive and ignore ``_`` vs space.
"""

from __future__ import annotations

import re

from timelineview.producers.hccl import (  # noqa: F401 (the producer's spellings, asked through this module)
    ARG_BANDWIDTH,
    ARG_DST_RANK,
    ARG_LINK_TYPE,
    ARG_SIZE,
    ARG_SRC_RANK,
    ARG_TASK_TYPE,
    ARG_TRANSPORT,
    COPY_TASKS,
    INVALID_RANK,
    LINK_ON_CHIP,
    NO_TRANSPORT,
    PLANE_LANE,
    TRANSPORT_LOCAL,
    TRANSPORT_RDMA,
    TRANSPORT_SDMA,
    UNKNOWN,
    WAIT_TASKS,
)

# Operator names grouped "per name": the producer numbers each call of a collective
# (``hcom_allReduce__271_0_1``, ``Default/AllReduce-op534_0``); the trailing ``_<digits>`` parts
# are the call's numbers, the rest names the collective.
_CALL_NUMBERS = re.compile(r"(?:_+\d+)+$")


def task_key(name: str) -> str:
    """Normalised task name or type: lower case, ``_`` as space, trimmed."""
    return name.strip().lower().replace("_", " ")


def is_wait_task(name: str) -> bool:
    return task_key(name) in WAIT_TASKS


def is_copy_task(name: str) -> bool:
    return task_key(name) in COPY_TASKS


def operator_kind(name: str) -> str:
    """The collective a communication operator calls: its name without the call numbers."""
    base = _CALL_NUMBERS.sub("", name.strip())
    return base or name.strip()


# Point-to-point operators (pipeline send / receive) are not collectives: every member does not
# end them at the same instant.
POINT_TO_POINT = re.compile(r"send|receive|recv", re.IGNORECASE)
