"""The bundled sample cluster opened once for the API tests, and its ``stats --json`` document as the
command line prints it (the reference the API's numbers are checked against)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")
pytest.importorskip("duckdb")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def sample_path() -> Path:
    from timelineview.views.resources import sample_cluster_path

    path = sample_cluster_path()
    if path is None:
        pytest.skip("the bundled sample cluster is not there")
    return path


@pytest.fixture(scope="session")
def sample(sample_path):
    import timelineview

    return timelineview.open(sample_path, cache=False)


def run_cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "timelineview", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


@pytest.fixture(scope="session")
def stats_json(sample_path) -> dict:
    out = run_cli("stats", str(sample_path), "--json", "--quiet")
    assert out.returncode == 0, out.stderr
    return orjson.loads(out.stdout)
