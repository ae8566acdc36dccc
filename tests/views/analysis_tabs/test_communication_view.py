"""The Communication tab: the matrix's cells against the generator's ground truth,
the planted slow link outlined and no other, hover text, click-through to the operator with the plane
lanes open, the operator tables against the ground truth, exports, the wait lane against a plain
pass over the plane tasks, the plane-task colours and a transfer's bandwidth in the details."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from tests.views.main_window_fixture import open_and_wait
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.views.analysis_tabs.communication.communication_view import ACROSS
from timelineview.views.analysis_tabs.communication.matrix_widget import SLOW_PEN
from timelineview.viewstate.timeline.comm_wait_lane import KEY as WAIT_KEY
from timelineview.viewstate.timeline.lane_layout import DERIVED, LANE
from timelineview.viewstate.timeline.plane_colours import WAIT_COLOUR, pair_colour

CARDS = 4
SLOW_LINK = (1, 2)
SLOW_CARD = 3
INVALID_RANK = 4294967295
WAIT_NAMES = {"Notify_Wait", "Notify Wait"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("comm") / "ranks"
    truths = generate_cluster(out, cluster_specs(CARDS, seed=12, steps=2, tasks_per_step=60, slow_card=SLOW_CARD,
                                                 slow_link=SLOW_LINK, slow_link_factor=4.0))
    return out, truths


@pytest.fixture
def view(qtbot, window, generated, tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    with qtbot.waitSignal(window.loadFinished, timeout=60_000):
        window.open_paths([generated[0]], remember=False)
    v = window.cluster.analysis.widgets["communication"]
    qtbot.waitUntil(lambda: v.model.rowCount() > 0, timeout=10_000)
    v.resize(1400, 800)
    v.matrix.resize(700, 700)
    return v


def truth_cells(truths) -> dict[tuple[int, int], list]:
    """{(src, dst): [bytes, transit ns, count, transports, link types]} summed from the ground truth."""
    cells: dict[tuple[int, int], list] = defaultdict(lambda: [0, 0, 0, set(), set()])
    for t in truths:
        for link in t.links:
            c = cells[(link["src"], link["dst"])]
            c[0] += link["bytes"]
            c[1] += link["transit_ns"]
            c[2] += link["count"]
            c[3].add(link["transport"])
            c[4].add(link["link_type"])
    return dict(cells)


def plain_plane_tasks(store):
    """(start, end, name, args) of every task on the card's "Plane N" lanes, by a plain loop."""
    planes = {ln for ln in range(len(store.lanes)) if store.lanes.name[ln].startswith("Plane")}
    out = []
    for i in range(len(store.slices)):
        if int(store.slices.lane[i]) in planes:
            start = int(store.slices.start[i])
            out.append((start, start + int(store.slices.dur[i]), store.strings[store.slices.name[i]],
                        store.args(i)))
    return out


