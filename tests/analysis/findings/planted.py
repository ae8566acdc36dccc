"""Cards built step by step with one problem planted, for the findings tests (times in µs)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..factory import COMM, HW, HW2, Sl, build_store

PY = "Python/Thread 1"
HOST = "CANN/Thread 2"
US = 1000  # ns per µs
T0 = 1_000_000_000


@dataclass
class StepShape:
    """One step: data wait, ``ops`` compute tasks of ``op_us`` with ``gap_us`` holes, then an all-reduce
    of ``comm_us`` that starts when compute ends, then ``tail_pad_us`` to the end of the step."""

    interval_us: int = 50
    ops: int = 10
    op_us: int = 100
    gap_us: int = 0
    comm_us: int = 100
    tail_pad_us: int = 20
    aicpu_ops: int = 0  # of the ops, how many are AI_CPU tasks (the last ones)
    comm_name: str = "hcom_allReduce__{k}_0_1"
    sync_us: list[int] = field(default_factory=list)  # host synchronisation calls during the step


def card(shapes: list[StepShape], label: str = "rank 0", rank: int = 0) -> object:
    """A card whose step k has the shape ``shapes[k]`` (absolute ns, steps back to back)."""
    slices = []
    t = T0
    for k, sh in enumerate(shapes):
        start = t
        c = t + sh.interval_us * US
        for j in range(sh.ops):
            aicpu = j >= sh.ops - sh.aicpu_ops
            name = "DropOutDoMask" if aicpu else f"op{j % 3}"
            slices.append(Sl(HW if j % 2 == 0 else HW2, name, c, sh.op_us * US, "AI_CPU" if aicpu else "AI_CORE"))
            c += (sh.op_us + sh.gap_us) * US
        c -= sh.gap_us * US
        slices.append(Sl(COMM, sh.comm_name.format(k=k), c, sh.comm_us * US))
        h = start + sh.interval_us * US
        for d in sh.sync_us:
            slices.append(Sl(HOST, "aclrtSynchronizeDevice", h, d * US))
            h += (d + 5) * US
        end = c + (sh.comm_us + sh.tail_pad_us) * US
        slices.append(Sl(PY, f"ProfilerStep#{k + 1}", start, end - start))
        t = end
    return build_store(slices, card=label, rank=rank, paths=(f"{label}.json",))
