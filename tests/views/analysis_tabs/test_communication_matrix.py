"""The communication matrix from 2 to 128 ranks: per rank while cells fit, grouped by node of 8 beyond,
said on screen; cells against a plain sum over hand-made links; per transport; the colour scale."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from timelineview.analysis.communication import Links
from timelineview.views.analysis_tabs.communication.matrix_widget import MatrixWidget
from timelineview.viewstate.tabs.comm_matrix import (
    BYTES,
    EMPTY_RGB,
    MIN_CELL_PX,
    NODE_SIZE,
    SCALE_STOPS,
    TIME,
    build_matrix,
    colours,
)


def ring_links(n: int, seed: int = 3) -> Links:
    """Each rank sends to its two ring neighbours: SDMA/HCCS within a node of 8, RDMA/ROCE across."""
    rng = np.random.default_rng(seed)
    src, dst, tr, lt = [], [], [], []
    for r in range(n):
        for d in ((r + 1) % n, (r - 1) % n):
            if d == r:
                continue
            same = r // NODE_SIZE == d // NODE_SIZE
            src.append(r)
            dst.append(d)
            tr.append("SDMA" if same else "RDMA")
            lt.append("HCCS" if same else "ROCE")
    k = len(src)
    return Links(np.array(src, np.int64), np.array(dst, np.int64), tr, lt,
                 rng.integers(1_000, 10_000_000, k).astype(np.int64), rng.integers(100, 1_000_000, k).astype(np.int64),
                 rng.integers(1, 50, k).astype(np.int64))


def plain_cells(links: Links, group, transport: str = "") -> dict[tuple[int, int], list[int]]:
    cells: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for i in range(len(links)):
        if transport and links.transport[i] != transport:
            continue
        c = cells[(group(int(links.src[i])), group(int(links.dst[i])))]
        c[0] += int(links.bytes[i])
        c[1] += int(links.transit[i])
        c[2] += int(links.count[i])
    return dict(cells)


def matrix_cells(m) -> dict[tuple[int, int], list[int]]:
    return {(int(m.groups[i]), int(m.groups[j])): [int(m.bytes[i, j]), int(m.transit[i, j]), int(m.count[i, j])]
            for i, j in zip(*np.nonzero(m.present), strict=True)}


@pytest.mark.parametrize("n", [2, 16, 128])
def test_cells_per_rank_and_per_node_match_a_plain_sum(n):
    links = ring_links(n)
    slow = np.zeros(len(links), bool)
    slow[3 % len(links)] = True
    per_rank = build_matrix(links, slow)
    assert matrix_cells(per_rank) == plain_cells(links, lambda r: r)
    assert np.argwhere(per_rank.slow).tolist() == [[int(links.src[3 % len(links)]), int(links.dst[3 % len(links)])]]
    by_node = build_matrix(links, slow, by_node=True)
    assert matrix_cells(by_node) == plain_cells(links, lambda r: r // NODE_SIZE)
    assert len(by_node) == (n + NODE_SIZE - 1) // NODE_SIZE
    node = (int(links.src[3 % len(links)]) // NODE_SIZE, int(links.dst[3 % len(links)]) // NODE_SIZE)
    assert np.argwhere(by_node.slow).tolist() == [list(node)]
    rdma = build_matrix(links, slow, transport="RDMA")
    assert matrix_cells(rdma) == plain_cells(links, lambda r: r, "RDMA")
    assert all(k[0] // NODE_SIZE != k[1] // NODE_SIZE for k in matrix_cells(rdma))


def test_widget_groups_by_node_only_beyond_what_fits_and_says_so(qtbot):
    w = MatrixWidget()
    qtbot.addWidget(w)
    links = ring_links(128)
    w.set_links(links, np.zeros(len(links), bool))
    big = 128 * MIN_CELL_PX + 200
    m = w.current(big, big)
    assert not m.by_node and len(m) == 128 and "grouped" not in w.title(m)
    m = w.current(500, 500)
    assert m.by_node and len(m) == 128 // NODE_SIZE
    assert w.title(m).startswith(f"128 ranks grouped by node of {NODE_SIZE} (16 nodes)")
    small = MatrixWidget()
    qtbot.addWidget(small)
    few = ring_links(8)
    small.set_links(few, np.zeros(len(few), bool))
    assert not small.current(220, 220).by_node  # 8 ranks are one node: never grouped


def test_colour_scale_ends_and_empty_cells():
    values = np.array([[1.0, 3.0], [np.nan, 2.0]])
    rgb = colours(values, 1.0, 3.0)
    assert tuple(rgb[0, 0]) == tuple(SCALE_STOPS[0].astype(int))
    assert tuple(rgb[0, 1]) == tuple(SCALE_STOPS[-1].astype(int))
    assert tuple(rgb[1, 0]) == EMPTY_RGB
    assert tuple(rgb[1, 1]) == tuple(SCALE_STOPS[len(SCALE_STOPS) // 2].astype(int))


def test_bytes_and_time_metrics_are_the_cell_sums():
    links = ring_links(4)
    m = build_matrix(links, np.zeros(len(links), bool))
    plain = plain_cells(links, lambda r: r)
    b, t = m.values(BYTES), m.values(TIME)
    for (i, j), (nbytes, transit, _) in plain.items():
        assert b[i, j] == nbytes and t[i, j] == transit
    assert np.isnan(b[0, 0]) and np.isnan(t[0, 0])


def test_the_widget_paints_itself_like_its_export(qtbot):
    """paintEvent and the PNG draw the same: a cell's centre has its colour on screen too."""
    w = MatrixWidget()
    qtbot.addWidget(w)
    w.resize(400, 400)
    links = ring_links(4)
    w.set_links(links, np.zeros(len(links), bool))
    shot = w.grab().toImage()
    export = w.render_image(400, 400)
    m = w.current()
    i, j = map(int, np.argwhere(m.present)[0])
    centre = w.cell_rect(i, j).center().toPoint()
    assert shot.pixelColor(centre) == export.pixelColor(centre)
    assert shot.pixelColor(centre).getRgb()[:3] != EMPTY_RGB


