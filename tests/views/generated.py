"""A generated cluster on disk for the view tests that open one in the window."""

from __future__ import annotations

from pathlib import Path

from timelineview.synthetic import cluster_specs, generate_cluster


def generated_cluster(tmp_path_factory, folder: str, cards: int, **spec) -> Path:
    """Writes ``cards`` generated cards (``cluster_specs(cards, **spec)``) under a fresh temporary ``folder``;
    returns the cluster's root."""
    out = tmp_path_factory.mktemp(folder) / "ranks"
    generate_cluster(out, cluster_specs(cards, **spec))
    return out
