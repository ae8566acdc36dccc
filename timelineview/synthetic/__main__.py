"""``python -m timelineview.synthetic OUT ...``: write a synthetic card or cluster and report speed."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from timelineview.synthetic.cluster import STRUCTURES, cluster_specs, generate_cluster
from timelineview.synthetic.generate import generate_card
from timelineview.synthetic.spec import LAYOUTS, MSPROF_LAYOUT, TASK_TYPES, WriteOptions
from timelineview.synthetic.truth import GroundTruth


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m timelineview.synthetic",
                                description="Write synthetic Ascend profiler traces with ground truth.")
    p.add_argument("out", help="trace file (1 card) or cluster folder; per-iteration: a folder")
    p.add_argument("--layout", choices=LAYOUTS, default=MSPROF_LAYOUT)
    p.add_argument("--cards", type=int, default=1)
    p.add_argument("--target-mb", type=float, help="approximate size of each card's output, MB (1e6 bytes)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--streams", type=int, default=2)
    p.add_argument("--tasks-per-step", type=int, default=400, help="ignored with --target-mb")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--slow-card", type=int, help="rank whose compute is slower")
    p.add_argument("--slow-factor", type=float, default=1.6)
    p.add_argument("--slow-link", type=_link, metavar="SRC-DST", help="ranks of a link that moves data slowly")
    p.add_argument("--slow-link-factor", type=float, default=3.0, help="that link's bandwidth is divided by this")
    p.add_argument("--slow-data-card", type=int, help="rank with a slow data pipeline")
    p.add_argument("--slow-data-us", type=float, default=20000.0)
    p.add_argument("--data-wait-us", type=float, default=2000.0)
    p.add_argument("--clock-skew-us", type=float, default=500.0, help="max |clock offset| of ranks > 0")
    p.add_argument("--pipeline", action="store_true", help="add the pipeline's receive and send operators")
    p.add_argument("--pipeline-stages", action="store_true",
                   help="with --pipeline: the ranks are successive stages (rank r receives from rank r-1)")
    p.add_argument("--microbatches", type=int, default=0,
                   help="with --pipeline-stages: a one-forward-one-backward pipeline of N microbatches per step")
    p.add_argument("--duplicates", action="store_true", help="write some X events twice")
    p.add_argument("--overlaps", action="store_true", help="add a lane of partially overlapping slices")
    p.add_argument("--be-events", action="store_true")
    p.add_argument("--instants", action="store_true")
    p.add_argument("--step-trace", action="store_true", help=f"{MSPROF_LAYOUT} layouts: add the step-trace thread")
    p.add_argument("--pretty", action="store_true")
    p.add_argument("--task-types", choices=TASK_TYPES, default="real",
                   help='"other": every hardware task typed "Other" (CANN 7 / torch_npu 2024), msprof layouts')
    p.add_argument("--structure", choices=STRUCTURES, default="auto")
    p.add_argument("--no-truth", action="store_true", help="do not save the ground truth JSON")
    return p


def _link(text: str) -> tuple[int, int]:
    """``"2-3"`` -> (2, 3)."""
    try:
        src, dst = (int(x) for x in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected SRC-DST ranks, e.g. 2-3, not {text!r}") from None
    return src, dst


def _report(truth: GroundTruth) -> None:
    mb = truth.bytes_written / 1e6
    speed = mb / truth.seconds if truth.seconds else 0.0
    where = truth.paths[0] if len(truth.paths) == 1 else f"{len(truth.paths)} files"
    print(f"rank {truth.rank}: {mb:9.1f} MB  {truth.x_events:>10} X  {len(truth.step_start_ns)} steps  "
          f"{truth.seconds:6.2f} s  {speed:6.1f} MB/s  offset {truth.clock_offset_ns / 1000:+.3f} us  "
          f"{where}",
          flush=True)


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    out = Path(a.out)
    opts = WriteOptions(pretty=a.pretty, be_events=a.be_events, instants=a.instants, step_trace=a.step_trace,
                        task_types=a.task_types)
    specs = cluster_specs(a.cards, seed=a.seed, steps=a.steps, streams=a.streams,
                          tasks_per_step=a.tasks_per_step,
                          data_wait_us=a.data_wait_us, slow_card=a.slow_card, slow_factor=a.slow_factor,
                          slow_data_card=a.slow_data_card, slow_data_us=a.slow_data_us,
                          clock_skew_us=a.clock_skew_us,
                          pipeline=a.pipeline or a.pipeline_stages or a.microbatches > 0,
                          pipeline_stages=a.pipeline_stages or a.microbatches > 0, microbatches=a.microbatches,
                          with_duplicates=a.duplicates,
                          with_overlaps=a.overlaps, slow_link=a.slow_link,
                          slow_link_factor=a.slow_link_factor if a.slow_link else 1.0)
    target = int(a.target_mb * 1e6) if a.target_mb else None
    t0 = time.perf_counter()
    if a.cards == 1:
        truths = [generate_card(out, specs[0], a.layout, target_bytes=target, options=opts)]
        _report(truths[0])
    else:
        truths = generate_cluster(out, specs, a.layout, target_bytes=target, options=opts,
                                  structure=a.structure, progress=_report)
    elapsed = time.perf_counter() - t0
    total = sum(t.bytes_written for t in truths) / 1e6
    print(f"total: {total:.1f} MB in {elapsed:.2f} s ({total / elapsed:.1f} MB/s incl. sizing), "
          f"layout {a.layout}, tasks/step {_tasks(truths)}")
    if not a.no_truth:
        for t in truths:
            path = _truth_path(out, a.cards, t.rank)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(t.to_json())
        where = _truth_path(out, a.cards, 0)
        print(f"ground truth: {where if a.cards == 1 else where.parent}")
    return 0


def _truth_path(out: Path, cards: int, rank: int) -> Path:
    """Next to the output, never inside a cluster folder (a loader would pick it up)."""
    if cards == 1:
        return out.with_name(out.name + ".truth.json")
    return out.with_name(out.name + ".truth") / f"rank_{rank}.json"


def _tasks(truths: list[GroundTruth]) -> int:
    return int((truths[0].category == 0).sum() // max(len(truths[0].step_start_ns), 1))


if __name__ == "__main__":
    sys.exit(main())
