"""Pipeline-parallel indicators against the reference sweep."""

import pytest

from timelineview.analysis.derived import derive
from timelineview.analysis.pipeline import derive_pipeline, pipeline_metrics

from . import reference as ref
from .factory import COMM, HW, Sl, build_store


def test_receive_only_and_stage_time():
    compute = [(0, 1000), (3000, 4000)]
    receive = [(800, 2500), (5000, 6000)]  # hcom_receive: partly hidden by compute and by the all-reduce
    other = [(2000, 3500)]
    slices = [Sl(HW, f"op{k}", s, e - s, "AI_CORE") for k, (s, e) in enumerate(compute)]
    slices += [Sl(COMM, f"hcom_receive__{k}_1", s, e - s) for k, (s, e) in enumerate(receive)]
    slices += [Sl(COMM, "hcom_allReduce__3_1", s, e - s) for s, e in other]
    store = build_store(slices)
    d = derive(store)
    p = derive_pipeline(store, d)
    t0, t1 = d.span
    m = pipeline_metrics(d, p, t0, t1)
    # receive-only by sweep: covered by receive, by neither compute nor the all-reduce
    segs = ref.segments(t0, t1, compute, receive, other)
    want = sum(b - a for a, b in segs if ref.measure(receive, a, b) == b - a
               and ref.measure(compute + other, a, b) == 0)
    assert want == 1000 + 1000
    assert m["receive_only_us"] == pytest.approx(want / 1000)
    pure = ref.metrics(compute, receive + other, t0, t1)["pure_communication_us"]
    assert m["other_pure_communication_us"] == pytest.approx(pure - want / 1000)
    assert m["pipeline_stage_us"] == pytest.approx((t1 - t0 - want) / 1000)
    # a window cutting a receive
    assert pipeline_metrics(d, p, 1500, 5500)["receive_only_us"] == pytest.approx(0.5 + 0.5)


def test_mindspore_receive_names_and_no_pipeline():
    store = build_store([Sl(HW, "a", 0, 10, "AI_CORE"), Sl(COMM, "stream_11_0_Receive-op2068", 20, 10)])
    p = derive_pipeline(store, derive(store))
    assert p is not None and p.receive_only.total() == 10
    plain = build_store([Sl(HW, "a", 0, 10, "AI_CORE"), Sl(COMM, "hcom_allReduce_1", 20, 10)])
    assert derive_pipeline(plain, derive(plain)) is None
