"""An operator's type read off its name, when the capture describes its tasks no better.

Kernel names end with the type the graph compiler gave them: ``Default/network/MatMul-op12`` (MindSpore),
``aclnnMatmul_MatMulCommon_MatMulV2``, ``trans_TransData_3``, ``Conv2D1`` (torch_npu: the graph's count of
that type after it, apart or glued on).
"""

from __future__ import annotations

import re

_MINDSPORE_SUFFIX = re.compile(r"-op\d+$")
_NUMBERED = re.compile(r"^(.*[A-Za-z])\d+$")  # ``Conv2D1``: the graph's count of that type glued on
_VERSION = "V"  # ``MatMulV2``, ``TopKV2``: a version, part of the type


def op_type_of_name(name: str) -> str:
    """The last non-numeric component of ``name`` without a count glued on (``…/MatMul-op12`` → ``MatMul``,
    ``trans_TransData_0`` → ``TransData``, ``Conv2D1`` → ``Conv2D``, ``MatMulV2`` stays, ``MatMulV21`` →
    ``MatMulV2``), or the name itself."""
    last = _MINDSPORE_SUFFIX.sub("", name.rsplit("/", 1)[-1])
    for part in reversed(last.split("_")):
        if part and not part.isdigit():
            numbered = _NUMBERED.match(part)
            if numbered is None:
                return part
            head, digits = numbered.group(1), part[len(numbered.group(1)):]
            # a version is one digit (``MatMulV2``): digits after it are a count (``MatMulV21``)
            return head + digits[0] if head.endswith(_VERSION) else head
    return last or name
