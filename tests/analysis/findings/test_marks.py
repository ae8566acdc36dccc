"""Every mark is a verdict (metrics.md §4): on generated clusters, a planted slow card is the only card any
surface marks, a healthy cluster has no mark at all, ties credit nobody, and ``diff`` lists the card that
regressed first."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from timelineview.analysis.diff.run_diff import diff_runs
from timelineview.analysis.findings.marks import (
    DIFF_SURFACE,
    HEADLINE_SURFACE,
    HEAT_MAP_SURFACE,
    OPERATORS_SURFACE,
    SLOW_CARD_SURFACE,
    WAITED_FOR_SURFACE,
    diff_marks,
    session_marks,
    wait_verdict,
)
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.viewstate.tabs.heat_map import heat_matrix

CARDS = 32
SLOW = 5
STEPS = 4
TASKS = 200
US = 1000


def _session(tmp_path_factory, name: str, cards: int = CARDS, **spec) -> AnalysisSession:
    out = tmp_path_factory.mktemp(name)
    generate_cluster(out, cluster_specs(cards, steps=STEPS, tasks_per_step=TASKS, **spec))
    return AnalysisSession(load(out))


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> AnalysisSession:
    return _session(tmp_path_factory, "planted", seed=1, slow_card=SLOW, slow_factor=1.3)


@pytest.fixture(scope="module")
def healthy(tmp_path_factory) -> AnalysisSession:
    return _session(tmp_path_factory, "healthy", seed=1)


def _named_card(mark) -> str:
    """The card a mark names, read from its item the way each surface writes it."""
    if mark.surface in (SLOW_CARD_SURFACE, HEADLINE_SURFACE):
        return mark.item
    if mark.surface == WAITED_FOR_SURFACE:
        return mark.item.rsplit(": ", 1)[1]
    if mark.surface == OPERATORS_SURFACE:
        return mark.item.rsplit(" on ", 1)[1]
    return mark.item.split(" of ", 1)[1].split(" in step")[0]  # heat map: "<metric> of <card> in step <n>"


def test_a_planted_slow_card_is_the_only_card_marked(planted):
    marks = session_marks(planted)
    surfaces = {m.surface for m in marks}
    assert {SLOW_CARD_SURFACE, OPERATORS_SURFACE, HEADLINE_SURFACE, WAITED_FOR_SURFACE, HEAT_MAP_SURFACE} <= surfaces
    assert {_named_card(m) for m in marks} == {f"rank {SLOW}"}


def test_operator_marks_are_few_and_each_carries_a_practical_excess(planted):
    """The former rule (max ≥ 1.2× the mean) marked nearly every operator of a 1.3× card; now an operator is
    marked when its excess on that card is also at least 5 % of its median and 1 % of the median card span,
    which only the largest operators carry."""
    cards = [planted.sources[i] for i in planted.order]
    names = sorted({n for s in cards for n in s.operators.by_name.labels})
    totals = np.zeros((len(names), len(cards)))
    for c, s in enumerate(cards):
        table = s.operators.by_name
        for label, total in zip(table.labels, table.total_ns.tolist(), strict=True):
            totals[names.index(label), c] = total
    span = float(np.median([s.span.t_end - s.span.t_origin for s in cards]))
    median = np.median(totals, axis=1)
    floor = np.maximum(0.05 * median, 0.01 * span)
    excess = totals[:, SLOW] - median
    former = {names[k] for k in range(len(names)) if totals[k].max() >= 1.2 * totals[k].mean()}
    marked = {m.item.rsplit(" on ", 1)[0] for m in session_marks(planted) if m.surface == OPERATORS_SURFACE}
    carries = {names[k] for k in range(len(names)) if excess[k] >= floor[k] and np.argmax(totals[k]) == SLOW}
    assert len(former) >= 0.9 * len(names)
    assert marked and marked == carries  # the 1.3× excess is large against the cards' spread: z passes
    assert len(marked) < len(former) / 2


def test_a_healthy_cluster_has_no_mark(healthy):
    assert session_marks(healthy) == []
    waits = healthy.communication.waits
    assert waits.flags == [] and (waits.waited_for == -1).all()


def test_the_headline_names_the_planted_card_and_the_cells_only_it(planted):
    waits = planted.communication.waits
    assert [f.card for f in waits.flags] == [f"rank {SLOW}"]
    credited = waits.waited_for[waits.waited_for >= 0]
    assert len(credited) >= STEPS and set(credited.tolist()) == {SLOW}
    # where it is credited, it waited least and by more than 1 µs below every other card
    for r in np.flatnonzero(waits.waited_for >= 0).tolist():
        w = np.sort(waits.wait[r][np.isfinite(waits.wait[r])])
        assert waits.wait[r, SLOW] == w[0] and w[1] - w[0] >= 1 * US


def _waits(cards: int, steps: int, late: dict[int, list[int]], jitter_us: float, seed: int = 0):
    """One collective per step plus one after it that everybody reaches together: in step k the cards of
    ``late[k]`` arrive 800 µs after the others (they wait about 0, the others about 800 µs)."""
    rng = np.random.default_rng(seed)
    rows, step = [], []
    for k in range(steps):
        first = 800 * US + rng.normal(0, jitter_us * US, cards)
        first[late.get(k, [])] = 5 * US
        rows += [first, 50 * US + rng.normal(0, jitter_us * US, cards)]
        step += [k, k]
    return np.array(rows), np.array(step)


def test_cards_that_tie_in_waiting_least_credit_nobody():
    cards = [f"rank {r}" for r in range(16)]
    wait, step = _waits(16, 6, {k: [3, 6] for k in range(6)}, jitter_us=5)
    verdict = wait_verdict(cards, wait, step, median_step_us=10_000.0)
    # both arrive last in every step, equally: the headline names neither alone, and no collective credits one
    assert verdict.flags == []
    assert (verdict.waited_for == -1).all()
    former = np.bincount(np.nanargmin(wait[::2], axis=1), minlength=16)  # the former count over the first
    assert former.argmax() in (3, 6) and former.max() > 0  # collectives named one of the two


def test_a_card_clearly_later_than_its_tied_rival_is_still_named():
    cards = [f"rank {r}" for r in range(16)]
    wait, step = _waits(16, 6, {k: [3] for k in range(6)}, jitter_us=5)
    wait[::2, 6] = 600 * US  # rank 6 arrives 200 µs late in each step, rank 3 800 µs
    verdict = wait_verdict(cards, wait, step, median_step_us=10_000.0)
    assert [f.card for f in verdict.flags] == ["rank 3"]
    assert verdict.waited_for[::2].tolist() == [3] * 6


def test_a_lateness_that_moves_from_card_to_card_names_nobody():
    """One card late in each step, a different one each time (as heavy-tailed noise does): the per-collective
    least wait moves around, the former count credited whichever card it tied on first; no card is a verdict."""
    cards = [f"rank {r}" for r in range(16)]
    wait, step = _waits(16, 8, {k: [k + 1] for k in range(8)}, jitter_us=5)
    verdict = wait_verdict(cards, wait, step, median_step_us=10_000.0)
    assert verdict.flags == [] and (verdict.waited_for == -1).all()
    former = np.bincount(np.nanargmin(wait, axis=1), minlength=16)
    assert former.max() >= 1  # the former headline would have named somebody


def test_the_heat_map_frames_only_the_planted_cards_steps(planted, healthy):
    matrix = heat_matrix(planted.comparison, "compute_us")
    rows = {int(r) for r in np.nonzero(matrix.marked)[0]}
    assert [matrix.row_labels[r] for r in rows] == [f"rank {SLOW}"]
    flag = next(f for f in planted.comparison.slow() if f["metric"] == "compute_us")
    # the framed steps are the ones above the flag's threshold over the cards' median in that step
    excess = matrix.values[SLOW] - np.median(matrix.values, axis=0)
    assert matrix.marked[SLOW].tolist() == (excess > flag["threshold"] - flag["median"]).tolist()
    assert matrix.marked[SLOW].sum() == flag["steps_above"]
    assert heat_matrix(planted.comparison, "step_time_us").marked is None  # step time flags nobody
    assert heat_matrix(healthy.comparison, "compute_us").marked is None
    by_node = heat_matrix(planted.comparison, "compute_us", node_size=8)
    assert np.nonzero(by_node.marked)[0].tolist() == [SLOW // 8] * int(matrix.marked[SLOW].sum())


@pytest.fixture(scope="module")
def regressed(tmp_path_factory):
    base = _session(tmp_path_factory, "base", cards=16, seed=3)
    new = _session(tmp_path_factory, "new", cards=16, seed=3, slow_card=11, slow_factor=1.3)
    return base, new


def test_diff_lists_the_card_that_regressed_first(regressed):
    base, new = regressed
    d = diff_runs(base, new)
    assert d.cards[0].card == "rank 11"
    assert [m.item for m in diff_marks(d)] == ["rank 11"] and diff_marks(d)[0].surface == DIFF_SURFACE
    # lockstep: every card's step time grew alike, so |Δ step time| could not have told which card regressed
    step = np.array([c.delta["step_time_us"] for c in d.cards])
    assert step.min() > 0.5 * step.max()
    own = {c.card: c.delta["compute_us"] for c in d.cards}
    assert own["rank 11"] == max(own.values())
    # the document keeps its schema: the order changed, not the keys
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("timelineview").joinpath("schemas", "diff.schema.json").read_text())
    document = json.loads(json.dumps(d.document()))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(document)) == []
    assert document["cards"][0]["card"] == "rank 11"


def test_diff_of_a_run_with_itself_or_a_healthy_rerun_marks_no_card(regressed, tmp_path_factory):
    base, _ = regressed
    assert diff_marks(diff_runs(base, base)) == []
    assert [c.card for c in diff_runs(base, base).cards] == [f"rank {r}" for r in range(16)]  # ties: by rank
    rerun = _session(tmp_path_factory, "rerun", cards=16, seed=4)
    assert diff_marks(diff_runs(base, rerun)) == []
