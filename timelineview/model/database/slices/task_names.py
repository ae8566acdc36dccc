"""Each task's name and ``Task Type``, from its compute info row or its own ``taskType``."""

from __future__ import annotations

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.bare_numbers import bare_number_note
from timelineview.model.database.slices.key_joins import join_one
from timelineview.model.database.slices.rowids import NO_ROW
from timelineview.model.database.sqlite.table_names import ROWID
from timelineview.model.database.strings import CardStrings


def task_names(s: CardStrings, task: dict[str, np.ndarray], compute: dict[str, np.ndarray] | None,
                notes: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each task's name, ``Task Type`` and ``COMPUTE_TASK_INFO`` rowid (-1: none): from its compute info,
    else its own ``taskType``; a kernel of a compute unit without compute info is untyped (-1), with a
    note. Takes ``task``'s ``taskType`` (no longer needed after)."""
    own_type = s.of_ids(task.pop("taskType"))
    n = len(own_type)
    ci = join_one(task["globalTaskId"], compute["globalTaskId"]) if compute else np.full(n, -1, np.int64)
    has = np.flatnonzero(ci >= 0)
    ci = ci[has]
    name, ttype = own_type.copy(), own_type
    info = np.full(n, NO_ROW, compute[ROWID].dtype if compute else np.int32)
    if compute is not None and len(has):
        name[has] = s.of_ids(compute["name"][ci])
        info_type = s.of_ids(compute["taskType"][ci])
        ttype[has] = np.where(np.isin(info_type, _ids_of(s, L.NO_TASK_TYPE)), _json_types(s, own_type[has]),
                              info_type)
        info[has] = compute[ROWID][ci]
        _say_bare_number_names(s, name[has], notes)
    if compute is not None:
        _untype_kernels_without_info(s, own_type, ttype, _without_info(n, has), notes)
    return name, ttype, info


def _say_bare_number_names(s: CardStrings, names: np.ndarray, notes: list[str]) -> None:
    """Note the kernels whose ``COMPUTE_TASK_INFO.name`` is a bare number (``bare_numbers``)."""
    ids, counts = np.unique(names[names >= 0], return_counts=True)
    note = bare_number_note((s.strings[i] for i in ids.tolist()), counts.tolist(), "kernels", "COMPUTE_TASK_INFO")
    if note:
        notes.append(note)


def _without_info(n: int, has: np.ndarray) -> np.ndarray:
    """A mask of the ``n`` tasks that are not among ``has`` (the tasks with a compute info row)."""
    missing = np.ones(n, bool)
    missing[has] = False
    return missing


def _untype_kernels_without_info(s: CardStrings, own_type: np.ndarray, ttype: np.ndarray, missing: np.ndarray,
                                 notes: list[str]) -> None:
    """Kernels of a compute unit with no ``COMPUTE_TASK_INFO`` row lose their ``Task Type`` (-1): nothing
    says which operator they ran, and counted as compute they would add time the producer's Computing
    leaves out. The note counts them by their unit."""
    seen = np.unique(own_type[missing])  # the units looked up by text: none is added to the card's strings
    units = [i for i in seen.tolist() if i >= 0 and s.strings[i] in L.COMPUTE_UNIT_TYPES]
    untyped = missing & np.isin(own_type, units)
    if not untyped.any():
        return
    kinds, counts = np.unique(own_type[untyped], return_counts=True)  # (``ttype`` may be ``own_type`` itself)
    each = ", ".join(f"{s.strings[k]} ×{c:,}" for k, c in zip(kinds.tolist(), counts.tolist(), strict=True))
    ttype[untyped] = -1
    notes.append(f"{int(untyped.sum()):,} TASK rows of a compute unit ({each}) have no COMPUTE_TASK_INFO row: "
                 f"drawn untyped, named by their unit, not counted as compute")


def _ids_of(s: CardStrings, texts) -> np.ndarray:
    return np.array([s.intern(t) for t in texts], dtype=np.int32)


def _json_types(s: CardStrings, own: np.ndarray) -> np.ndarray:
    """``TASK.taskType`` spelt as the JSON's ``Task Type`` of a kernel (``KERNEL_AIVEC`` → ``AI_VECTOR_CORE``)."""
    out = own.copy()
    for raw, spelt in L.KERNEL_TASK_TYPE.items():
        out[own == s.intern(raw)] = s.intern(spelt)
    return out

