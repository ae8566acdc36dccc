"""The columnar record of a card's compute tasks and what describes them.

Tasks that share an operator description (op type, core type, input shapes, data types, formats) share
one *group*: each task holds only its group's number, its block dim and its PMU figures, so a card of
ten million tasks costs a few bytes per task; the descriptions are interned once per group.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.kernels.dense_ids import distinct_inverse, first_positions
from timelineview.producers import torch_npu

NO_VALUE = -1  # a string id or block dim that the source does not give

SOURCE_DATABASE = "database"  # COMPUTE_TASK_INFO (+ TASK_PMU_INFO) of a profiler database
SOURCE_KERNEL_DETAILS = torch_npu.KERNEL_DETAILS  # the producer's kernel table beside a JSON trace
SOURCE_NAME = "name"  # the op type read off the operator's name; no shapes


@dataclass(frozen=True)
class KernelGroups:
    """One row per distinct operator description; the texts are ids into ``strings`` (-1: none)."""

    strings: list[str]
    op_type: np.ndarray  # int32
    core_type: np.ndarray  # int32
    shapes: np.ndarray  # int32, the input shapes as the producer writes them ("32,3,224,224;64")
    dtypes: np.ndarray  # int32
    formats: np.ndarray  # int32
    out_shapes: np.ndarray  # int32, the output shapes (a convolution's FLOPs need them)
    flops: np.ndarray  # float64 per task of the group; NaN where the op type is not counted

    def __len__(self) -> int:
        return len(self.op_type)

    def text(self, ids: np.ndarray) -> list[str]:
        """The texts of string ids (``""`` for none)."""
        return [self.strings[i] if i >= 0 else "" for i in np.asarray(ids).tolist()]


@dataclass(frozen=True)
class KernelTable:
    """Per compute task of a card (in slice order) its group and block dim, plus PMU columns when captured.

    ``source`` says where the descriptions came from (``SOURCE_*``); ``described`` counts the tasks
    that the source described (the others fell back to their name).
    """

    source: str
    slices: np.ndarray  # int64 slice index of each compute task
    group: np.ndarray  # int32 into ``groups``
    block_dim: np.ndarray  # int32, NO_VALUE when unknown
    groups: KernelGroups
    described: int
    pmu: dict[str, np.ndarray] = field(default_factory=dict)  # PMU figure name -> float32 per task (NaN: none)
    device: str = ""  # the chip the capture names ("Ascend910B"), "" when it names none
    dynamic: np.ndarray | None = None  # bool per task: compiled for dynamic shapes (None: the source does not say)

    def __len__(self) -> int:
        return len(self.slices)

    @property
    def task_flops(self) -> np.ndarray:
        """FLOPs of each task (0 for op types not counted)."""
        per_group = np.nan_to_num(self.groups.flops, nan=0.0)
        return per_group[self.group] if len(self.group) else np.zeros(0)


class Interner:
    """Texts to dense ids, shared by the groups of one table."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._ids: dict[str, int] = {}

    def id(self, text: str | None) -> int:
        if text is None or text == "":
            return NO_VALUE
        found = self._ids.get(text)
        if found is None:
            found = self._ids[text] = len(self.strings)
            self.strings.append(text)
        return found

    def ids(self, texts: list[str | None]) -> np.ndarray:
        return np.array([self.id(t) for t in texts], dtype=np.int32)


@dataclass
class Descriptions:
    """Per task, ids into an ``Interner`` (what a source found), before grouping."""

    op_type: np.ndarray
    core_type: np.ndarray
    shapes: np.ndarray
    dtypes: np.ndarray
    formats: np.ndarray
    out_shapes: np.ndarray

    def grouped(self) -> tuple[np.ndarray, np.ndarray]:
        """(group of each task, the task that first shows each group)."""
        columns = [self.op_type, self.core_type, self.shapes, self.dtypes, self.formats, self.out_shapes]
        if not len(self.op_type):
            return np.zeros(0, np.int32), np.zeros(0, np.int64)
        key = _packed(columns)
        if key is None:  # ids too many to pack in 64 bits: compare the rows themselves
            key = np.stack(columns, axis=1)
            _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
        else:
            uniq, inverse = distinct_inverse(key, np.int32 if len(key) < 2**31 else np.int64)
            del key
            first = first_positions(inverse, len(uniq))
        return inverse.reshape(-1).astype(np.int32, copy=False), first.astype(np.int64, copy=False)


def _packed(columns: list[np.ndarray]) -> np.ndarray | None:
    """The id columns (each >= -1) packed side by side into one int64 per row, or None when they need
    more than 63 bits: one sort of integers instead of a sort of rows."""
    widths = [max(int(c.max()) + 2, 1).bit_length() for c in columns]
    if sum(widths) > 63:
        return None
    key = np.zeros(len(columns[0]), np.int64)
    for column, width in zip(columns, widths, strict=True):  # in place: (key << width) | (column + 1)
        key <<= width
        key += column
        key += 1
    return key