def merged(spans: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for s, e in sorted(x for x in spans if x[1] > x[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def minus(a: list[list[int]], b: list[list[int]]) -> list[tuple[int, int]]:
    """a − b, both merged, by cutting each interval of a at every interval of b."""
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append((cur, bs))
            cur = max(cur, be)
        if cur < e:
            out.append((cur, e))
    return out


def is_transfer(args: dict) -> bool:
    src, dst = args.get("src rank"), args.get("dst rank")
    return (args.get("size(Byte)", 0) > 0 and src != dst and src is not None and dst is not None
            and src != INVALID_RANK and dst != INVALID_RANK)


def test_matrix_cells_match_the_ground_truth_and_only_the_planted_link_is_slow(view, generated):
    m = view.matrix.current()
    assert not m.by_node and m.groups.tolist() == list(range(CARDS))
    cells = truth_cells(generated[1])
    assert cells, "the generator wrote links"
    for i in range(CARDS):
        for j in range(CARDS):
            want = cells.get((i, j))
            if want is None:
                assert not m.present[i, j]
                continue
            assert (int(m.bytes[i, j]), int(m.transit[i, j]), int(m.count[i, j])) == tuple(want[:3])
            assert m.bandwidth_gbps[i, j] == pytest.approx(want[0] / want[1])
    assert np.argwhere(m.slow).tolist() == [list(SLOW_LINK)]
    assert view.cluster.slow_keys == [f"{SLOW_LINK[0]}-{SLOW_LINK[1]}"] == [generated[1][0].slow_link]
    assert "Slow links: 1-2" in view.note.text()


def test_slow_link_is_outlined_in_red_and_no_other(view):
    img = view.matrix.render_image(600, 600)
    w = view.matrix

    def border_is_red(i: int, j: int) -> bool:
        """All four sides red (a neighbour of the slow cell shares one side with its frame)."""
        area = w.cells_area(600, 600)
        size = area.width() / len(w.current(600, 600))
        left, top = area.left() + j * size, area.top() + i * size
        sides = [(left + size / 2, top + 1), (left + size / 2, top + size - 1), (left + 1, top + size / 2),
                 (left + size - 1, top + size / 2)]
        return all(QtGui.QColor(img.pixel(int(x), int(y))) == SLOW_PEN for x, y in sides)

    assert border_is_red(*SLOW_LINK)
    assert not any(border_is_red(i, j) for i in range(CARDS) for j in range(CARDS) if (i, j) != SLOW_LINK)


def test_hover_text_names_the_link(view, generated):
    w = view.matrix
    want = truth_cells(generated[1])[SLOW_LINK]
    text = w.tooltip_at(w.cell_rect(*SLOW_LINK).center())
    assert text.splitlines()[0] == "rank 1 → rank 2"
    assert f"transport: {', '.join(sorted(want[3]))}" in text and f"link type: {', '.join(sorted(want[4]))}" in text
    assert f"({want[0]} B)" in text and f"over {want[2]} transfers" in text
    assert f"bandwidth: {want[0] / want[1]:.3g} GB/s" in text and "SLOW LINK" in text
    assert w.tooltip_at(QtCore.QPointF(1, 1)) == ""


def plane_rows_shown(window, card_no: int) -> list[str]:
    timeline = window.timeline
    store = timeline.ctx.card_by_number(card_no).store
    return [store.lanes.name[r.lane] for r in timeline.ctx.layout.rows
            if r.kind == LANE and r.card == card_no and store.lanes.name[r.lane].startswith("Plane")]


def test_clicking_a_cell_shows_the_operator_with_its_plane_lanes(view, window, qtbot):
    window._set_all_collapsed(True)
    assert not plane_rows_shown(window, 1)
    window.cluster.tabs.setCurrentWidget(view)
    got = []
    view.jumpRequested.connect(got.append)
    qtbot.mouseClick(view.matrix, QtCore.Qt.MouseButton.LeftButton, pos=view.matrix.cell_rect(*SLOW_LINK).center()
                     .toPoint())
    assert len(got) == 1
    target = got[0]
    card = window.timeline.ctx.card_by_number(1)
    cc = card.analysis.communication
    # the operator holding the longest transfer 1 -> 2, found here by a plain loop over the plane tasks
    t = cc.tasks
    best = max((int(t.end[k] - t.start[k]), k) for k in range(len(t))
               if t.transfer[k] and t.src[k] == 1 and t.dst[k] == 2)[1]
    start = int(t.start[best])
    holders = [r for r in range(len(cc.ops)) if cc.ops.start[r] <= start <= cc.ops.start[r] + cc.ops.elapse[r]]
    assert target.card == 1 and target.name == cc.ops.name[holders[-1]]
    assert (target.start_ns, target.end_ns) == (int(cc.ops.start[holders[-1]]),
                                                int(cc.ops.start[holders[-1]] + cc.ops.elapse[holders[-1]]))
    assert window.cluster.tabs.currentIndex() == 0
    v = window.timeline.ctx.viewport
    t0, t1 = window.timeline.ctx.rel(card, target.start_ns), window.timeline.ctx.rel(card, target.end_ns)
    assert v.t0 <= t0 and t1 <= v.t1 and v.span < 4 * (t1 - t0) + 10_000
    assert plane_rows_shown(window, 1) == [n for n in card.store.lanes.name if n.startswith("Plane")]
    sel = window.timeline.ctx.selection
    assert sel is not None and card.store.strings[card.store.slices.name[sel.index]] == target.name


def test_operator_table_matches_the_ground_truth_and_rows_jump(view, window, generated):
    number = view.cards[0].number
    view.scope.setCurrentIndex(view.scope.findData(number))
    truth = generated[1][view.cards[0].store.rank]
    # the headline columns are the producer's figures (main plane), the all-planes ones the unions
    figures = ("transit", "wait", "synchronization", "idle")
    want = sorted((o["name"], o["start_ns"], o["end_ns"] - o["start_ns"], o["producer"]["plane"],
                   *(o["producer"][f"{f}_ns"] for f in figures), *(o[f"{f}_ns"] for f in figures))
                  for o in truth.comm_ops)
    cc = view.session.analyse(number, ("communication",)).communication
    got = sorted((r["name"], int(cc.ops.start[r["op"]]), round(r["elapse_us"] * 1000), r["plane"],
                  *(round(r[f"{f}_us"] * 1000) for f in figures),
                  *(round(r[f"all_planes_{f}_us"] * 1000) for f in figures))
                 for r in view.model.rows)
    assert got == want
    for r in view.model.rows:
        both = r["wait_us"] + r["transit_us"]
        assert r["wait_ratio"] == (pytest.approx(r["wait_us"] / both) if both else None)
    wait = [c.key for c in view.model.columns].index("wait_us")
    shown = [view.proxy.index(k, wait).data(QtCore.Qt.ItemDataRole.UserRole) for k in range(view.proxy.rowCount())]
    assert shown == sorted(shown, reverse=True)  # sorted by wait, as numbers
    target = view.open_row(0)
    assert target.name == view.model.rows[0]["name"] and window.cluster.tabs.currentIndex() == 0


def test_across_cards_each_card_waits_and_the_slow_card_is_waited_for(view, generated):
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    rows = view.model.rows
    by_card = [defaultdict(list) for _ in range(CARDS)]
    for k, t in enumerate(generated[1]):
        for o in t.comm_ops:
            by_card[k][o["name"]].append(o["wait_ns"])
    for r in rows:
        waits = [by_card[k][r["name"]][r["call"]] for k in range(CARDS)]
        assert [round(r[f"wait_{k}"] * 1000) for k in range(CARDS)] == waits
        # a row names only the card the others wait for (a verdict), where it waited least, 1 µs below every other
        others = [w for k, w in enumerate(waits) if k != SLOW_CARD]
        if r["waited_for"] != -1:
            assert r["waited_for"] == SLOW_CARD and min(others) - waits[SLOW_CARD] >= 1000
            assert r["waited_for_card"] == f"rank {SLOW_CARD}"
        else:
            assert r["waited_for_card"] is None
    # the slow card arrives last at the first collective of each step: those rows name it
    assert sum(r["waited_for"] == SLOW_CARD for r in rows) >= 2
    assert f"the others wait for rank {SLOW_CARD}:" in view.note.text()


def test_csv_and_png_export(view, tmp_path):
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    view.export_csv(tmp_path / "c.csv")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "c.csv").read_text(encoding="utf-8"))))
    assert len(rows) == len(view.model.rows)
    assert [float(rows[0][f"wait_{k}"]) for k in range(CARDS)] == [view.model.rows[0][f"wait_{k}"]
                                                                  for k in range(CARDS)]
    assert view.export_png(tmp_path / "m.png")
    img = QtGui.QImage(str(tmp_path / "m.png"))
    assert not img.isNull() and img.width() >= 600