@pytest.mark.parametrize("n", [16, 4096])
def test_column_labels_never_overlap(qtbot, n):
    from PySide6 import QtGui

    from timelineview.views.analysis_tabs.communication.matrix_widget import LABEL_GAP_PX, column_label_rects

    w = MatrixWidget()
    qtbot.addWidget(w)
    w.resize(400, 400)
    w.set_links(ring_links(n), np.zeros(2 * n, bool))
    m = w.current()
    assert m.by_node == (n > 16) and len(m) == (n // NODE_SIZE if n > 16 else n)
    area = w.cells_area()
    metrics = QtGui.QFontMetrics(w.font())
    rects = column_label_rects(m, area, area.width() / len(m), metrics)
    texts = [m.label(k) for k, _ in rects]
    assert rects[0][0] == 0 and len(rects) >= 2
    for (_, a), (_, b), text in zip(rects, rects[1:], texts, strict=False):
        assert a.right() <= b.left() + 1e-9  # side by side, no overlap
        assert a.width() >= metrics.horizontalAdvance(text)  # each label fits its box
    if metrics.horizontalAdvance(m.label(len(m) - 1)) + LABEL_GAP_PX <= area.width() / len(m):
        assert [k for k, _ in rects] == list(range(len(m)))  # room for every label: each is there
    assert n != 16 or len(rects) == 16  # 16 ranks in 400 px: each labelled


def test_more_cells_than_pixels_show_the_worst_cell_of_each_pixel():
    from timelineview.views.analysis_tabs.communication.matrix_widget import pixel_values
    from timelineview.viewstate.tabs.comm_matrix import BANDWIDTH

    rng = np.random.default_rng(5)
    n, pixels = 10, 4  # blocks of 3 × 3 cells, the last one padded
    values = rng.uniform(1, 20, (n, n))
    values[rng.random((n, n)) < 0.5] = np.nan
    values[9, 9] = np.nan  # the last block: one cell of a padded 3 × 3, empty
    slow = pixel_values(values, pixels, BANDWIDTH)
    large = pixel_values(values, pixels, BYTES)
    assert slow.shape == large.shape == (4, 4)
    for i in range(4):
        for j in range(4):
            block = values[3 * i:3 * i + 3, 3 * j:3 * j + 3]
            cells = [v for v in block.ravel() if not np.isnan(v)]
            if cells:
                assert slow[i, j] == min(cells) and large[i, j] == max(cells)
            else:
                assert np.isnan(slow[i, j]) and np.isnan(large[i, j])
    assert pixel_values(values, n, BANDWIDTH) is values  # a pixel per cell: unchanged


def test_a_slow_link_among_4096_ranks_is_framed_visibly(qtbot):
    from PySide6 import QtGui

    from timelineview.views.analysis_tabs.communication.matrix_widget import SLOW_MIN_PX

    links = ring_links(4096)
    slow = np.zeros(len(links), bool)
    slow[5000] = True
    w = MatrixWidget()
    qtbot.addWidget(w)
    w.set_links(links, slow)
    image = w.render_image(500, 500).convertToFormat(QtGui.QImage.Format.Format_RGB32)
    px = np.frombuffer(image.constBits(), np.uint32).reshape(image.height(), image.width())
    red = np.argwhere((((px >> 16) & 255) > 180) & (((px >> 8) & 255) < 80) & ((px & 255) < 80))
    m = w.current(500, 500)
    area = w.cells_area(500, 500)
    size = area.width() / len(m)
    i = int(np.searchsorted(m.groups, links.src[5000] // NODE_SIZE))
    j = int(np.searchsorted(m.groups, links.dst[5000] // NODE_SIZE))
    centre = np.array([area.top() + (i + 0.5) * size, area.left() + (j + 0.5) * size])
    assert size < 1 and len(red) >= 16  # a frame, not a dot (a 1-pixel cell framed as such gave 5 red pixels)
    assert np.abs(red - centre).max() <= SLOW_MIN_PX  # around the slow cell
