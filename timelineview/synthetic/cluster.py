"""Multi-card folders: N ranks sharing one schedule, with planted anomalies.

Files and folders are named as the producers name them (their modules' names, which discovery reads them
by); the real-sample tests check those against real files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import orjson

from timelineview.producers import mindspore, torch_npu
from timelineview.synthetic.generate import fit_to_size, write_card
from timelineview.synthetic.schedule import build_schedule
from timelineview.synthetic.spec import (
    GEN_B_LAYOUT,
    GEN_C_LAYOUT,
    MSPROF_LAYOUT,
    OBJECT_LAYOUT,
    PER_ITERATION_LAYOUT,
    CardSpec,
    WriteOptions,
)
from timelineview.synthetic.truth import GroundTruth

STRUCTURES = ("auto", "rank_dirs")


def cluster_specs(cards: int, *, seed: int = 0, steps: int = 10, streams: int = 2, tasks_per_step: int = 400,
                  data_wait_us: float = 2000.0, slow_card: int | None = None, slow_factor: float = 1.6,
                  slow_data_card: int | None = None, slow_data_us: float = 20000.0,
                  clock_skew_us: float = 500.0, pipeline: bool = False, with_duplicates: bool = False,
                  with_overlaps: bool = False, planes: int = 4, slow_link: tuple[int, int] | None = None,
                  slow_link_factor: float = 1.0, step_stall_share: float = 0.0,
                  host_bubble_share: float = 0.0, slow_link_delays: bool = False,
                  pipeline_stages: bool = False, microbatches: int = 0) -> list[CardSpec]:
    """Specs for ranks 0..cards-1: one slow card (the one the others wait for), one slow data
    pipeline, one slow link (src, dst), random clock offsets; with ``pipeline_stages`` the ranks are the
    successive stages of one pipeline (``CardSpec.pipeline_stages``), with ``microbatches`` a 1F1B one;
    shared data-loader hiccups and per-card
    host bubbles that move step markers (``CardSpec.step_stall_share``, ``host_bubble_share``).

    Rank 0 keeps offset 0; the others get a whole-ns offset uniform in +-``clock_skew_us``.
    """
    rng = np.random.default_rng([seed, 99])
    offsets = (rng.uniform(-clock_skew_us, clock_skew_us, cards) * 1000).astype(np.int64)
    offsets[0] = 0
    specs = []
    for r in range(cards):
        specs.append(CardSpec(
            seed=seed, rank=r, steps=steps, streams=streams, tasks_per_step=tasks_per_step,
            compute_scale=slow_factor if r == slow_card else 1.0,
            data_wait_us=slow_data_us if r == slow_data_card else data_wait_us,
            clock_offset_ns=int(offsets[r]), pipeline=pipeline, with_duplicates=with_duplicates,
            with_overlaps=with_overlaps, planes=planes, slow_link=slow_link, slow_link_factor=slow_link_factor,
            step_stall_share=step_stall_share, host_bubble_share=host_bubble_share,
            slow_link_delays=slow_link_delays, pipeline_stages=pipeline_stages, microbatches=microbatches))
    return specs


def card_relpath(layout: str, rank: int, structure: str = "auto") -> str:
    """Where a rank's trace goes inside the cluster folder (per-iteration: its PROF_* parent)."""
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {STRUCTURES}")
    mindspore_file = mindspore.ASCEND_FILE_NAME.format(rank)
    if structure == "rank_dirs":
        name = {PER_ITERATION_LAYOUT: "", GEN_C_LAYOUT: mindspore_file,
                GEN_B_LAYOUT: mindspore_file}.get(layout, torch_npu.TRACE_FILE)
        return f"rank_{rank}/{name}".rstrip("/")
    if layout in (MSPROF_LAYOUT, OBJECT_LAYOUT):
        return f"{_run_folder(rank)}/{torch_npu.OUTPUT_FOLDER}/{torch_npu.TRACE_FILE}"
    if layout == PER_ITERATION_LAYOUT:
        return ""
    return mindspore_file


def _run_folder(rank: int) -> str:
    """torch_npu's folder of one rank's run (``<worker>_ascend_pt``, the worker named by its rank)."""
    return f"rank{rank}{torch_npu.RUN_FOLDER_SUFFIX}"


def generate_cluster(out_dir: str | Path, specs: Sequence[CardSpec], layout: str = MSPROF_LAYOUT, *,
                     target_bytes: int | None = None, options: WriteOptions | None = None,
                     structure: str = "auto", cluster_seed: int | None = None,
                     progress: Callable[[GroundTruth], None] | None = None) -> list[GroundTruth]:
    """Write every card of ``specs`` under ``out_dir``; ``target_bytes`` is per card.

    Collectives are synchronised across cards (same name and order everywhere, same true end),
    so ``GroundTruth.clock_offset_ns`` of each card is recoverable from the files.
    """
    out = Path(out_dir)
    opts = options or WriteOptions()
    specs = list(specs)
    if len({s.rank for s in specs}) != len(specs):
        raise ValueError("ranks must be distinct")
    if target_bytes:
        specs = fit_to_size(specs, layout, opts, target_bytes)
    sched = build_schedule(specs, cluster_seed)
    truths = []
    for card, spec in enumerate(specs):
        rel = card_relpath(layout, spec.rank, structure)
        truth = write_card(out, rel, spec, layout, opts, sched, card, len(specs))
        if layout in (MSPROF_LAYOUT, OBJECT_LAYOUT) and structure == "auto":
            _profiler_info(out / _run_folder(spec.rank), spec, truth)
        truths.append(truth)
        if progress is not None:
            progress(truth)
    return truths


def _profiler_info(folder: Path, spec: CardSpec, truth: GroundTruth) -> None:
    """torch_npu's ``profiler_info_<rank>.json`` (rank id and clock anchors)."""
    start_ns = int(truth.step_start_ns[0]) if len(truth.step_start_ns) else 0
    end_ns = int(truth.step_end_ns[-1]) if len(truth.step_end_ns) else 0
    info = {
        "config": {"common_config": {"activities": ["CPU", "NPU"], "record_shapes": False},
                   "experimental_config": {"profiler_level": "Level1", "aic_metrics": "PipeUtilization"}},
        "start_info": {"syscnt_enable": False, "freq": 100, "start_cnt": start_ns // 10,
                       "start_monotonic": start_ns - truth.time_base_ns},
        "end_info": {"collectionTimeEnd": end_ns // 1000, "MonotonicTimeEnd": end_ns - truth.time_base_ns},
        "torch_npu_version": "2.1.0", "rank_id": spec.rank,
    }
    (folder / torch_npu.PROFILER_INFO_NAME.format(spec.rank)).write_bytes(orjson.dumps(info))
