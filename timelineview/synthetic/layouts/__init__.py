"""One writer class per producer layout, looked up by layout name."""

from timelineview.synthetic.layouts.mindspore import GenBWriter, GenCWriter
from timelineview.synthetic.layouts.msprof import MsprofWriter, ObjectWriter
from timelineview.synthetic.layouts.per_iteration import PerIterationWriter

WRITERS = {
    "msprof": MsprofWriter,
    "object": ObjectWriter,
    "msprof_per_iteration": PerIterationWriter,
    "mindspore_gen_c": GenCWriter,
    "mindspore_gen_b": GenBWriter,
}
