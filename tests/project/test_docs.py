"""The README stands alone: it cites no internal document, names the system packages
Qt needs, has exactly the two set-up commands, and the definitions it points to ship in the project."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from timelineview.analysis.findings.rules import RULES
from timelineview.views.platform_check import XCB_LIBRARIES

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_cites_only_files_of_the_project():
    assert "../shared" not in README
    for target in re.findall(r"\]\(([^)#]+)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target
    assert (ROOT / "docs" / "metrics.md").exists()


def test_readme_names_the_system_packages_qt_needs():
    for package in XCB_LIBRARIES.values():
        if package.startswith("libxcb-") and package != "libxcb1":
            assert package in README, package


def test_readme_has_the_two_set_up_commands():
    blocks = re.findall(r"```\n(.*?)```", README, re.S)
    commands = [b.strip() for b in blocks if b.strip().startswith("python3 -m venv")]
    assert len(commands) == 2
    assert commands[0].endswith(".venv/bin/timelineview")
    assert 'pip install -e ".[api]"' in commands[0]  # the Query tab's SQL engine: every tab works
    assert 'pip install -e ".[test]"' in commands[1] and commands[1].endswith("-m pytest -n auto")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "-m pytest -n auto " in ci and 'install -q -e ".[test]"' in ci  # CI runs the README's command


@pytest.mark.parametrize("command", [[], ["stats"], ["diff"], ["summarize"]])
def test_help_texts_cite_no_internal_document(command):
    out = subprocess.run([sys.executable, "-m", "timelineview", *command, "--help"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert not re.search(r"metrics\.md §|issue \d|\.\./shared|tech-notes", out.stdout), out.stdout


def test_the_code_cites_only_what_a_reader_of_the_repository_has():
    """No issue numbers (the tracker is not in the repository) and no documents but those of ``docs/``."""
    root = ROOT
    issue = re.compile(r"\b[Ii]ssues? #?\d+")
    document = re.compile(r"(?<![\w/.-])((?:docs/)?[\w-]+\.md)\b")
    for folder in ("timelineview", "benchmarks", "tests"):
        for path in (root / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert not issue.search(text), (path, issue.search(text).group())
            assert "../shared" not in text or folder == "tests", path  # tests find the samples there, or skip
            for name in document.findall(text):
                cited = root / name if name.startswith("docs/") else root / "docs" / name
                assert cited.exists() or (root / name).exists(), (path, name)


def test_every_rule_has_a_row_in_the_rule_table_of_the_docs():
    """The findings' rule table in docs/metrics.md lists every rule the package fires, and no other."""
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    table = text.split("| rule | fires when |", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \|", table, re.M)
    assert sorted(rows) == sorted(rule.name for rule in RULES)