def test_wait_lane_is_waits_not_under_transfers(view, window):
    card = window.timeline.ctx.card_by_number(0)
    k = next(i for i, d in enumerate(card.derived_lanes) if d.key == WAIT_KEY)
    assert [r for r in window.timeline.ctx.layout.rows if r.kind == DERIVED and r.card == 0 and r.derived == k]
    tasks = plain_plane_tasks(card.store)
    waits = merged([(s, e) for s, e, name, a in tasks if name in WAIT_NAMES or a.get("task type") in WAIT_NAMES])
    transfers = merged([(s, e) for s, e, _, a in tasks if is_transfer(a)])
    want = minus(waits, transfers)
    _, starts, ends, _ = card.derived_lanes[k].parts[0]
    assert want and list(zip(starts.tolist(), ends.tolist(), strict=True)) == want


def test_plane_colour_mode_and_transfer_bandwidth_in_details(view, window):
    card = window.timeline.ctx.card_by_number(0)
    window.plane_colour_action.trigger()
    assert window.timeline.ctx.plane_colours
    from timelineview.viewstate.timeline.plane_colours import plane_colour_ids

    ids = plane_colour_ids(card)
    planes = {ln for ln in range(len(card.store.lanes)) if card.store.lanes.name[ln].startswith("Plane")}
    for i in range(len(card.store.slices)):
        if int(card.store.slices.lane[i]) not in planes:
            assert ids[i] == -1
            continue
        a = card.store.args(i)
        name = card.store.strings[card.store.slices.name[i]]
        if a.get("size(Byte)", 0) > 0:
            assert ids[i] == pair_colour(a["transport type"], a["link type"])
        elif name in WAIT_NAMES:
            assert ids[i] == WAIT_COLOUR
    window.plane_colour_action.trigger()
    assert not window.timeline.ctx.plane_colours
    first = next(i for i in range(len(card.store.slices)) if int(card.store.slices.lane[i]) in planes
                 and is_transfer(card.store.args(i)) and card.store.slices.dur[i] > 0)
    a = card.store.args(first)
    details = window.details.slice
    details.show_slice(card, first, window.timeline.ctx.card_shift(card))
    top = details.args.topLevelItem(0)
    assert top.text(0) == "Bandwidth"
    assert top.text(1).startswith(f"{a['size(Byte)'] / int(card.store.slices.dur[first]):.3g} GB/s")
    assert details.args.topLevelItem(1).text(1) == (f"rank {a['src rank']} → rank {a['dst rank']}, "
                                                    f"{a['transport type']} / {a['link type']}")


