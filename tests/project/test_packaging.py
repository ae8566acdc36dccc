"""Project-level guards: the PySide6 pin, and Qt never imported below the views."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[2]


def _pyside_requirements() -> list[str]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return [d for d in deps if d.lower().startswith("pyside6")]


def test_pyside_pin_excludes_6_12_0_before_python_3_12():
    """6.12.0 decrements None's refcount on every QPainter call on Python < 3.12 (tech-notes §4.4)."""
    from packaging.markers import Marker
    from packaging.requirements import Requirement

    for py in ("3.10", "3.11"):
        reqs = [Requirement(r) for r in _pyside_requirements()]
        active = [r for r in reqs if r.marker is None or Marker(str(r.marker)).evaluate({"python_version": py})]
        assert active, py
        assert all("6.12.0" not in r.specifier for r in active), py
    if sys.version_info < (3, 12):
        assert version("PySide6-Essentials") != "6.12.0"


def test_model_and_analysis_import_without_qt():
    code = ("import sys, timelineview.model, timelineview.analysis.summary, timelineview.cli; "
            "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'shiboken6'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


def test_no_qt_import_in_model_or_analysis_sources():
    for folder in ("model", "analysis"):
        for f in (ROOT / "timelineview" / folder).rglob("*.py"):
            text = f.read_text()
            assert "PySide6" not in text and "pyqtgraph" not in text, f
