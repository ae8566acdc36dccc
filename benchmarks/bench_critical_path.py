"""Critical path and what-if: counterfactual table over sizes and problems, and the time of 1024 cards x 20 steps.

Cards are built in memory from the generator's schedule (the same times the files would hold, true clock,
no transfers: the slow-link rows need files, written and loaded in the second table, also on a pipeline of
stages and on 1F1B pipelines), so the timing is the analysis's.
Run: python benchmarks/bench_critical_path.py [--big-cards 1024 --big-steps 20]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from timelineview.analysis.critical_path.cluster_graph import session_graph
from timelineview.analysis.critical_path.document import analyse_critical_path
from timelineview.analysis.critical_path.graph import build_graph
from timelineview.analysis.critical_path.inputs import CardTimeline, empty_transfers
from timelineview.analysis.critical_path.op_types import OpTypeTable
from timelineview.analysis.critical_path.what_if import (
    CARD_AT_MEDIAN,
    DATA_WAIT_AT_MEDIAN,
    LINK_AT_MEDIAN,
    Change,
    predict,
)
from timelineview.analysis.intervals import union
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster
from timelineview.synthetic.names import POOL
from timelineview.synthetic.schedule import build_schedule, card_steps
from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND

P2P_NAME = {KIND_SEND: "hcom_send", KIND_RECEIVE: "hcom_receive"}
P2P_PEER = {KIND_SEND: 1, KIND_RECEIVE: -1}


def timelines(specs) -> tuple[list[CardTimeline], list[str]]:
    sched = build_schedule(specs)
    types = OpTypeTable()
    out = []
    for card, spec in enumerate(specs):
        cs, ce, kinds, os_, oe, names, peers, ss, se = [], [], [], [], [], [], [], [], []
        for st in card_steps(spec, sched, card):
            m = ~st.other
            cs.append(st.item_start[m])
            ce.append(st.item_start[m] + st.item_dur[m])
            kinds.append(st.kind[m])
            os_.append(st.op_start)
            oe.append(st.op_end)
            names += [P2P_NAME.get(kind, f"op{j}") for j, kind in enumerate(st.op_kind)]
            # a stage sends to the next rank and receives from the one before (as the files' tasks say); a
            # 1F1B stage both ways, as its schedule says
            if st.op_peer is not None:
                peers += [int(p) if kind in P2P_PEER else -1 for kind, p in zip(st.op_kind, st.op_peer, strict=True)]
            else:
                peers += [spec.rank + P2P_PEER[kind] if kind in P2P_PEER else -1 for kind in st.op_kind]
            ss.append(st.start)
            se.append(st.end)
        u = union(np.concatenate(cs), np.concatenate(ce))
        step_type = np.zeros((len(ss), len(POOL.mean_ns)))
        step_count = np.zeros(step_type.shape, np.int64)
        for k, (a, b, kind) in enumerate(zip(cs, ce, kinds, strict=True)):
            np.add.at(step_type[k], kind, (b - a).astype(np.float64))
            np.add.at(step_count[k], kind, 1)
        for kind in range(len(POOL.mean_ns)):
            types.id_of(f"type{kind}")
        out.append(CardTimeline(
            f"rank {spec.rank}", spec.rank, 0, np.arange(1, len(ss) + 1), np.array(ss), np.array(se),
            u.starts, u.ends, step_type, np.concatenate(os_), np.concatenate(oe), names, empty_transfers(),
            np.array(peers, np.int64) if spec.pipeline_stages else None, step_count))
    return out, types.names


def counterfactual_row(cards: int, problem: str, steps: int = 5, tasks: int = 200, stages: bool = False,
                       micro: int = 0) -> str:
    base = {"seed": 11, "steps": steps, "tasks_per_step": tasks}
    if stages:  # a pipeline of stages: rank r receives from r - 1 and sends to r + 1
        base.update(pipeline=True, pipeline_stages=True, microbatches=micro)
    extra, change = {
        "slow_card": ({"slow_card": 1, "slow_factor": 1.3}, Change(CARD_AT_MEDIAN, "rank 1")),
        "data_wait": ({"slow_data_card": 1, "slow_data_us": 3000.0}, Change(DATA_WAIT_AT_MEDIAN, "rank 1")),
    }[problem]
    bad = build_graph(*timelines(cluster_specs(cards, **base, **extra)))
    good = build_graph(*timelines(cluster_specs(cards, **base)))
    w = predict(bad, change)
    truth = float(good.step_ns.mean()) / 1000
    gain = w.step_us_now - truth
    err = abs(w.step_us_predicted - truth)
    ok = err <= max(0.005 * truth, 0.2 * gain)
    if stages:
        problem = f"{problem}/{f'1f1b x{micro}' if micro else 'stages'}"
    return (f"{cards:>6} {problem:>22} {w.step_us_now:>10.1f} {truth:>10.1f} {w.step_us_predicted:>10.1f} "
            f"{gain:>9.1f} {w.gain_us:>9.1f} {err:>8.1f} {'ok' if ok else 'MISS':>5}")


def one_f_one_b_sweep(seeds: int, steps: int = 4, tasks: int = 160) -> None:
    """Per 1F1B size, over ``seeds`` seeds (a different slow stage each): how many slow-card what-ifs meet their
    counterfactual and the largest share of the tolerance one uses."""
    print(f"\n{'stages':>6} {'micro':>5} {'cases':>5} {'ok':>4} {'worst share of tolerance':>25}")
    for stages in (4, 8, 16):
        for micro in (2, 3, 4):
            used = []
            for seed in range(1, seeds + 1):
                slow = (7 * seed + stages) % stages
                base = {"seed": seed, "steps": steps, "tasks_per_step": tasks, "pipeline": True,
                        "pipeline_stages": True, "microbatches": micro}
                bad = build_graph(*timelines(cluster_specs(stages, **base, slow_card=slow, slow_factor=1.3)))
                good = build_graph(*timelines(cluster_specs(stages, **base)))
                w = predict(bad, Change(CARD_AT_MEDIAN, f"rank {slow}"))
                truth = float(good.step_ns.mean()) / 1000
                used.append(abs(w.step_us_predicted - truth) / max(0.005 * truth, 0.2 * (w.step_us_now - truth)))
            print(f"{stages:>6} {micro:>5} {len(used):>5} {sum(u <= 1 for u in used):>4} {max(used):>25.2f}",
                  flush=True)


FILE_LAYOUTS = ("msprof", "msprof_per_iteration", "mindspore_gen_c")
FILE_PROBLEMS = {
    "slow_card": ({"slow_card": 1, "slow_factor": 1.3}, Change(CARD_AT_MEDIAN, "rank 1")),
    "slow_link": ({"slow_link": (2, 3), "slow_link_factor": 3.0, "slow_link_delays": True},
                  Change(LINK_AT_MEDIAN, "2-3")),
    "data_wait": ({"slow_data_card": 1, "slow_data_us": 3000.0}, Change(DATA_WAIT_AT_MEDIAN, "rank 1")),
}


def file_graph(root: Path, layout: str, specs):
    """Write the cluster in ``layout``, load it and build its graph (None: the layout gives no graph)."""
    generate_cluster(root, specs, layout, options=WriteOptions(step_trace=layout == "msprof"))
    return session_graph(AnalysisSession(load(root)))


FILE_PROBLEMS["slow_backward_link"] = ({"slow_link": (3, 2), "slow_link_factor": 3.0, "slow_link_delays": True},
                                       Change(LINK_AT_MEDIAN, "3-2"))
STAGES = {"pipeline": True, "pipeline_stages": True}  # rank r receives from r - 1 and sends to r + 1
# (layout, base, problems): every layout on the plain cluster; the pipeline of stages in msprof (its slow
# link slows its own pair of stages and the collectives over the link, not every pair); 1F1B pipelines
# (forward sends to the next stage, backward sends to the previous one) of 2 and 4 microbatches
ONE_F_ONE_B = ("slow_card", "slow_link", "slow_backward_link")
FILE_CASES = [(layout, {}, ("slow_card", "slow_link", "data_wait")) for layout in FILE_LAYOUTS] + \
    [("msprof", STAGES, ("slow_link",))] + \
    [("msprof", {**STAGES, "microbatches": m}, ONE_F_ONE_B) for m in (2, 4)]


def file_rows(cards: int, steps: int = 4, tasks: int = 160) -> None:
    """The counterfactual table on written and loaded clusters, per layout and problem."""
    with tempfile.TemporaryDirectory() as tmp:
        for layout, extra_base, problems in FILE_CASES:
            base = {"seed": 13, "steps": steps, "tasks_per_step": tasks, **extra_base}
            micro = extra_base.get("microbatches", 0)
            label = f"{layout}/{f'1f1b x{micro}' if micro else 'stages'}" if extra_base else layout
            good = file_graph(Path(tmp) / f"{label}_good", layout, cluster_specs(cards, **base))
            for problem in problems:
                extra, change = FILE_PROBLEMS[problem]
                bad = file_graph(Path(tmp) / f"{label}_{problem}", layout, cluster_specs(cards, **base, **extra))
                if bad is None or good is None:
                    print(f"{cards:>6} {label:>22} {problem:>18}  no graph (no steps or collectives)")
                    continue
                if change.kind == LINK_AT_MEDIAN and not len(bad.links.dur):
                    print(f"{cards:>6} {label:>22} {problem:>18}  n/a: the layout writes no link tasks")
                    continue
                w = predict(bad, change)
                truth = float(good.step_ns.mean()) / 1000
                gain = w.step_us_now - truth
                err = abs(w.step_us_predicted - truth)
                ok = err <= max(0.005 * truth, 0.2 * gain)
                print(f"{cards:>6} {label:>22} {problem:>18} {w.step_us_now:>10.1f} {truth:>10.1f} "
                      f"{w.step_us_predicted:>10.1f} {gain:>9.1f} {w.gain_us:>9.1f} {err:>8.1f} "
                      f"{'ok' if ok else 'MISS':>5}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--big-cards", type=int, default=1024)
    ap.add_argument("--big-steps", type=int, default=20)
    ap.add_argument("--sizes", default="8,64,256")
    ap.add_argument("--stage-sizes", default="4,8,16", help="stages of the 1F1B pipelines")
    ap.add_argument("--seeds", type=int, default=6, help="seeds of the 1F1B slow-card sweep (0: none)")
    ap.add_argument("--file-cards", type=int, default=8, help="cards of the written clusters (0: none)")
    args = ap.parse_args()
    print(f"{'cards':>6} {'problem':>22} {'now_us':>10} {'true_us':>10} {'pred_us':>10} {'gain':>9} "
          f"{'pred_gain':>9} {'err_us':>8} {'check':>5}")
    for n in (int(x) for x in args.sizes.split(",")):
        for stages in (False, True):
            for problem in ("slow_card", "data_wait"):
                print(counterfactual_row(n, problem, stages=stages), flush=True)
    for n in (int(x) for x in args.stage_sizes.split(",")):
        for micro in (2, 4):
            for problem in ("slow_card", "data_wait"):
                print(counterfactual_row(n, problem, stages=True, micro=micro), flush=True)
    if args.seeds:
        one_f_one_b_sweep(args.seeds)
    if args.file_cards:
        print(f"\n{'cards':>6} {'layout':>22} {'problem':>18} {'now_us':>10} {'true_us':>10} {'pred_us':>10} "
              f"{'gain':>9} {'pred_gain':>9} {'err_us':>8} {'check':>5}")
        file_rows(args.file_cards)
    for stages in (False, True):
        extra = {"pipeline": True, "pipeline_stages": True} if stages else {}
        specs = cluster_specs(args.big_cards, seed=3, steps=args.big_steps, tasks_per_step=100, slow_card=7,
                              slow_factor=1.3, **extra)
        cards, names = timelines(specs)
        t0 = time.perf_counter()
        g = build_graph(cards, names)
        t1 = time.perf_counter()
        result = analyse_critical_path(g, [Change(CARD_AT_MEDIAN, "rank 7")])
        t2 = time.perf_counter()
        tasks = len(specs) * args.big_steps * specs[0].tasks_per_step
        print(f"\n{args.big_cards} cards x {args.big_steps} steps ({tasks} compute tasks"
              f"{', a pipeline of stages' if stages else ''}): graph {t1 - t0:.2f} s, "
              f"paths + {len(result.what_if)} what-ifs {t2 - t1:.2f} s, total {t2 - t0:.2f} s")


if __name__ == "__main__":
    main()
