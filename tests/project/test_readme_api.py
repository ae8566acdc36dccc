"""The README's "From Python and SQL" section: every example in it runs as written (the Python blocks in one
namespace, in order; the shell blocks from the checkout's root)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## From Python and SQL"

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")


def section_blocks() -> list[tuple[str, str]]:
    """(language, code) of each fenced block of the section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(\w+)\n(.*?)```", body, re.S)


def test_the_section_has_examples():
    languages = [lang for lang, _ in section_blocks()]
    assert languages.count("python") >= 2 and "sh" in languages


def test_python_examples_run(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    namespace: dict = {}
    for lang, code in section_blocks():
        if lang == "python":
            exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - the README's own examples
    out = capsys.readouterr().out
    assert "('rank 0', 0)" in out and "rule" in out


def test_shell_examples_run(tmp_path):
    for lang, code in section_blocks():
        if lang != "sh":
            continue
        command = code.replace("\\\n", " ").strip()
        assert command.startswith("timelineview ")
        command = f"{sys.executable} -m {command}"
        out = subprocess.run(command, shell=True, capture_output=True, text=True, cwd=ROOT, timeout=180,
                             env={"TIMELINEVIEW_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[0].split() == ["card", "slices", "busy_ms"] and lines[-1] == "(4 rows)"
