"""What the user opens: the file and folder dialogs, dropped files, the bundled sample, and which job a
path opens with (a summary folder is read, traces are loaded)."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtGui, QtWidgets

from timelineview.analysis.summaries.summary_session import looks_like_summary
from timelineview.model.captures import separate_captures

TRACE_FILTER = "Traces (*.json *.json.gz *.db);;All files (*)"
NO_SAMPLE = ("The sample cluster (resources/sample_cluster) is not installed. Open a trace with File ▸ Open "
             "(Ctrl+O) or drop one here.")


def ask_files(parent: QtWidgets.QWidget, start: str) -> list[Path]:
    paths, _ = QtWidgets.QFileDialog.getOpenFileNames(parent, "Open trace files", start, TRACE_FILTER)
    return [Path(p) for p in paths]


def ask_folder(parent: QtWidgets.QWidget, start: str) -> list[Path]:
    path = QtWidgets.QFileDialog.getExistingDirectory(parent, "Open a profiler folder", start)
    return [Path(path)] if path else []


def dropped_paths(ev: QtGui.QDropEvent) -> list[Path]:
    return [Path(u.toLocalFile()) for u in ev.mimeData().urls() if u.isLocalFile()]


def summary_folder(paths: list[Path]) -> Path | None:
    """The summary folder ``paths`` name (metrics.md §10), or None when they are traces to load."""
    return Path(paths[0]) if len(paths) == 1 and looks_like_summary(paths[0]) else None


def separate_captures_of(paths: list[Path]) -> list[Path]:
    """The captures of the one folder ``paths`` name when it holds several of the same cards, else []."""
    return separate_captures(paths[0]) if len(paths) == 1 and Path(paths[0]).is_dir() else []


def sample_path() -> Path | None:
    """The bundled sample cluster (what the app shows when started without a path), or None."""
    from timelineview.views.resources import sample_cluster_path

    return sample_cluster_path()
