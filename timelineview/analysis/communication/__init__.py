"""Communication inside collectives (metrics.md §6): per operator, per link, slow links, waits.

No Qt. ``analyse_card`` reads a card's HCCL plane tasks (their args in one pass over the file)
and measures each communication operator and each link; ``analyse_cluster`` joins the cards'
links, flags the slow ones and lines up each card's wait per collective. ``main_plane`` gives each
operator the producer's own figures, measured on its main plane (the headline figures of the
document; the unions over every plane are its ``all_planes``), ``bandwidth`` the producer's
bandwidth per transport with its packet sizes, and ``links.local_links`` its LOCAL links.
``document`` turns them into the ``stats --json`` fields and their text tables.
"""

from timelineview.analysis.communication.card import (
    CardCommunication,
    ClusterCommunication,
    analyse_card,
    analyse_cluster,
)
from timelineview.analysis.communication.links import Links, slow_links
from timelineview.analysis.communication.main_plane import MainPlane, MainPlaneTotals
from timelineview.analysis.communication.operators import CommOps, OpTotals
from timelineview.analysis.communication.plane_tasks import PlaneTasks
from timelineview.analysis.communication.waits import CollectiveWaits

__all__ = [
    "CardCommunication", "ClusterCommunication", "CollectiveWaits", "CommOps", "Links", "MainPlane",
    "MainPlaneTotals", "OpTotals", "PlaneTasks", "analyse_card", "analyse_cluster", "slow_links",
]