def test_single_card_gets_its_own_links(qtbot, window, generated, tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    one = Path(generated[0]) / "rank0_ascend_pt"
    open_and_wait(qtbot, window, one)
    v = window.cluster.analysis.widgets["communication"]
    qtbot.waitUntil(lambda: v.model.rowCount() > 0, timeout=10_000)
    m = v.matrix.current()
    sent = {(link["src"], link["dst"]): link["bytes"] for link in generated[1][0].links}
    got = {(int(m.groups[i]), int(m.groups[j])): int(m.bytes[i, j]) for i, j in zip(*np.nonzero(m.present),
                                                                                   strict=True)}
    assert {k: v for k, v in got.items() if k[0] == 0} == sent
    assert v.scope.findData(ACROSS) == -1 and len(v.model.rows) == len(generated[1][0].comm_ops)


def test_communication_wait_only_filter_shows_each_cards_wait(view, window):
    window.cluster.set_lane_filter(WAIT_KEY)
    rows = window.timeline.ctx.layout.rows
    assert [r.card for r in rows] == sorted(c.number for c in window.timeline.cards)
    for r in rows:
        card = window.timeline.ctx.card_by_number(r.card)
        assert r.kind == DERIVED and card.derived_lanes[r.derived].key == WAIT_KEY
    window.cluster.set_lane_filter("all")
    assert len(window.timeline.ctx.layout.rows) > len(rows)


def test_wait_filter_chosen_before_any_layout_still_finds_each_card(generated, tmp_path, monkeypatch):
    """Fresh cards (the wait lane not yet among their derived lanes) under the filter."""
    from timelineview.analysis.session import AnalysisSession
    from timelineview.model import load_cards
    from timelineview.model.load.loader import card_sources
    from timelineview.views.timeline.tracks.registry import TRACK_KINDS
    from timelineview.viewstate.card_view import prepare_card
    from timelineview.viewstate.timeline.lane_filter import build_filtered_layout

    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    stores = load_cards(card_sources([Path(generated[0])]))
    session = AnalysisSession(stores, tolerant=True)
    cards = [prepare_card(s, i, analysis=session.analyse(i)) for i, s in enumerate(stores)]
    for c in cards:
        session.analyse(c.number, ("communication",))
        assert all(d.key != WAIT_KEY for d in c.derived_lanes)
    layout = build_filtered_layout(cards, WAIT_KEY, set(), 600, TRACK_KINDS)
    assert [r.card for r in layout.rows] == [c.number for c in cards]
    for r in layout.rows:
        lane = cards[r.card].derived_lanes[r.derived]
        assert lane.key == WAIT_KEY
        want = minus(merged([(s, e) for s, e, n, a in plain_plane_tasks(cards[r.card].store)
                             if n in WAIT_NAMES or a.get("task type") in WAIT_NAMES]),
                     merged([(s, e) for s, e, _, a in plain_plane_tasks(cards[r.card].store) if is_transfer(a)]))
        assert list(zip(lane.parts[0][1].tolist(), lane.parts[0][2].tolist(), strict=True)) == want
    again = build_filtered_layout(cards, WAIT_KEY, set(), 600, TRACK_KINDS)  # found as a derived lane now
    assert [(r.card, r.derived) for r in again.rows] == [(r.card, r.derived) for r in layout.rows]
    assert all(sum(d.key == WAIT_KEY for d in c.derived_lanes) == 1 for c in cards)


def test_the_call_column_counts_calls_of_a_name_and_shows_only_when_names_repeat(qtbot, window, view, tmp_path):
    """torch_npu names every call apart: each collective is its name's first call, so no Call column (it was
    0 on every row). A graph's operators repeat their names every iteration: Call is the k-th (from 1)."""
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    call = [c.title for c in view.model.columns].index("Call")
    assert {r["call_number"] for r in view.model.rows} == {1}
    assert view.table.isColumnHidden(call)
    view.scope.setCurrentIndex(view.scope.findData(view.cards[0].number))
    assert not view.table.isColumnHidden(call)  # the per-card table's column there is shown
    out = tmp_path / "graph"
    truths = generate_cluster(out, cluster_specs(2, seed=5, steps=3, tasks_per_step=40), "msprof_per_iteration")
    open_and_wait(qtbot, window, out)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=10_000)
    view.scope.setCurrentIndex(view.scope.findData(ACROSS))
    rows = view.model.rows
    names = [o["name"] for o in truths[0].comm_ops]
    assert len(set(names)) < len(names)  # the same names every iteration
    for r in rows:  # the k-th call of its name: its position among the card's calls of that name, from 1
        assert 1 <= r["call_number"] <= names.count(r["name"])
    assert sorted((r["name"], r["call_number"]) for r in rows) == sorted(
        (n, names[:k + 1].count(n)) for k, n in enumerate(names))
    assert not view.table.isColumnHidden(call)
