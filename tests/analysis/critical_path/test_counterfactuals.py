"""Critical path and what-if against counterfactuals: the same seed generated without the planted problem
is the truth the prediction must meet (metrics.md §12)."""

from __future__ import annotations

import orjson
import pytest

from tests.analysis.critical_path.path_checks import assert_replay_gives_the_measured_steps, measured_steps_us
from timelineview.analysis.critical_path.cluster_graph import session_graph
from timelineview.analysis.critical_path.what_if import (
    CARD_AT_MEDIAN,
    DATA_WAIT_AT_MEDIAN,
    LINK_AT_MEDIAN,
    Change,
    predict,
)
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster

BASE = {"seed": 7, "steps": 3, "tasks_per_step": 160}
PROBLEMS = {
    "healthy": {},
    "slow_card": {"slow_card": 5, "slow_factor": 1.3},
    "slow_link": {"slow_link": (2, 3), "slow_link_factor": 3.0, "slow_link_delays": True},
    "data_wait": {"slow_data_card": 1, "slow_data_us": 3000.0},
    # pipeline parallelism: forward waits for a receive, sends during the step
    "pipeline_healthy": {"pipeline": True},
    "pipeline_slow_card": {"pipeline": True, "slow_card": 5, "slow_factor": 1.3},
}


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    out = {}
    for name, extra in PROBLEMS.items():
        folder = tmp_path_factory.mktemp(name)
        generate_cluster(folder, cluster_specs(8, **BASE, **extra), "msprof", options=WriteOptions(step_trace=True))
        out[name] = AnalysisSession(load(folder))
    return out



def test_replay_without_change_gives_the_measured_steps(sessions):
    assert_replay_gives_the_measured_steps(sessions.values())


@pytest.mark.parametrize(("problem", "healthy", "change"), [
    ("slow_card", "healthy", Change(CARD_AT_MEDIAN, "rank 5")),
    ("slow_link", "healthy", Change(LINK_AT_MEDIAN, "2-3")),
    ("data_wait", "healthy", Change(DATA_WAIT_AT_MEDIAN, "rank 1")),
    ("pipeline_slow_card", "pipeline_healthy", Change(CARD_AT_MEDIAN, "rank 5")),
])
def test_prediction_meets_the_counterfactual(sessions, problem, healthy, change):
    now = measured_steps_us(sessions[problem]).mean()
    truth = measured_steps_us(sessions[healthy]).mean()
    true_gain = now - truth
    assert true_gain > 0.02 * now  # the planted problem costs time, else the check says nothing
    w = predict(session_graph(sessions[problem]), change)
    assert w.step_us_now == pytest.approx(now, abs=0.5)
    assert abs(w.step_us_predicted - truth) <= max(0.005 * truth, 0.2 * true_gain)


def test_a_slow_cards_lengthened_steps_have_it_on_the_path(sessions):
    slow = sessions["slow_card"].stats_document()["critical_path"]
    bad, good = measured_steps_us(sessions["slow_card"]), measured_steps_us(sessions["healthy"])
    longer = [k for k in range(len(bad)) if bad[k] > good[k] * 1.005]
    assert longer
    for k in longer:
        assert "rank 5" in slow[k]["cards"]
        assert slow[k]["share_by_card"]["rank 5"] > 0.5


def test_path_segments_tile_the_step(sessions):
    doc = sessions["slow_link"].stats_document()
    offsets = {c["card"]: round(c["clock_offset_us"] * 1000) for c in doc["cards"]}
    for step in doc["critical_path"]:
        segs = step["segments"]
        assert sum(s["share"] for s in segs) == pytest.approx(1.0, abs=2e-3)
        assert sum(s["dur_us"] for s in segs) == pytest.approx(step["step_us"], abs=0.01 * len(segs))
        aligned = [s["start_ns"] - offsets.get(s["card"], 0) for s in segs]
        for a, b, s in zip(aligned, aligned[1:], segs, strict=False):
            # each segment starts where the previous ended (in int: ns since the epoch as float are 256 ns apart)
            assert abs(a + round(s["dur_us"] * 1000) - b) <= 2


def test_stats_document_follows_its_schema(sessions):
    jsonschema = pytest.importorskip("jsonschema")
    import json
    from pathlib import Path

    import timelineview
    schema = json.loads((Path(timelineview.__file__).parent / "schemas" / "stats.schema.json").read_text())
    doc = sessions["slow_card"].stats_document()
    jsonschema.validate(json.loads(json.dumps(doc)), schema)
    # plain JSON types only: json takes numpy's float64 as a float, orjson without its numpy option does not
    orjson.dumps(doc)
    answered = {(w["kind"], w["target"], w["finding"]) for w in doc["what_if"]}
    assert ("card_at_median", "rank 5", "slow_compute") in answered  # the slow card's finding, with its gain
    assert sum(w["kind"] == "op_type_faster" and w["finding"] is None for w in doc["what_if"]) == 3


def test_the_text_report_names_the_slow_card_and_its_gain(sessions):
    from timelineview.analysis.summary import format_text

    doc = sessions["slow_card"].stats_document()
    text = format_text(doc)
    slow = next(w for w in doc["what_if"] if w["kind"] == "card_at_median")
    assert f"{slow['change']}" in text and f"{slow['gain_us']:.3f}" in text
    on_path = sum("rank 5" in s["cards"] for s in doc["critical_path"])
    assert f"rank 5 in {on_path} of {len(doc['critical_path'])} steps" in text
