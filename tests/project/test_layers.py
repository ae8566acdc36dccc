"""The tree's structural rules: small folders, layers that import only what lies below them, and no
module reaching into another's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import timelineview

PACKAGE = Path(timelineview.__file__).parent
MAX_MODULES = 16  # modules of one folder (its package marker and entry point not counted)
NOT_COUNTED = {"__init__.py", "__main__.py"}


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import of a file, at any level of its text ("import a.b": ("a.b", []))."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
    return found


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def test_no_folder_holds_more_than_sixteen_modules():
    counts = {}
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
        n = sum(1 for p in folder.glob("*.py") if p.name not in NOT_COUNTED)
        counts[folder.relative_to(PACKAGE.parent).as_posix()] = n
    assert counts["timelineview/model/decode"] > 0
    assert {f: n for f, n in counts.items() if n > MAX_MODULES} == {}


def test_the_store_does_not_depend_on_discovery():
    """A card store is made from files and bytes; how the files were found is the loader's business."""
    for path in _modules("model/store"):
        for module, _ in _imports(path):
            assert not module.startswith("timelineview.model.discovery"), path


def test_the_analysis_reads_args_through_the_store():
    """The analysis layer asks the store (``TraceStore.args_many``, ``args_many_as``): it neither decodes
    trace bytes itself nor uses the store's private reader."""
    for path in _modules("analysis"):
        for module, _ in _imports(path):
            assert not module.startswith("timelineview.model.decode"), (path, module)
        assert "._args_reader" not in path.read_text(encoding="utf-8"), path


def test_no_module_imports_private_names_of_another():
    """A helper two modules share is made public in a module of its own, not imported as ``_name``."""
    found = []
    for path in _modules("."):
        for module, names in _imports(path):
            if module.startswith("timelineview"):
                found += [f"{path.relative_to(PACKAGE)}: {module}.{n}" for n in names
                          if n.startswith("_") and not n.startswith("__")]
    assert found == []
