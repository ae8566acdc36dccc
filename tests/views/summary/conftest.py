"""Summary folders of the generated 16-card cluster of ``tests/distributed`` (rank 3 slow, link 4-5 slow),
written by a real local Dask cluster that is closed once they are written: one whole, one whose rank 5
could not be read."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.distributed.conftest import traces  # noqa: F401 - the same generated cluster, as a fixture here

FAILED_RANK = 5


class Summaries(NamedTuple):
    traces: Path
    whole: Path  # every card summarised
    one_failed: Path  # rank FAILED_RANK's trace was corrupt
    traces_one_failed: Path


def trace_of(folder: Path, rank: int) -> Path:
    return next((folder / f"rank{rank}_ascend_pt").rglob("trace_view.json"))


@pytest.fixture(scope="session")
def summaries(traces, tmp_path_factory) -> Summaries:  # noqa: F811 - the fixture imported above
    from timelineview.distributed.summarize import local_client, summarize

    root = tmp_path_factory.mktemp("summaries")
    damaged = root / "job-damaged"
    shutil.copytree(traces, damaged)
    trace_of(damaged, FAILED_RANK).write_bytes(b"\x00\x17 this is not a trace at all " * 100)
    client = local_client(2)
    try:
        summarize(traces, root / "whole", client=client, progress=None)
        summarize(damaged, root / "one-failed", client=client, progress=None)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    return Summaries(traces, root / "whole", root / "one-failed", damaged)


def resign(folder: Path) -> None:
    """Record every card's manifest digest in the index again, after a test changed the manifests (the
    reader takes only a manifest whose digest the index records)."""
    import orjson

    from timelineview.model.summary.guarded_files import digest

    index = orjson.loads((folder / "index.json").read_bytes())
    for entry in index["cards"]:
        manifest = folder / entry["dir"] / "card.json"
        if entry["status"] == "ok" and manifest.is_file():
            entry["manifest"] = digest(manifest.read_bytes())
    (folder / "index.json").write_bytes(orjson.dumps(index))
