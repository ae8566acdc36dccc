"""MindSpore's GPU timeline (``gpu_timeline_display_<rank>.json``, MindSpore 1.x to 2.2): which of its
lanes holds the operators (metrics.md §1). Its files are named and grouped as MindSpore's (``mindspore``)."""

from __future__ import annotations

# MindSpore's GPU timeline writes each operator on its operator lane and again, as the CUDA kernels it
# launched, on stream lanes; the operator is the execution (the producer's summary counts it once).
# The lane's tid is "Ops" up to MindSpore 1.x and "GpuOps" from 2.x, whose events carry the tid as text
# while its thread names are written for the number the text maps to (100002): the events' lanes,
# kernels included, reach the file without a thread name, so the lane is told by its tid, never by a
# thread name (every MindSpore generation names its tid 0 "Ops", an Ascend stream there included), and
# only when it holds slices (a thread name alone makes a lane).
GPU_OPERATOR_TIDS = frozenset({"ops", "gpuops", "100002"})
