"""The JSON documents name their format and follow the schemas shipped in the package, on generated runs of
every shape (slow card and link, pipeline parallelism, memory records), on the bundled sample, on summary
folders and on the real samples when they are there; every key the schemas allow is defined in
docs/metrics.md."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from tests.views.summary.conftest import summaries, traces  # noqa: F401 - the generated summaries, as fixtures
from timelineview.analysis.diff.run_diff import NAME_STATUSES, diff_runs
from timelineview.analysis.diff.run_matching import MATCHINGS
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory
from timelineview.views.resources import sample_cluster_path

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT.parent / "shared" / "samples"


def schema(kind: str) -> dict:
    return json.loads(resources.files("timelineview").joinpath("schemas", f"{kind}.schema.json").read_text())


def check(kind: str, document: dict) -> None:
    document = json.loads(json.dumps(document))  # as printed: tuples are lists, keys are text
    # 2: the producer's words mean its figures; stats 3: every instant is ns on the card's clock (metrics.md §5)
    assert document["schema"] == {"stats": "timelineview.stats/3", "diff": "timelineview.diff/2"}[kind]
    errors = list(jsonschema.Draft202012Validator(schema(kind)).iter_errors(document))
    assert not errors, [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:5]]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, AnalysisSession]:
    out = {}
    folder = tmp_path_factory.mktemp("memory")
    truths = generate_cluster(folder, cluster_specs(4, seed=3, steps=3, tasks_per_step=60, slow_card=1), "msprof")
    write_cluster_memory(truths, MemorySpec(seed=3, imbalance_card=2))
    out["memory"] = AnalysisSession(load(folder, cache=False))
    folder = tmp_path_factory.mktemp("pipeline")
    specs = [s.with_(pipeline=True) for s in cluster_specs(4, seed=4, steps=3, tasks_per_step=60)]
    generate_cluster(folder, specs, "msprof")
    out["pipeline"] = AnalysisSession(load(folder, cache=False))
    folder = tmp_path_factory.mktemp("slow_link")
    specs = [s.with_(slow_link=(0, 1), slow_link_factor=3.0) for s in cluster_specs(4, seed=5, steps=2,
                                                                                        tasks_per_step=40)]
    generate_cluster(folder, specs, "msprof")
    out["slow_link"] = AnalysisSession(load(folder, cache=False))
    out["sample"] = AnalysisSession(load(sample_cluster_path(), cache=False))
    return out


@pytest.mark.parametrize("run", ["memory", "pipeline", "slow_link", "sample"])
def test_stats_documents_follow_the_schema(generated, run):
    check("stats", generated[run].stats_document())


def test_diff_documents_follow_the_schema(generated):
    check("diff", diff_runs(generated["memory"], generated["memory"]).document())
    check("diff", diff_runs(generated["sample"], generated["memory"]).document())
    check("diff", diff_runs(generated["pipeline"], generated["slow_link"]).document())


def test_a_link_in_one_run_only_follows_the_diff_schema(generated, tmp_path):
    """A 2-card run against a 4-card run: the links between ranks 2 and 3 exist in the base run only, so their
    ``new`` side is null and their bandwidth changes are null; the document still follows its schema."""
    generate_cluster(tmp_path, cluster_specs(2, seed=3, steps=2, tasks_per_step=40), "msprof")
    small = AnalysisSession(load(tmp_path, cache=False))
    document = diff_runs(generated["memory"], small).document()
    one_run_only = [link for link in document["links"] if link["new"] is None]
    assert one_run_only, "the 4-card run has links the 2-card run lacks"
    assert all(link["delta"]["bandwidth_gbps"] is None and link["delta"]["bytes"] == -link["base"]["bytes"]
               for link in one_run_only)
    check("diff", document)
    reverse = diff_runs(small, generated["memory"]).document()
    assert any(link["base"] is None for link in reverse["links"])
    check("diff", reverse)


def _properties_named(node: dict, key: str) -> list[dict]:
    """Every schema node of a property ``key``, however deep."""
    found = [node["properties"][key]] if key in node.get("properties", {}) else []
    for child in [*node.get("properties", {}).values(), node.get("items"), node.get("additionalProperties")]:
        if isinstance(child, dict):
            found += _properties_named(child, key)
    return found


def test_the_diff_schema_lists_every_status_and_matching_the_code_writes(generated):
    """A name's ``status`` and the document's ``matched_by`` take the values the diff's named constants allow, and
    real documents with every status follow the schema."""
    statuses = _properties_named(schema("diff"), "status")
    assert len(statuses) == 4  # the rows of the operators, the op types, the (op type, shapes) and the collectives
    for node in statuses:
        assert set(node["enum"]) == set(NAME_STATUSES)
    [matched_by] = _properties_named(schema("diff"), "matched_by")
    assert set(matched_by["enum"]) == set(MATCHINGS)
    seen = set()
    for base, new in (("memory", "memory"), ("sample", "memory"), ("pipeline", "slow_link")):
        document = diff_runs(generated[base], generated[new]).document()
        check("diff", document)
        seen |= {row["status"] for row in document["operators"] + document["communication"]}
    assert seen == set(NAME_STATUSES)
    wrong = diff_runs(generated["memory"], generated["memory"]).document()
    wrong["operators"][0]["status"] = "renamed"
    with pytest.raises(AssertionError):  # a status the code does not write is refused
        check("diff", wrong)


def test_the_command_line_prints_the_same_documents(generated, capsys):
    from timelineview.cli import stats_main

    assert stats_main([str(sample_cluster_path()), "--json", "--quiet", "--no-cache"]) == 0
    check("stats", json.loads(capsys.readouterr().out))


def test_the_diff_command_prints_a_document_of_its_schema(capsys):
    from timelineview.commands.diff import diff_main

    sample = str(sample_cluster_path())
    assert diff_main([sample, sample, "--json", "--quiet", "--no-cache"]) == 0
    check("diff", json.loads(capsys.readouterr().out))


def test_a_summary_folders_document_follows_the_schema(summaries):  # noqa: F811 - the fixture imported below
    from timelineview.analysis.summaries.summary_session import SummarySession

    check("stats", SummarySession(summaries.whole).stats_document())


@pytest.mark.samples
@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")
@pytest.mark.parametrize("sample", ["torch_npu", "cann_per_iteration", "mindspore_1x",
                                    "misc/gpu_timeline_display_0.json", "torch_npu_db/level1", "torch_npu_db/level0"])
def test_the_real_samples_documents_follow_the_schema(sample):
    check("stats", AnalysisSession(load(SAMPLES / sample, cache=False)).stats_document())


def _keys(node: dict, out: set[str]) -> set[str]:
    for key, value in node.get("properties", {}).items():
        out.add(key)
        _keys(value, out)
    for child in (node.get("items"), node.get("additionalProperties")):
        if isinstance(child, dict):
            _keys(child, out)
    return out


@pytest.mark.parametrize("kind", ["stats", "diff"])
def test_every_key_of_the_schemas_is_defined_in_the_metrics_doc(kind):
    doc = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w+]+)`", doc)) | set(re.findall(r'"([\w+]+)"', doc))
    assert sorted(_keys(schema(kind), set()) - named) == []
