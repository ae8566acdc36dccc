"""Synthetic Ascend profiler traces with exact ground truth (no Qt).

Public API::

    generate_card(path, spec=CardSpec(), layout="msprof", *, target_bytes=None, options=None) -> GroundTruth
    generate_cluster(out_dir, specs, layout="msprof", *, target_bytes=None, options=None,
                     structure="auto", cluster_seed=None, progress=None) -> list[GroundTruth]
    cluster_specs(cards, *, seed, steps, slow_card, slow_data_card, clock_skew_us, ...) -> list[CardSpec]

Layouts (``LAYOUTS``): ``msprof`` (torch_npu ``trace_view.json``), ``object`` (the same inside
``{"traceEvents": [...]}``), ``msprof_per_iteration`` (CANN <= 7.0 ``PROF_*/device_<d>/timeline``),
``mindspore_gen_c`` and ``mindspore_gen_b`` (``ascend_timeline_display_<rank>.json``).

Lane display names in the ground truth follow docs/trace-format.md §9.3:
process = ``process_name``, else ``process_labels``, else the fixed pids (9000 ``AICPU OP``,
10000 ``Communication Op``, 11000 ``Host CPU OP``, 12000 ``Op Overlap Analyse``) and, for
Gen B where nothing is named, ``Device <pid>`` for the device pid; thread = ``thread_name``,
else ``Steps``/``Scope Name`` for tids 100000/100001, else ``Stream <tid>`` for Gen B/C tids
of the device pid, 9000 and 10000 (their tids are stream ids, §4.3), else ``Thread <tid>``
(e.g. Gen B 11000/100003 is ``Thread 100003``). Lanes are ordered by process sort index (pid
when absent), pid, thread sort index (tid when absent), tid; only lanes holding slices
(X or B/E) are listed.
"""

from timelineview.synthetic.cluster import cluster_specs, generate_cluster
from timelineview.synthetic.generate import fit_to_size, generate_card
from timelineview.synthetic.spec import LAYOUTS, CardSpec, WriteOptions
from timelineview.synthetic.truth import CATEGORIES, PHASE_BE, PHASE_X, GroundTruth

__all__ = [
    "CATEGORIES", "LAYOUTS", "PHASE_BE", "PHASE_X", "CardSpec", "GroundTruth", "WriteOptions",
    "cluster_specs", "fit_to_size", "generate_card", "generate_cluster",
]
