"""Write one card's trace in a chosen layout and return its ground truth."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from timelineview.synthetic.layouts import WRITERS
from timelineview.synthetic.schedule import Schedule, build_schedule, card_steps
from timelineview.synthetic.spec import LAYOUTS, MSPROF_LAYOUT, PER_ITERATION_LAYOUT, CardSpec, WriteOptions
from timelineview.synthetic.truth import GroundTruth
from timelineview.synthetic.truth_builder import TruthBuilder
from timelineview.synthetic.writer import Sink

_PROBE_SMALL, _PROBE_LARGE = 200, 1600
MIN_TASKS = 8


def write_card(root: Path | None, relpath: str, spec: CardSpec, layout: str, opts: WriteOptions,
               sched: Schedule, card: int, n_cards: int) -> GroundTruth:
    """Write card number ``card`` of ``sched`` under ``root`` (``None``: only count bytes)."""
    if layout not in WRITERS:
        raise ValueError(f"unknown layout {layout!r}; choose one of {LAYOUTS}")
    spec.validate()
    opts.validate(layout)
    t0 = time.perf_counter()
    sink = Sink(root)
    truth = TruthBuilder(layout, spec.rank, spec.device)
    writer = WRITERS[layout](spec, opts, sink, truth, relpath, n_cards)
    for st in card_steps(spec, sched, card):
        if st.index == 1:
            writer.begin(st)
        writer.write_step(st, last=st.index == spec.steps)
    meta = writer.finish()
    slow = f"{spec.slow_link[0]}-{spec.slow_link[1]}" if spec.slow_link and spec.slow_link_factor != 1 else ""
    return truth.finish(spec_clock_offset_ns=spec.clock_offset_ns, bytes_written=sink.bytes,
                        seconds=time.perf_counter() - t0, slow_link=slow, **meta)


def generate_card(path: str | Path, spec: CardSpec | None = None, layout: str = MSPROF_LAYOUT, *,
                  target_bytes: int | None = None, options: WriteOptions | None = None) -> GroundTruth:
    """Write a single card to ``path`` and return its ground truth.

    ``path`` is the trace file, except for ``msprof_per_iteration`` where it is the folder that
    receives ``PROF_*/device_<d>/``. With ``target_bytes`` the number of tasks per step (and, for
    tiny targets, of steps) is chosen so the output is about that size.
    """
    spec = spec or CardSpec()
    opts = options or WriteOptions()
    if target_bytes:
        spec = fit_to_size([spec], layout, opts, target_bytes)[0]
    path = Path(path)
    root, rel = (path, "") if layout == PER_ITERATION_LAYOUT else (path.parent, path.name)
    return write_card(root, rel, spec, layout, opts, build_schedule([spec]), 0, 1)


def measure_bytes(spec: CardSpec, layout: str, opts: WriteOptions, n_cards: int = 1) -> int:
    """Bytes a card would take, without writing anything."""
    rel = "" if layout == PER_ITERATION_LAYOUT else "probe.json"
    truth = write_card(None, rel, spec, layout, opts, build_schedule([spec]), 0, n_cards)
    return truth.bytes_written


def fit_to_size(specs: Sequence[CardSpec], layout: str, opts: WriteOptions, target_bytes: int,
                n_cards: int | None = None) -> list[CardSpec]:
    """Specs with ``tasks_per_step`` (same on every card) chosen so one card is ~``target_bytes``.

    Bytes grow linearly with tasks and steps, so three small dry runs (counted, not written)
    give the per-file, per-step and per-task costs.
    """
    n_cards = n_cards or len(specs)
    probe = replace(specs[0], steps=1, tasks_per_step=_PROBE_SMALL)
    b11 = measure_bytes(probe, layout, opts, n_cards)
    b21 = measure_bytes(replace(probe, tasks_per_step=_PROBE_LARGE), layout, opts, n_cards)
    b12 = measure_bytes(replace(probe, steps=2), layout, opts, n_cards)
    per_task = (b21 - b11) / (_PROBE_LARGE - _PROBE_SMALL)
    per_step = (b12 - b11) - per_task * _PROBE_SMALL
    per_file = b11 - per_step - per_task * _PROBE_SMALL
    steps = specs[0].steps
    tasks = (target_bytes - per_file - steps * per_step) / (steps * per_task)
    if tasks < MIN_TASKS:
        tasks = MIN_TASKS
        steps = max(1, int((target_bytes - per_file) / (per_step + MIN_TASKS * per_task)))
    return [replace(s, steps=steps, tasks_per_step=int(round(tasks))) for s in specs]
