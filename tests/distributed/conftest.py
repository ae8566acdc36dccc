"""A generated 16-card cluster and a real local Dask cluster of two worker processes, shared by the tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from timelineview.synthetic import cluster_specs, generate_cluster

pytest.importorskip("distributed")

CARDS = 16
CARD_BYTES = 300_000  # small cards: the point is the orchestration, not the decode speed


@pytest.fixture(scope="session")
def traces(tmp_path_factory) -> Path:
    """16 msprof cards, rank 3 slow, link 4-5 slow (so that every cluster-level result has something)."""
    out = tmp_path_factory.mktemp("traces") / "job"
    specs = cluster_specs(CARDS, seed=7, steps=3, slow_card=3, slow_link=(4, 5), slow_link_factor=6.0,
                          clock_skew_us=300.0)
    generate_cluster(out, specs, "msprof", target_bytes=CARD_BYTES)
    return out


@pytest.fixture
def traces_copy(traces, tmp_path) -> Path:
    """A copy of the cards a test may change."""
    out = tmp_path / "job"
    shutil.copytree(traces, out)
    return out


@pytest.fixture(scope="session")
def dask_client():
    """A real local cluster: two worker processes of one thread each."""
    from timelineview.distributed.summarize import local_client

    client = local_client(2)
    yield client
    cluster = client.cluster
    client.close()
    cluster.close()
