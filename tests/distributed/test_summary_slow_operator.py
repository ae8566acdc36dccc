"""A summary folder judges slow operators as the traces do: the op-type tables kept with each card's finding
facts give the same ``slow_operator`` finding, evidence included."""

from __future__ import annotations

from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.summaries.summary_session import SummarySession
from timelineview.distributed.summarize import summarize
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

SLOW = 2


def test_slow_operator_from_summaries_equals_the_traces(dask_client, tmp_path):
    traces = tmp_path / "job"
    specs = [s.with_(slow_op_types=("MatMulV2",), slow_op_factor=2.0) if s.rank == SLOW else s
             for s in cluster_specs(5, seed=13, steps=3, tasks_per_step=200)]
    generate_cluster(traces, specs)
    summarize(traces, tmp_path / "s", client=dask_client, progress=None)
    on_traces = [f.document() for f in AnalysisSession(load(traces, cache=False)).findings if f.rule == "slow_operator"]
    on_summaries = [f.document() for f in SummarySession(tmp_path / "s").findings if f.rule == "slow_operator"]
    assert [(f["cards"], f["advice"].split(" runs slower")[0]) for f in on_traces] == [([f"rank {SLOW}"],
                                                                                        "MatMulV2")]
    assert on_summaries == on_traces
