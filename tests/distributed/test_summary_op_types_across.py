"""A summary folder compares op types and shapes across the cards as the traces do: the same totals per card from
the kept by-op-type and by-shape results, and the same slow_operator verdict marked."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.summaries.summary_session import SummarySession
from timelineview.distributed.summarize import summarize
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

SLOW = 2


def _compared(rows) -> list[tuple]:
    return [(o.document(), np.round(o.per_card_us, 3).tolist()) for o in rows]


def test_op_types_across_cards_from_summaries_equal_the_traces(dask_client, tmp_path):
    traces = tmp_path / "job"
    specs = [s.with_(slow_op_types=("MatMulV2",), slow_op_factor=2.0) if s.rank == SLOW else s
             for s in cluster_specs(4, seed=13, steps=3, tasks_per_step=200)]
    generate_cluster(traces, specs)
    summarize(traces, tmp_path / "s", client=dask_client, progress=None)
    on_traces = AnalysisSession(load(traces, cache=False))
    on_summaries = SummarySession(tmp_path / "s")
    assert [o.document()["slow_on"] for o in on_traces.op_types_across_cards if o.verdicts] == [[f"rank {SLOW}"]]
    assert _compared(on_summaries.op_types_across_cards) == _compared(on_traces.op_types_across_cards)
    assert _compared(on_summaries.shapes_across_cards) == _compared(on_traces.shapes_across_cards)
