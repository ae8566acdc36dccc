"""The output shape of a framework convolution (``aten::conv2d``, ``aten::cudnn_convolution`` …) from its input
and weight shapes and the values of its stride, padding and dilation arguments.

A framework operator's record gives its inputs' shapes but not its output's, and a convolution's FLOPs count
the output's positions (metrics.md §7.1); the operator's non-tensor arguments, recorded as text beside the
shapes, give them by the usual rule: out = ⌊(in + 2·padding − dilation·(kernel − 1) − 1) / stride⌋ + 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple


class ArgumentPositions(NamedTuple):
    """Where an operator's signature puts its stride, padding and dilation; transposed: its ``transposed``
    flag (-1: it has none)."""

    stride: int
    padding: int
    dilation: int
    transposed: int = -1


# PyTorch's convolution operators by name without namespace and leading underscores, as their schemas order them
CONVOLUTION_ARGUMENTS = {
    "conv2d": ArgumentPositions(3, 4, 5),
    "convolution": ArgumentPositions(3, 4, 5, transposed=6),
    "cudnn_convolution": ArgumentPositions(stride=3, padding=2, dilation=4),
}
NAMESPACE = "::"
SPATIAL_DIMENSIONS = 2  # the convolutions whose output the FLOPs formula reads as [N, C_out, H, W]


def _ints(text: str, spatial: int) -> tuple[int, ...] | None:
    """``"[2, 2]"`` → ``(2, 2)``; a single ``"2"`` stands for every spatial dimension; None when not integers."""
    try:
        values = tuple(int(x) for x in text.strip().strip("[]").split(",") if x.strip())
    except ValueError:
        return None
    if len(values) == 1:
        values = values * spatial
    return values if len(values) == spatial else None


def convolution_output_shape(operator: str, inputs: Sequence[tuple[int, ...]],
                             arguments: Sequence[str]) -> tuple[int, ...] | None:
    """``[N, C_out, *spatial]`` of the convolution ``operator`` (``aten::conv2d``) over ``inputs`` (input
    ``[N, C_in, *spatial]``, weight ``[C_out, C_in/groups, *kernel]``) with its recorded argument values;
    None for another operator, a transposed convolution, one that is not 2-D or arguments that do not fit."""
    positions = CONVOLUTION_ARGUMENTS.get(operator.rsplit(NAMESPACE, 1)[-1].lstrip("_"))
    if positions is None or len(inputs) < 2:
        return None
    data, weight = inputs[0], inputs[1]
    spatial = len(data) - 2
    # 2-D only: a 5-D output reads as the NPU's NC1HWC0 in the FLOPs formula, a 3-D one fits none
    if spatial != SPATIAL_DIMENSIONS or len(weight) != len(data):
        return None
    if 0 <= positions.transposed < len(arguments) and arguments[positions.transposed].strip().lower() == "true":
        return None
    if max(positions[:3]) >= len(arguments):
        return None
    stride, padding, dilation = (_ints(arguments[i], spatial) for i in positions[:3])
    if stride is None or padding is None or dilation is None or 0 in stride:
        return None
    out = [math.floor((size + 2 * pad - dil * (kernel - 1) - 1) / step) + 1
           for size, pad, dil, kernel, step in zip(data[2:], padding, dilation, weight[2:], stride, strict=True)]
    return (data[0], weight[0], *out) if all(x > 0 for x in out) else None
