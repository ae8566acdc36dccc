"""Which generation of the Ascend / MindSpore producers wrote a JSON trace, guessed from its process
names and labels (docs/trace-format.md §9 item 4): for labels and reports, never for reading."""

from __future__ import annotations

from collections.abc import Collection

from timelineview.producers import ascend, mindspore, msprof, torch_npu


def generation_of(labels: Collection[str], names: Collection[str], has_metadata: bool) -> str:
    """The best guess of the producer of a trace with these process ``labels`` and display ``names``
    (``has_metadata``: whether it wrote any process or thread name or label)."""
    if not has_metadata:
        return "mindspore-1.0-1.2"
    if set(labels) & mindspore.LEGACY_LABELS:
        return "mindspore-1.3-2.1"
    if any(n.rsplit(" ", 1)[-1].startswith("Rank") for n in names):
        return "mindspore-2.2" if ascend.HARDWARE_PROCESS not in names else "mindinsight-merged"
    if torch_npu.PYTHON_PROCESS in names:
        return "torch_npu"
    if "MindSpore" in names or "Scope Layer" in names:
        return "mindspore-2.3+"
    if ascend.HARDWARE_PROCESS in names:
        return msprof.KIND
    return "chrome-trace"
