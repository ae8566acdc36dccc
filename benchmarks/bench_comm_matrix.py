"""Benchmark of the Communication tab's matrix: 128 ranks drawn in <= 100 ms.

A 128-rank ring-and-mesh of links (each rank sends to every rank of its node over SDMA/HCCS and to
its ring neighbours across nodes over RDMA/ROCE, a few slow), drawn per rank (cells of at least
6 px: a 1000 px square) and grouped by node (a 400 px square), each with the matrix rebuilt (a new
transport or size) and painted in one pass. Offscreen; prints the median of ``--runs``.

Run: ``python benchmarks/bench_comm_matrix.py [--ranks 128] [--runs 7] [--size 1000]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6 import QtWidgets  # noqa: E402

from timelineview.analysis.communication import Links  # noqa: E402
from timelineview.views.analysis_tabs.communication.matrix_widget import MatrixWidget  # noqa: E402
from timelineview.viewstate.tabs.comm_matrix import NODE_SIZE  # noqa: E402

TARGET_MS = 100.0
SLOW_SHARE = 0.01


def cluster_links(ranks: int, seed: int = 0) -> tuple[Links, np.ndarray]:
    rng = np.random.default_rng(seed)
    src, dst, tr, lt = [], [], [], []
    for r in range(ranks):
        node = r // NODE_SIZE
        for d in range(node * NODE_SIZE, min((node + 1) * NODE_SIZE, ranks)):
            if d != r:
                src.append(r), dst.append(d), tr.append("SDMA"), lt.append("HCCS")
        for d in ((r + NODE_SIZE) % ranks, (r - NODE_SIZE) % ranks):
            if d // NODE_SIZE != node:
                src.append(r), dst.append(d), tr.append("RDMA"), lt.append("ROCE")
    k = len(src)
    links = Links(np.array(src, np.int64), np.array(dst, np.int64), tr, lt,
                  rng.integers(1 << 20, 1 << 30, k).astype(np.int64),
                  rng.integers(10_000, 10_000_000, k).astype(np.int64),
                  rng.integers(1, 200, k).astype(np.int64))
    return links, rng.random(k) < SLOW_SHARE


def draw_ms(w: MatrixWidget, size: int, transport: str) -> float:
    w.set_transport(transport)  # drops the built matrix: the timing includes building it
    t0 = time.perf_counter()
    w.render_image(size, size)
    return (time.perf_counter() - t0) * 1000.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=128)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--size", type=int, default=1000, help="px of the square the matrix is drawn in")
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MatrixWidget()
    links, slow = cluster_links(args.ranks)
    w.set_links(links, slow)
    cold = draw_ms(w, args.size, "")  # the first text drawn in the process also loads the fonts
    print(f"first draw in this process (fonts loaded): {cold:.1f} ms")
    for label, size in (("per rank", args.size), ("by node", 400)):
        times = [draw_ms(w, size, transport) for transport in ("", "SDMA", "RDMA") for _ in range(args.runs)]
        m = w.current(size, size)
        print(f"{args.ranks} ranks, {len(links)} links, {label} ({len(m)} rows, {size} px): "
              f"median {statistics.median(times):.1f} ms, max {max(times):.1f} ms (target <= {TARGET_MS:.0f} ms)")
    del app


if __name__ == "__main__":
    main()
