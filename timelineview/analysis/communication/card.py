"""One card's communication analysis, and a cluster's: the entry points of the package."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.classify import Classification, classify
from timelineview.analysis.communication.bandwidth import OperatorBandwidth, operator_bandwidth
from timelineview.analysis.communication.links import Links, card_links, cluster_links, local_links, slow_links
from timelineview.analysis.communication.main_plane import MainPlaneTotals, main_plane_totals
from timelineview.analysis.communication.operators import CommOps, OpTotals, by_name, by_step, comm_ops, totals
from timelineview.analysis.communication.plane_tasks import PlaneTasks, plane_tasks
from timelineview.analysis.communication.waits import CollectiveWaits, collective_waits
from timelineview.analysis.steps import StepWindow
from timelineview.model.store.trace_store import TraceStore


@dataclass
class CardCommunication:
    """Plane tasks, operators and links of one card."""

    card: str
    rank: int | None
    tasks: PlaneTasks
    ops: CommOps
    task_op: np.ndarray  # int64 per plane task: its operator row, -1 for none
    links: Links
    local_links: Links | None = None  # the producer's LOCAL links (None: not known, e.g. a summary)
    bandwidth: OperatorBandwidth | None = None  # the producer's per-operator bandwidth (None: not known)

    @property
    def totals(self) -> OpTotals:
        return totals(self.ops)

    @property
    def main_totals(self) -> MainPlaneTotals | None:
        """The producer's figures summed over the operators that have a main plane (None: not known)."""
        return main_plane_totals(self.ops.main) if self.ops.main is not None else None

    def by_name(self) -> dict[str, OpTotals]:
        return by_name(self.ops)

    def by_step(self) -> dict[int, OpTotals]:
        return by_step(self.ops)


@dataclass
class ClusterCommunication:
    """The cards' links joined (each from its sender), the slow ones, and the collective waits."""

    links: Links
    slow: np.ndarray  # bool per link
    waits: CollectiveWaits

    @property
    def slow_keys(self) -> list[str]:
        """``"src-dst"`` of the slow links, each once, in link order."""
        keys = [self.links.key(i) for i in np.flatnonzero(self.slow).tolist()]
        return list(dict.fromkeys(keys))


def analyse_card(store: TraceStore, classification: Classification | None = None,
                 steps: list[StepWindow] | None = None) -> CardCommunication | None:
    """The §6 analysis of one card, or None when it has no plane tasks."""
    cls = classification if classification is not None else classify(store)
    tasks = plane_tasks(store, cls)
    if not len(tasks):
        return None
    ops, task_op = comm_ops(store, cls, tasks, steps)
    return CardCommunication(store.card, store.rank, tasks, ops, task_op, card_links(tasks), local_links(tasks),
                             operator_bandwidth(tasks, task_op))


def analyse_cluster(cards: list[CardCommunication | None], median_step_us: float = 0.0) -> ClusterCommunication:
    """Cluster links, slow links and collective waits over the cards that have plane tasks; who the others
    wait for is judged with ``median_step_us``, the cluster's median step time (0: unknown)."""
    present = [c for c in cards if c is not None]
    links = cluster_links([c.links for c in present], [c.rank for c in present])
    waits = collective_waits([c.card for c in present], [c.ops for c in present], median_step_us)
    return ClusterCommunication(links, slow_links(links), waits)
