"""The package works from a wheel, outside any checkout: its version, its help, and the bundled sample the
window opens without a path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHEEL_SOURCES = ("pyproject.toml", "README.md", "LICENSE", "timelineview")  # what the wheel is built from


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The project built as a wheel and installed (not editable) into a folder of its own."""
    out = tmp_path_factory.mktemp("wheel")
    # built from a copy: a build writes into its source folder (build/, *.egg-info), and the suite's parallel
    # workers each build this module's fixture, which collided in one checkout
    source = out / "source"
    source.mkdir()
    for name in WHEEL_SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out / "dist"),
                            str(source)], capture_output=True, text=True, timeout=600)
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
    for command in ("stats", "diff", "summarize", "query", "sample", "docs"):
        assert f"timelineview {command}" in usage.stdout
    shot = _run(installed, tmp_path, "-m", "timelineview", "--screenshot", str(tmp_path / "sample.png"),
                "--size", "800x500")
    assert shot.returncode == 0, shot.stderr
    assert (tmp_path / "sample.png").stat().st_size > 10_000
    found = _run(installed, tmp_path, "-m", "timelineview", "sample")  # the sample, from the command line
    assert found.returncode == 0, found.stderr
    sample = Path(found.stdout.strip())
    assert sample == installed / "timelineview" / "resources" / "sample_cluster"
    for name in ("metrics", "sql"):  # the documents the help texts point to
        doc = _run(installed, tmp_path, "-m", "timelineview", "docs", name)
        assert doc.returncode == 0, doc.stderr
        assert Path(doc.stdout.strip()) == installed / "timelineview" / "resources" / "docs" / f"{name}.md"
        assert Path(doc.stdout.strip()).read_text(encoding="utf-8") == (ROOT / "docs" / f"{name}.md").read_text(
            encoding="utf-8")
    stats = _run(installed, tmp_path, "-m", "timelineview", "stats", str(sample), "--json", "--quiet")
    assert stats.returncode == 0, stats.stderr
    assert [card["card"] for card in json.loads(stats.stdout)["cards"]] == ["rank 0", "rank 1", "rank 2", "rank 3"]


def test_outside_a_checkout_the_api_and_query_work(installed, tmp_path):
    """``timelineview.open()`` and ``timelineview query`` from the installed copy, on its bundled sample (the
    ``[api]`` extra's packages are those of this environment)."""
    pytest.importorskip("duckdb")
    pytest.importorskip("pandas")
    sample = installed / "timelineview" / "resources" / "sample_cluster"
    code = (f"import timelineview, json; run = timelineview.open({str(sample)!r}, cache=False); "
            "print(json.dumps([timelineview.__file__, [c.card for c in run.cards], int(len(run.slices()))]))")
    opened = _run(installed, tmp_path, "-c", code)
    assert opened.returncode == 0, opened.stderr
    where, cards, slices = json.loads(opened.stdout.strip().splitlines()[-1])
    assert where == str(installed / "timelineview" / "__init__.py")
    assert cards == ["rank 0", "rank 1", "rank 2", "rank 3"] and slices > 0
    query = _run(installed, tmp_path, "-m", "timelineview", "query", str(sample), "select count(*) as n from slices",
                 "--json", "--no-cache")
    assert query.returncode == 0, query.stderr
    assert json.loads(query.stdout) == [{"n": slices}]

