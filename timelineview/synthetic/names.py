"""Operator name pools: a few hundred compute operators with a skewed draw, plus stream chores.

One pool entry is an operator *kind* (base op, variant, task type, typical duration); each
layout renders it in its producer's naming style (torch_npu kernel names, MindSpore scope
paths, MindSpore short op names). The pool is the same for every card, so all ranks of a
cluster run the same operators.

Task types and chore names are the producers' (``producers.cann_tasks``, the constants the reader
classifies by): the generator writes what the reader expects, so the real-sample tests, which check
the reader's names against real files, are what keeps those names true.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.producers import cann_tasks as cann

# (base op, task type, mean duration in us, aclnn api, implementation, forward?)
_BASES = [
    ("MatMulV2", cann.AI_CORE, 60.0, "aclnnMm", "MatMulCommon", True),
    ("BatchMatMulV2", cann.AI_CORE, 85.0, "aclnnBatchMatMul", "BatchMatMulCommon", True),
    ("Conv2D", cann.AI_CORE, 45.0, "aclnnConvolution", "Conv2DCommon", True),
    ("TransData", cann.AI_CORE, 8.0, "trans", "TransData", True),
    ("Cast", cann.AI_CORE, 4.0, "aclnnCast", "CastAiCore", True),
    ("Add", cann.AI_CORE, 5.0, "aclnnAdd", "AddAiCore", True),
    ("Mul", cann.AI_CORE, 5.0, "aclnnMuls", "MulAiCore", True),
    ("Transpose", cann.AI_CORE, 9.0, "aclnnPermute", "TransposeAiCore", True),
    ("SoftmaxV2", cann.AI_CORE, 14.0, "aclnnSoftmax", "SoftmaxV2AiCore", True),
    ("LayerNormV3", cann.AI_CORE, 12.0, "aclnnLayerNorm", "LayerNormV3AiCore", True),
    ("RmsNorm", cann.AI_CORE, 10.0, "aclnnRmsNorm", "RmsNormAiCore", True),
    ("GeLU", cann.AI_CORE, 7.0, "aclnnGelu", "GeLUAiCore", True),
    ("Relu", cann.AI_CORE, 3.0, "aclnnInplaceRelu", "Relu", True),
    ("FlashAttentionScore", cann.MIX_AIV, 140.0, "aclnnFlashAttentionScore", "FlashAttentionScore", True),
    ("ReduceSum", cann.MIX_AIV, 9.0, "aclnnReduceSum", "ReduceSumOpAiCore", True),
    ("SwiGlu", cann.AI_CORE, 11.0, "aclnnSwiGlu", "SwiGluAiCore", True),
    ("DropOutDoMask", cann.AI_CORE, 6.0, "aclnnDropoutDoMask", "DropoutDoMaskAiCore", True),
    ("MaxPoolWithArgmaxV1", cann.AI_CORE, 16.0, "aclnnMaxPool2dWithMask", "MaxPoolWithArgmaxV1AiCore", True),
    ("ConcatD", cann.AI_CORE, 6.0, "aclnnCat", "ConcatDAiCore", True),
    ("GatherV2", cann.AI_CORE, 7.0, "aclnnIndexSelect", "GatherV2AiCore", True),
    ("TensorMove", cann.AI_CORE, 3.0, "aclnnInplaceCopy", "TensorMoveAiCore", True),
    ("MemSet", cann.AI_CORE, 2.0, "aclnnMm", "MatMulCommon", True),
    ("DropoutGenMask", cann.AI_CPU, 120.0, "aclnnDropoutGenMask", "DropoutGenMask", True),
    ("MatMulV2", cann.AI_CORE, 70.0, "aclnnAddmm", "MatMulCommon", False),
    ("Conv2DBackpropInput", cann.AI_CORE, 55.0, "aclnnConvolutionBackward", "Conv2DBackpropInput", False),
    ("Conv2DBackpropFilter", cann.AI_CORE, 65.0, "aclnnConvolutionBackward", "Conv2DBackpropFilter", False),
    ("SoftmaxGrad", cann.AI_CORE, 15.0, "aclnnSoftmaxBackward", "SoftmaxGradAiCore", False),
    ("LayerNormGrad", cann.AI_CORE, 18.0, "aclnnLayerNormBackward", "LayerNormGradAiCore", False),
    ("RmsNormGrad", cann.AI_CORE, 14.0, "aclnnRmsNormGrad", "RmsNormGradAiCore", False),
    ("GeLUGrad", cann.AI_CORE, 9.0, "aclnnGeluBackward", "GeLUGradAiCore", False),
    ("ReluGrad", cann.AI_CORE, 4.0, "aclnnThresholdBackward", "ReluGrad", False),
    ("FlashAttentionScoreGrad", cann.MIX_AIV, 260.0, "aclnnFlashAttentionScoreGrad",
     "FlashAttentionScoreGrad", False),
    ("MaxPoolGradWithArgmaxV1", cann.AI_CORE, 20.0, "aclnnMaxPool2dWithMaskBackward",
     "MaxPoolGradWithArgmaxV1AiCore", False),
    ("SwiGluGrad", cann.AI_CORE, 13.0, "aclnnSwiGluGrad", "SwiGluGradAiCore", False),
    ("ReduceSum", cann.MIX_AIV, 10.0, "aclnnReduceSum", "ReduceSumOpAiCore", False),
    ("ApplyAdamW", cann.AI_CORE, 25.0, "aclnnApplyAdamW", "ApplyAdamWAiCore", False),
    ("ForeachAddList", cann.AI_CORE, 12.0, "aclnnForeachAddListV2", "ForeachAddListV2", False),
    ("TransData", cann.AI_CORE, 8.0, "trans", "TransData", False),
    ("Cast", cann.AI_CORE, 4.0, "aclnnCast", "CastAiCore", False),
    ("Add", cann.AI_CORE, 5.0, "aclnnAdd", "AddAiCore", False),
    ("Mul", cann.AI_CORE, 5.0, "aclnnMul", "MulAiCore", False),
    ("DropOutDoMask", cann.AI_CORE, 6.0, "aclnnDropoutBackward", "DropoutDoMaskAiCore", False),
]
_VARIANTS = 7  # 42 bases x 7 variants = 294 operator kinds
_ZIPF_EXPONENT = 1.1

# Non-compute work on the hardware streams: (msprof name, msprof task type,
# per-iteration name, per-iteration task type, mean duration in us)
OTHER_TASKS = [
    (cann.EVENT_RECORD, cann.EVENT_RECORD_SQE, cann.EVENT_RECORD, cann.EVENT_RECORD, 0.8),
    (cann.EVENT_WAIT, cann.EVENT_WAIT_SQE, cann.EVENT_WAIT, cann.EVENT_WAIT, 6.0),
    (cann.NOTIFY_WAIT_TASK, cann.NOTIFY_WAIT_TASK, cann.NOTIFY_WAIT, cann.NOTIFY_WAIT, 3.0),
    (cann.WRITE_VALUE_TASK, cann.WRITE_VALUE_TASK, cann.NOTIFY_RECORD, cann.NOTIFY_RECORD, 0.7),
    (cann.MEMCPY_ASYNC, cann.SDMA_SQE, cann.MEMCPY_ASYNC, cann.MEMCPY_ASYNC, 9.0),
    (cann.EVENT_RECORD, cann.PLACE_HOLDER_SQE, cann.EVENT_RESET, cann.EVENT_RESET, 0.5),
]

# The same chores as CANN 7 / torch_npu 2024 traces that type every hardware task "Other" write them
# (name, task type), in OTHER_TASKS order.
OTHER_TYPED_TASKS = [
    (cann.EVENT_RECORD, cann.OTHER_TASK),
    (cann.EVENT_WAIT, cann.OTHER_TASK),
    (cann.NOTIFY_WAIT, cann.OTHER_TASK),
    (cann.NOTIFY_RECORD, cann.OTHER_TASK),
    (cann.MEMCOPY_ASYNC_TASK, cann.COPY_OTHER_TYPE),
    (cann.OTHER_TASK, cann.OTHER_TASK),
]

# Network scopes used by the MindSpore namings (forward path; backward adds ``Gradients/``).
_SCOPES = ["_backbone-Net/encoder-Block", "_backbone-Net/decoder-Block", "_backbone-Net/head-Dense",
           "_loss_fn-SoftmaxCrossEntropyWithLogits"]


@dataclass(frozen=True)
class OpPool:
    """The compute operator kinds and their sampling weights."""

    base: list[str]
    task_type: list[str]
    mean_ns: np.ndarray  # float64, typical duration of each kind
    forward: np.ndarray  # bool
    aclnn: list[str]
    impl: list[str]
    variant: np.ndarray  # int
    op_number: np.ndarray  # int, MindSpore "-op<N>" suffix
    scope: list[str]
    fwd_ids: np.ndarray  # kinds used in the forward pass, in popularity order
    bwd_ids: np.ndarray
    fwd_cdf: np.ndarray
    bwd_cdf: np.ndarray
    not_aicpu: np.ndarray  # kind -> itself, or a non-AI_CPU kind (secondary streams never run AI CPU)

    def __len__(self) -> int:
        return len(self.base)

    def sample(self, rng: np.random.Generator, forward: np.ndarray) -> np.ndarray:
        """Kind ids for tasks, Zipf-skewed, drawn from the forward or backward kinds."""
        u = rng.random(len(forward))
        fwd = self.fwd_ids[np.minimum(np.searchsorted(self.fwd_cdf, u), len(self.fwd_ids) - 1)]
        bwd = self.bwd_ids[np.minimum(np.searchsorted(self.bwd_cdf, u), len(self.bwd_ids) - 1)]
        return np.where(forward, fwd, bwd)

    def torch_names(self) -> list[str]:
        """torch_npu / CANN 8 kernel names: ``MatMulV2``, ``aclnnMm_MatMulCommon_MatMulV2``,
        ``Conv2D4``, ``trans_TransData_12``."""
        out = []
        for i, base in enumerate(self.base):
            v = int(self.variant[i]) + (0 if self.forward[i] else _VARIANTS)
            if base == "TransData":
                out.append(f"trans_TransData_{v}")
            elif v % 3 == 0:
                out.append(base)
            elif v % 3 == 1:
                out.append(f"{self.aclnn[i]}_{self.impl[i]}_{base}")
            else:
                out.append(f"{base}{v}")
        return out

    def full_names(self) -> list[str]:
        """MindSpore graph names with scope, as in CANN <= 7.0 per-iteration files."""
        return [self._path(i) + f"/{b}-op{self.op_number[i]}" for i, b in enumerate(self.base)]

    def short_names(self) -> list[str]:
        """MindSpore <= 2.1 short names: ``Conv2D-op11``."""
        return [f"{b}-op{self.op_number[i]}" for i, b in enumerate(self.base)]

    def _path(self, i: int) -> str:
        path = f"Default/network-WithLossCell/{self.scope[i]}"
        return path if self.forward[i] else f"Gradients/{path}/grad{self.base[i]}"


def _build_pool() -> OpPool:
    # A fixed seed: the pool is part of the format, not of a card.
    rng = np.random.default_rng(20250101)
    rows = [(b, v) for b in range(len(_BASES)) for v in range(_VARIANTS)]
    base, ttype, mean, fwd, aclnn, impl, variant, scope = [], [], [], [], [], [], [], []
    for b, v in rows:
        name, tt, mean_us, api, im, is_fwd = _BASES[b]
        base.append(name)
        ttype.append(tt)
        mean.append(mean_us * 1000.0 * float(rng.lognormal(0.0, 0.35)))
        fwd.append(is_fwd)
        aclnn.append(api)
        impl.append(im)
        variant.append(v)
        scope.append(_SCOPES[int(rng.integers(len(_SCOPES)))])
    forward = np.array(fwd)
    op_number = rng.permutation(np.arange(11, 11 + len(rows) * 7, 7))
    fwd_ids = rng.permutation(np.flatnonzero(forward))
    bwd_ids = rng.permutation(np.flatnonzero(~forward))
    is_aicpu = np.array([t == "AI_CPU" for t in ttype])
    not_aicpu = np.arange(len(rows))
    fallback = int(np.flatnonzero(~is_aicpu)[0])
    not_aicpu[is_aicpu] = fallback
    return OpPool(base, ttype, np.array(mean), forward, aclnn, impl, np.array(variant), op_number,
                  scope, fwd_ids, bwd_ids, _zipf_cdf(len(fwd_ids)), _zipf_cdf(len(bwd_ids)), not_aicpu)


def _zipf_cdf(n: int) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1) ** _ZIPF_EXPONENT
    return np.cumsum(w) / w.sum()


POOL = _build_pool()


_ATEN = {"MatMulV2": "aten::mm", "BatchMatMulV2": "aten::bmm", "Conv2D": "aten::convolution",
         "Conv2DBackpropInput": "aten::convolution_backward",
         "Conv2DBackpropFilter": "aten::convolution_backward", "TransData": "aten::contiguous",
         "Cast": "aten::to", "Add": "aten::add", "Mul": "aten::mul", "Transpose": "aten::permute",
         "SoftmaxV2": "aten::_softmax", "SoftmaxGrad": "aten::_softmax_backward_data",
         "LayerNormV3": "aten::native_layer_norm", "LayerNormGrad": "aten::native_layer_norm_backward",
         "GeLU": "aten::gelu", "GeLUGrad": "aten::gelu_backward", "Relu": "aten::relu_",
         "ReluGrad": "aten::threshold_backward", "ReduceSum": "aten::sum", "ConcatD": "aten::cat",
         "GatherV2": "aten::index_select", "TensorMove": "aten::copy_", "MemSet": "aten::zero_",
         "DropOutDoMask": "aten::native_dropout", "DropoutGenMask": "aten::native_dropout"}


def aten_names() -> list[str]:
    """The framework (``aten::``) operator that launches each pool kind."""
    return [_ATEN.get(b, f"npu::{b.lower()}") for b in POOL.base]
