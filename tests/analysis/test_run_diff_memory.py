"""``diff`` and the Compare tab give each card's device-memory peaks in both runs and their change (§9, §11):
a card made to hold 1.3x more memory in the new run is the one whose peaks grow, by what its truth says."""

from __future__ import annotations

import orjson
import pytest

from timelineview.analysis.diff.run_diff import MEMORY_KEYS, diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.commands.diff import diff_main, format_text
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster
from timelineview.synthetic.memory import GE_RESERVED, MemorySpec, write_cluster_memory

MB = 1 << 20
CARDS = 4
GROWN = 2


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same generated job twice, its memory files written healthy, then with card ``GROWN`` holding more."""
    out = {}
    for name, spec in (("base", MemorySpec(seed=5)), ("new", MemorySpec(seed=5, imbalance_card=GROWN))):
        folder = tmp_path_factory.mktemp(name)
        truths = generate_cluster(folder, cluster_specs(CARDS, seed=5, steps=3, tasks_per_step=40), "msprof")
        out[name] = (folder, write_cluster_memory(truths, spec))
    return out


def test_memory_peaks_of_each_card_in_both_runs_and_their_change(runs):
    (base_dir, base_truth), (new_dir, new_truth) = runs["base"], runs["new"]
    diff = diff_runs(AnalysisSession(load(base_dir)), AnalysisSession(load(new_dir)))
    for card in diff.cards:
        rank = card.base_number
        # the allocated peak is PTA's; the card's peak reserved is that of PTA+GE: PTA's and GE's constant pool
        for key, truth_of in (("memory_peak_allocated_mb", lambda t: t.peak_allocated),
                              ("memory_peak_reserved_mb", lambda t: t.peak_reserved + GE_RESERVED)):
            assert card.base[key] * MB == truth_of(base_truth[rank])
            assert card.new[key] * MB == truth_of(new_truth[rank])
            expected = (truth_of(new_truth[rank]) - truth_of(base_truth[rank])) / MB
            assert card.delta[key] == pytest.approx(expected, abs=1e-9)
    grown = {c.card for c in diff.cards if c.delta["memory_peak_reserved_mb"] > 0}
    assert grown == {f"rank {GROWN}"}
    document = orjson.loads(orjson.dumps(diff.document()))
    [card] = [c for c in document["cards"] if c["card"] == f"rank {GROWN}"]
    assert set(MEMORY_KEYS) <= card["delta"].keys()
    text = format_text(diff)
    assert "Device memory per card, peaks (MB)" in text


def test_with_memory_counters_only_the_reserved_peak_compares(tmp_path):
    folder = tmp_path / "run"
    generate_cluster(folder, cluster_specs(2, seed=1, steps=2, tasks_per_step=40), "msprof")
    session = AnalysisSession(load(folder))
    diff = diff_runs(session, session)
    docs = {d["card"]: d["memory"] for d in session.card_documents}
    for c in diff.cards:  # the trace's NPU MEM counters give APP's reserved memory, no allocated memory
        assert c.base["memory_peak_allocated_mb"] is None and c.delta["memory_peak_allocated_mb"] is None
        assert c.base["memory_peak_reserved_mb"] == docs[c.card]["components"]["APP"]["peak_reserved_mb"]
        assert c.delta["memory_peak_reserved_mb"] == 0.0


def test_without_memory_records_the_keys_are_empty_and_no_table_prints(tmp_path):
    folder = tmp_path / "run"
    generate_cluster(folder, cluster_specs(2, seed=1, steps=2, tasks_per_step=40), "msprof",
                     options=WriteOptions(memory_counters=False))
    session = AnalysisSession(load(folder))
    diff = diff_runs(session, session)
    assert all(c.base[k] is None and c.delta[k] is None for c in diff.cards for k in MEMORY_KEYS)
    assert "Device memory" not in format_text(diff)


def test_the_compare_tab_shows_the_memory_change(qtbot, runs):
    from timelineview.views.analysis_tabs.compare.delta_tables import DeltaTableModel, card_columns, card_records

    (base_dir, _), (new_dir, _) = runs["base"], runs["new"]
    diff = diff_runs(AnalysisSession(load(base_dir)), AnalysisSession(load(new_dir)))
    model = DeltaTableModel(card_columns(diff.phase_keys))
    model.set_rows(card_records(diff.cards, diff.phase_keys))
    titles = [c.title for c in model.columns]
    col = titles.index("Δ Peak reserved memory, MB (whole run)")  # the vocabulary's label
    row = [r["card"] for r in model.rows].index(f"rank {GROWN}")
    [card] = [c for c in diff.cards if c.card == f"rank {GROWN}"]
    shown = model.data(model.index(row, col))
    assert shown == f"+{card.delta['memory_peak_reserved_mb']:.3f} MB"  # the window's one format: 3 decimals


def test_diff_command_prints_the_memory_table(runs, capsys):
    assert diff_main([str(runs["base"][0]), str(runs["new"][0]), "--no-cache"]) == 0
    assert "Device memory per card, peaks (MB): base → new (delta)" in capsys.readouterr().out
