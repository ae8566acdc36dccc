"""An operator's type read off its name, when the capture describes its tasks no better.

Kernel names end with the type the graph compiler gave them: ``Default/network/MatMul-op12`` (MindSpore),
``aclnnMatmul_MatMulCommon_MatMulV2``, ``trans_TransData_3`` (torch_npu, a number after the type).
"""

from __future__ import annotations

import re

_MINDSPORE_SUFFIX = re.compile(r"-op\d+$")


def op_type_of_name(name: str) -> str:
    """The last non-numeric component of ``name`` (``…/MatMul-op12`` → ``MatMul``, ``trans_TransData_0`` →
    ``TransData``), or the name itself when it has none."""
    last = _MINDSPORE_SUFFIX.sub("", name.rsplit("/", 1)[-1])
    for part in reversed(last.split("_")):
        if part and not part.isdigit():
            return part
    return last or name
