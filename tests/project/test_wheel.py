"""The package works from a wheel, outside any checkout: its version, its help, and the bundled sample the
window opens without a path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The project built as a wheel and installed (not editable) into a folder of its own."""
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out / "dist"),
                            str(ROOT)], capture_output=True, text=True, timeout=600)
    if built.returncode != 0:
        pytest.fail(f"the wheel did not build: {built.stderr[-2000:]}")
    [wheel] = (out / "dist").glob("timelineview-*.whl")
    target = out / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=600)
    return target


def _run(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_wheel_holds_the_package_its_sample_and_licence(installed):
    from timelineview import __version__

    [wheel] = installed.parent.glob("dist/*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert f"timelineview-{__version__}-py3-none-any.whl" == wheel.name
    assert any(n.endswith("resources/sample_cluster/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json")
               for n in names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)


def test_outside_a_checkout_the_installed_copy_runs(installed, tmp_path):
    from timelineview import __version__

    where = _run(installed, tmp_path, "-c", "import timelineview; print(timelineview.__file__)")
    assert where.stdout.strip() == str(installed / "timelineview" / "__init__.py"), where.stderr
    version = _run(installed, tmp_path, "-m", "timelineview", "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"timelineview {__version__}"
    usage = _run(installed, tmp_path, "-m", "timelineview", "--help")
    assert usage.returncode == 0
    for command in ("stats", "diff", "summarize"):
        assert f"timelineview {command}" in usage.stdout
    shot = _run(installed, tmp_path, "-m", "timelineview", "--screenshot", str(tmp_path / "sample.png"),
                "--size", "800x500")
    assert shot.returncode == 0, shot.stderr
    assert (tmp_path / "sample.png").stat().st_size > 10_000
    sample = installed / "timelineview" / "resources" / "sample_cluster"
    stats = _run(installed, tmp_path, "-m", "timelineview", "stats", str(sample), "--json", "--quiet")
    assert stats.returncode == 0, stats.stderr
    assert [card["card"] for card in json.loads(stats.stdout)["cards"]] == ["rank 0", "rank 1", "rank 2", "rank 3"]
