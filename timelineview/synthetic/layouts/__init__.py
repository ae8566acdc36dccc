"""One writer class per producer layout, looked up by layout name."""

from timelineview.synthetic.layouts.mindspore import GenBWriter, GenCWriter
from timelineview.synthetic.layouts.msprof import MsprofWriter, ObjectWriter
from timelineview.synthetic.layouts.per_iteration import PerIterationWriter
from timelineview.synthetic.spec import GEN_B_LAYOUT, GEN_C_LAYOUT, MSPROF_LAYOUT, OBJECT_LAYOUT, PER_ITERATION_LAYOUT

WRITERS = {
    MSPROF_LAYOUT: MsprofWriter,
    OBJECT_LAYOUT: ObjectWriter,
    PER_ITERATION_LAYOUT: PerIterationWriter,
    GEN_C_LAYOUT: GenCWriter,
    GEN_B_LAYOUT: GenBWriter,
}
