"""The communication tables of metrics.md §6, as data: add producer spellings here and nowhere else.

Plane tasks are the per-link tasks on the ``Plane N`` threads of the ``HCCL`` / ``Communication``
process. Their ``args`` say which ranks they join, over which transport and link, and how many
bytes they move. Comparisons of names and types are case-insensitive and ignore ``_`` vs space.
"""

from __future__ import annotations

import re

# A rank field holding this value names no rank (an on-chip reduce, a local notify).
INVALID_RANK = 4294967295

# Keys of a plane task's ``args`` (docs/trace-format.md §3.2).
ARG_TASK_TYPE = "task type"
ARG_SRC_RANK = "src rank"
ARG_DST_RANK = "dst rank"
ARG_TRANSPORT = "transport type"
ARG_LINK_TYPE = "link type"
ARG_SIZE = "size(Byte)"
ARG_BANDWIDTH = "bandwidth(GB/s)"

# Wait tasks: a plane task whose name or task type is one of these (normalised by ``task_key``).
WAIT_TASKS = frozenset({"notify wait"})
# Copy tasks: the SDMA tasks that move a collective's data (the producer's transit tasks).
COPY_TASKS = frozenset({"memcpy", "reduce inline"})

# Transport types (``transport type``) and what they carry.
TRANSPORT_SDMA = "SDMA"  # copy engine, within a node (HCCS, PCIe, SIO)
TRANSPORT_RDMA = "RDMA"  # network, across nodes (RoCE)
TRANSPORT_LOCAL = "LOCAL"  # on the card itself (notifies)
UNKNOWN = ""  # a missing or non-text transport / link type
# What names no transport: a task moving bytes over none of them is in no link (its bandwidth would be
# a link's that does not exist; the producer's matrix leaves it out).
NO_TRANSPORT = frozenset({UNKNOWN, "N/A", "INVALID_TYPE"})
LINK_ON_CHIP = "ON_CHIP"  # link type of a copy that stays on the chip (a local reduce or copy)

# Plane threads: "Plane 0" .. "Plane 7" (any number).
PLANE_LANE = re.compile(r"^plane\s*\d+$", re.IGNORECASE)

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
