"""FLOPs of one task from its op type and shapes (metrics.md §7.1): matrix products, convolutions and
FlashAttention; every other type counts none and is listed as "not counted".

Shapes are read as the producer stores them: a 5-D ``NC1HWC0`` tensor holds its channels as C1·C0 (padded
to the cube's block), so a convolution counts the channels the hardware multiplies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

NOT_COUNTED = math.nan  # the FLOPs of an op type no formula covers

# Op types by formula, as the NPU's graph names them and as PyTorch names its operators (``aten::mm`` is read
# as ``mm``, ``aten::_convolution`` as ``convolution``: the namespace and leading underscores dropped)
MATRIX_PRODUCT_TYPES = ("matmul", "batchmatmul", "gemm", "addmm", "baddbmm", "addbmm", "bmm", "mm", "linear",
                        "quantbatchmatmul", "weightquantbatchmatmul", "groupedmatmul")
# Matrix products that add their first input to the product (``addmm(bias, A, B)``): A and B follow it
ACCUMULATING_PRODUCT_TYPES = ("addmm", "baddbmm", "addbmm")
CONVOLUTION_TYPES = ("conv2d", "conv3d", "convolution", "cudnn_convolution")
FLASH_ATTENTION_FORWARD = ("flashattentionscore", "fusedinferattentionscore", "promptflashattention", "flashattention",
                           "scaled_dot_product_flash_attention", "scaled_dot_product_efficient_attention",
                           "scaled_dot_product_cudnn_attention", "flash_attention_forward")
FLASH_ATTENTION_BACKWARD = ("flashattentionscoregrad", "flashattentiongrad",
                            "scaled_dot_product_flash_attention_backward",
                            "scaled_dot_product_efficient_attention_backward", "flash_attention_backward")
NAMESPACE = "::"
BACKWARD_FACTOR = 2.5  # a FlashAttention backward pass against its forward pass
FRACTAL_Z = "FRACTAL_Z"  # a convolution weight in the cube's layout: (C1·Kh·Kw, Cout blocks, 16, C0)


def parse_shapes(text: str) -> list[tuple[int, ...]]:
    """``"32,3,224,224;64"`` → ``[(32, 3, 224, 224), (64,)]``; a part that is not integers gives ``()``."""
    out = []
    for part in text.split(";") if text else []:
        try:
            out.append(tuple(int(x) for x in part.split(",") if x.strip()))
        except ValueError:
            out.append(())
    return out


def _type_key(op_type: str) -> str:
    """``MatMulV2`` → ``matmul``; ``aten::_convolution`` → ``convolution``."""
    t = op_type.rsplit(NAMESPACE, 1)[-1].lstrip("_").lower()
    return t.rstrip("0123456789").removesuffix("v")  # MatMulV2, MatMulV3 -> matmul


def _kind(op_type: str) -> str:
    t = _type_key(op_type)
    if t in FLASH_ATTENTION_BACKWARD:
        return "attention_backward"
    if t in FLASH_ATTENTION_FORWARD:
        return "attention"
    if t in CONVOLUTION_TYPES:
        return "convolution"
    if t in MATRIX_PRODUCT_TYPES or t.endswith("matmul"):
        return "matrix"
    return ""


def is_counted(op_type: str) -> bool:
    """Whether a formula gives the FLOPs of ``op_type``."""
    return bool(_kind(op_type))


def task_flops(op_type: str, shapes: str, formats: str = "", output_shapes: str = "") -> float:
    """FLOPs of one task, ``NOT_COUNTED`` (NaN) for an op type no formula covers, 0 when its shapes do not fit."""
    kind = _kind(op_type)
    if not kind:
        return NOT_COUNTED
    inputs = parse_shapes(shapes)
    if kind == "matrix":
        if _type_key(op_type) in ACCUMULATING_PRODUCT_TYPES and len(inputs) >= 3:
            inputs = inputs[1:]
        return matrix_product_flops(inputs, parse_shapes(output_shapes))
    if kind == "convolution":
        return convolution_flops(inputs, formats.split(";"), parse_shapes(output_shapes))
    forward = attention_flops(inputs)
    return forward * BACKWARD_FACTOR if kind == "attention_backward" else forward


def matrix_product_flops(inputs: Sequence[tuple[int, ...]], outputs: Sequence[tuple[int, ...]] = ()) -> float:
    """2·b·m·n·k of A [.., m, k] × B [.., k, n]: k is the dimension the two operands share, so a transposed
    operand is recognised by which of its dimensions agrees with the other's. Where two readings fit
    (A [32, 4096], B [32, 4096]: A·Bᵀ or Aᵀ·B) the output's shape [.., m, n] tells them apart."""
    if len(inputs) < 2 or len(inputs[0]) < 2 or len(inputs[1]) < 2:
        return 0.0
    a, b = inputs[0], inputs[1]
    a_rows, a_cols, b_rows, b_cols = a[-2], a[-1], b[-2], b[-1]
    out = outputs[0] if outputs and len(outputs[0]) >= 2 else None
    if out is not None:
        m, n = out[-2], out[-1]
        for m_a, k_a in ((a_rows, a_cols), (a_cols, a_rows)):  # A as stored, or transposed
            for k_b, n_b in ((b_rows, b_cols), (b_cols, b_rows)):
                if (m_a, k_a, n_b) == (m, k_b, n):
                    return 2.0 * max(math.prod(out[:-2]), 1) * m * n * k_a
    for m, k, k2, n in ((a_rows, a_cols, b_rows, b_cols), (a_rows, a_cols, b_cols, b_rows),
                        (a_cols, a_rows, b_rows, b_cols), (a_cols, a_rows, b_cols, b_rows)):
        if k == k2:
            batch = max(math.prod(a[:-2]), math.prod(b[:-2]))
            return 2.0 * batch * m * n * k
    return 0.0


def convolution_flops(inputs: Sequence[tuple[int, ...]], formats: Sequence[str],
                      outputs: Sequence[tuple[int, ...]]) -> float:
    """2 · N · C_out · H_out · W_out · (C_in / groups) · K_h · K_w, the output's dimensions from the output
    shape (4-D NCHW or 5-D NC1HWC0) and C_in/groups · K_h · K_w from the weight (NCHW, or the cube's
    FRACTAL_Z where it is dimension 0 × dimension 3)."""
    if len(inputs) < 2 or not outputs:
        return 0.0
    out, weight = outputs[0], inputs[1]
    if len(out) == 5:
        n, c_out, spatial = out[0], out[1] * out[4], out[2] * out[3]
    elif len(out) >= 4:
        n, c_out, spatial = out[0], out[1], math.prod(out[2:])
    else:
        return 0.0
    weight_format = formats[1].strip().upper() if len(formats) > 1 else ""
    if weight_format.startswith(FRACTAL_Z) and len(weight) == 4:
        per_output = weight[0] * weight[3]
    elif len(weight) >= 3:
        per_output = math.prod(weight[1:])
    else:
        return 0.0
    return 2.0 * n * c_out * spatial * per_output


def attention_flops(inputs: Sequence[tuple[int, ...]]) -> float:
    """4 · B · N · S_q · S_kv · D of a FlashAttention forward pass from the query and key shapes: 3-D BSH (H =
    N·D) or 4-D, read as BNSD when dimension 1 is below dimension 2, else BSND (heads are fewer than tokens)."""
    if len(inputs) < 2:
        return 0.0
    q, k = inputs[0], inputs[1]
    if len(q) == 3 and len(k) == 3:
        return 4.0 * q[0] * q[1] * k[1] * q[2]
    if len(q) == 4 and len(k) == 4:
        seq_axis = 2 if q[1] < q[2] else 1
        return 4.0 * math.prod(q) * k[seq_axis]
    return 0.0
