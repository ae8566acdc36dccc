"""Every quantity timelineview reports, declared once: JSON, SQL, the text tables, the window and the docs
take their keys, labels, units and definitions from here (docs/metrics.md §5, vocabulary)."""

from __future__ import annotations

from timelineview.analysis.vocabulary.quantity import (
    AS_METRIC,
    BYTES,
    CATEGORY,
    COUNT,
    GIGABYTES_PER_SECOND,
    INDEX,
    MEGABYTES,
    MICROSECONDS,
    NANOSECONDS,
    RATIO,
    SHARE,
    TFLOPS,
    Z_SCORE,
    Quantity,
)

US, NS, MB = MICROSECONDS, NANOSECONDS, MEGABYTES
CLOCK = "ns on the card's own clock since the Unix epoch, as its slices carry them"

WINDOW = (  # §2: over a window, the whole card or one step
    Quantity("span_us", "Span", US, "length of the window: the whole card's first start to last end, or the step",
             section="§2"),
    Quantity("compute_us", "Compute", US, "|U(compute)|: time some device compute task runs (AI Core / AI Vector / "
             "AI CPU tasks on Ascend, GPU kernels other than NCCL's on a GPU)",
             section="§2"),
    Quantity("communication_us", "Communication", US, "|U(communication)|: time some communication operator runs",
             section="§2"),
    Quantity("overlapped_us", "Overlapped", US, "time compute and communication run at once", section="§2"),
    Quantity("pure_communication_us", "Pure communication", US, "communication that no computation hides",
             section="§2"),
    Quantity("free_us", "Free", US, "time inside the Stage (first task start to last task end) where neither "
             "compute nor communication runs", producer="Free", section="§3"),
    Quantity("window_free_us", "Window free", US, "time in the whole window where neither compute nor "
             "communication runs, the step interval included", section="§3"),
    Quantity("uncaptured_us", "Not captured", US, "time between two files of a per-iteration export: no file "
             "captured it, so it is in no window's free time", section="§3"),
    Quantity("overlap_ratio", "Overlap ratio", RATIO, "overlapped / communication; null without communication",
             section="§2"),
    Quantity("idle_gap_count", "Idle gaps", COUNT, "holes between consecutive compute tasks, at least the minimum "
             "gap long (1 µs unless told)", section="§2"),
    Quantity("idle_gap_total_us", "Idle gap time", US, "total length of the idle gaps", section="§2"),
    Quantity("idle_gap_max_us", "Longest idle gap", US, "the longest idle gap", section="§2"),
    Quantity("idle_gap_communication_us", "Idle gaps under communication", US, "the part of the idle gaps some "
             "communication covers: the card waits on communication", section="§2"),
    Quantity("idle_gap_free_us", "Idle gaps with nothing running", US, "the part of the idle gaps nothing covers: "
             "data wait or host-bound dispatch", section="§2"),
)

CARD = (  # §4, §5: one card
    Quantity("start_ns", "Start", NS, f"the start of the row's card, step, operator or evidence span, {CLOCK}",
             section="§5"),
    Quantity("end_ns", "End", NS, f"the end of the row's step or evidence span, {CLOCK}", section="§5"),
    Quantity("events", "Events", COUNT, "the card's slices after merging its files and dropping exact duplicates",
             section="§5"),
    Quantity("lanes", "Lanes", COUNT, "lanes that hold slices", section="§5"),
    Quantity("rank", "Rank", INDEX, "its rank; null when unknown", section="§5"),
    Quantity("step", "Step", INDEX, "the step's number; null for the whole run", section="§3"),
    Quantity("steps", "Steps", COUNT, "how many steps: those a slow-card flag judged, or a card's in a diff",
             section="§4"),
    Quantity("cards", "Cards", COUNT, "the cards: how many ran an operator (operators_across_cards), those a finding "
             "names (findings; empty: a step slow for the whole job)", section="§7"),
    Quantity("dropped_events", "Dropped events", COUNT, "events of the card's files that could not be read",
             section="§5"),
    Quantity("duplicates_dropped", "Duplicates dropped", COUNT, "exact duplicate slices dropped (same pid, tid, "
             "ts, dur, name)", section="§5"),
    Quantity("overlapping_slices", "Overlapping slices", COUNT, "slices of one lane that overlap without nesting "
             "(drawn on extra rows)", section="§5"),
    Quantity("open_slices", "Open slices", COUNT, "B events never closed (drawn to the end of the trace)",
             section="§5"),
    Quantity("truncated_offset", "Readable up to", BYTES, "the byte where readable data ends in a file cut short; "
             "null otherwise", section="§5"),
    Quantity("clock_offset_us", "Clock offset", US, "subtracted from the card's times to align it with the "
             "first card (a card whose clock runs ahead has a positive offset)", section="§4"),
)

STEP = (  # §3: one step
    Quantity("dur_us", "Duration", US, "the step window's length", section="§3"),
    Quantity("step_time_us", "Step time", US, "length of the step window (mean over steps for a card)",
             section="§3"),
    Quantity("stage_us", "Stage", US, "first task start to last task end inside the step", producer="Stage",
             section="§3"),
    Quantity("step_interval_us", "Step interval", US, "waiting for data: step start to the first compute (fp)",
             producer="Preparing", section="§3"),
    Quantity("free_after_interval_us", "Free after the step interval", US, "free time from fp to the step's end: "
             "the step window's free time without its step interval", section="§3"),
    Quantity("free_outside_idle_gaps_us", "Free outside whole idle gaps", US, "free time in no whole idle gap of "
             "the window: before its first or after its last compute, in a gap the window's edges cut, or in a gap "
             "under the minimum", section="§2"),
    Quantity("fp_bp_us", "Forward/backward", US, "forward and backward: fp to bp", section="§3"),
    Quantity("tail_us", "Tail", US, "gradient synchronisation and update: bp to the step's end", section="§3"),
)

PIPELINE = (  # §4: pipeline parallelism
    Quantity("pipeline_stage_us", "Pipeline stage", US, "step time minus receive-only communication (not the "
             "producer's Stage, which is the busy part of the step; not what pipeline_stage_imbalance judges: a "
             "stage's compute)", section="§4"),
    Quantity("receive_only_us", "Receive only", US, "time spent only receiving from the previous pipeline stage",
             section="§4"),
    Quantity("other_pure_communication_us", "Other pure communication", US, "pure communication that is not "
             "receive-only", section="§4"),
)

COMMUNICATION = (  # §6: communication operators and links
    Quantity("elapse_us", "Elapse", US, "the communication operator's duration", producer="Elapse Time",
             section="§6"),
    Quantity("transit_us", "Transit", US, "time moving data, on the main plane (the lowest plane holding a wait) "
             "for an operator; the transfer tasks' total for a link", producer="Transit Time", section="§6"),
    Quantity("wait_us", "Wait", US, "time waiting on the main plane, transfers excluded", producer="Wait Time",
             section="§6"),
    Quantity("synchronization_us", "Synchronization", US, "the wait before the first transfer, on the main plane",
             producer="Synchronization Time", section="§6"),
    Quantity("idle_us", "Idle", US, "elapse minus transit and wait, on the main plane", producer="Idle Time",
             section="§6"),
    Quantity("wait_ratio", "Wait ratio", RATIO, "wait / (wait + transit)", producer="Wait Ratio", section="§6"),
    Quantity("bytes", "Bytes", BYTES, "bytes moved by the link's transfer tasks", section="§6"),
    Quantity("count", "Count", COUNT, "how many: slices of an operator, task type or op type, transfers of a link",
             section="§6"),
    Quantity("bandwidth_gbps", "Bandwidth", GIGABYTES_PER_SECOND, "bytes / transit (10⁹ bytes per second)",
             section="§6"),
    Quantity("src", "Source rank", INDEX, "the sending rank (a LOCAL link: the card's own)", section="§6"),
    Quantity("dst", "Destination rank", INDEX, "the receiving rank (a LOCAL link: the same rank)", section="§6"),
    Quantity("plane", "Plane", INDEX, "N of the operator's main Plane N (the lowest plane holding a wait), where the "
             "producer measures it; null, and its figures too, when it has no wait task", section="§6"),
    Quantity("communication_operators", "Operators", COUNT, "the card's communication operators (each plane task "
             "belongs to the one that contains its start)", section="§6"),
    Quantity("measured_operators", "Measured operators", COUNT, "the card's operators that have the producer's "
             "figures (a main plane): its transit, wait, synchronization and idle are summed over these",
             section="§6"),
    Quantity("large_packet_ratio", "Large packet ratio", RATIO, "the transport's large transfers over its transfers",
             producer="Large Packet Ratio", section="§6"),
    Quantity("size_bytes", "Transfer size", BYTES, "the size of one transfer: a row of the producer's size "
             "distribution", section="§6"),
    Quantity("bandwidth_cost_us", "Bandwidth cost", US, "transit the change of bandwidth alone adds at the base "
             "run's bytes (negative: saves)", section="§9"),
)

ALL_PLANES = (  # §6: the unions over every plane, not the producer's figures
    Quantity("all_planes_transit_us", "All-planes transit", US, "time moving data: the union of the operator's "
             "transfer tasks over every plane", section="§6"),
    Quantity("all_planes_wait_us", "All-planes wait", US, "Notify_Wait tasks under no transfer, over every plane "
             "(the producer counts most of this time as Idle)", section="§6"),
    Quantity("all_planes_synchronization_us", "All-planes synchronization", US, "the part of the all-planes wait "
             "before the first transfer", section="§6"),
    Quantity("all_planes_idle_us", "All-planes idle", US, "neither transfer nor wait on any plane", section="§6"),
    Quantity("all_planes_wait_ratio", "All-planes wait ratio", RATIO, "all-planes wait / (all-planes wait + "
             "all-planes transit)", section="§6"),
)

OPERATORS = (  # §7: operators and task types
    Quantity("total_us", "Total", US, "total duration of the group's tasks", section="§7"),
    Quantity("mean_us", "Mean", US, "mean duration", section="§7"),
    Quantity("min_us", "Min", US, "shortest duration", section="§7"),
    Quantity("max_us", "Max", US, "longest duration", section="§7"),
    Quantity("share", "Share", SHARE, "the group's total over the card's compute total", section="§7"),
    Quantity("mean_total_us", "Mean total", US, "an operator's (a name's, an op type's, a shape's) total per card, "
             "mean over the cards: 0 where it is absent; a shape beyond a card's top rows is left out",
             section="§7"),
    Quantity("min_total_us", "Min total", US, "an operator's smallest total on a card (0: a card never runs it)",
             section="§7"),
    Quantity("max_total_us", "Max total", US, "an operator's largest total on a card", section="§7"),
)

KERNELS = (  # §7.1: op types and input shapes
    Quantity("tasks", "Tasks", COUNT, "how many tasks: the card's compute tasks (op types), an operator's plane "
             "tasks (the window's Communication tab)", section="§7.1"),
    Quantity("described", "Described tasks", COUNT, "the compute tasks whose op type the source gave",
             section="§7.1"),
    Quantity("tflops", "TFLOPS", TFLOPS, "achieved: flops / total time, 10¹² per second", section="§7.1"),
    Quantity("peak_tflops", "Peak TFLOPS", TFLOPS, "the chip's peak (from the device the source names, or as "
             "told)", section="§7.1"),
    Quantity("us_per_step", "Time per step", US, "an op type's total on the slow card over its steps",
             section="§7.1"),
    Quantity("median_us_per_step", "Other cards' time per step", US, "the median over the other cards of the op "
             "type's time per step (0 on a card that never runs it)", section="§7.1"),
    Quantity("excess_us_per_step", "Excess per step", US, "time per step − the other cards' median",
             section="§7.1"),
    Quantity("share_of_excess", "Share of the excess", SHARE, "the op type's part of the sum of the positive "
             "excesses", section="§7.1"),
    Quantity("flops_per_step", "FLOPs per step", COUNT, "a pipeline stage member's FLOPs per step: the mean over "
             "its steps of each step's flops", section="§7.1"),
    Quantity("p50_us", "Median", US, "median duration of the group's tasks (numpy's linear percentile)",
             section="§7.1"),
    Quantity("p90_us", "p90", US, "90th percentile of the durations of the group's tasks (numpy's "
             "linear percentile)", section="§7.1"),
    Quantity("flops", "FLOPs", COUNT, "floating-point operations from the tasks' shapes (matrix products, "
             "convolutions, attention): a task's, or the sum over a group's or a step's tasks (those starting in "
             "it); null: a type no formula counts", section="§7.1"),
    Quantity("mfu", "MFU", RATIO, "achieved TFLOPS / the chip's peak (a step: its FLOPs / (step time × peak)); "
             "null without a known peak", section="§7.1"),
)

COSTS = (  # §12: critical path and what-if
    Quantity("step_us", "Path step time", US, "the step's time on its dependency graph (the cards' median step "
             "window): the critical path's segments tile it and their shares are of it", section="§12"),
    Quantity("dispatch_gap_us", "Dispatch gaps", US, "of a compute block on the critical path: the time in it "
             "the card computed nothing (the block's length minus its compute_us)", section="§12"),
    Quantity("factor", "Factor", RATIO, "what a what-if multiplies its target's time by", section="§12"),
    Quantity("step_us_now", "Step time now", US, "the replay's mean step time as captured", section="§12"),
    Quantity("step_us_predicted", "Predicted step time", US, "the replay's mean step time with the change",
             section="§12"),
    Quantity("steps_on_critical_path", "Steps on the path", COUNT, "in how many steps a finding's card, link or "
             "data wait is on the critical path", section="§12"),
    Quantity("steps_priced", "Steps priced", COUNT, "of how many steps: those the critical path covers",
             section="§12"),
    Quantity("gain_us", "Gain", US, "mean step time the change would save: now − predicted (negative: it would "
             "cost)", section="§12"),
)

MEMORY = (  # §11: memory (MB = 2^20 bytes, as the producer writes it)
    Quantity("peak_allocated_mb", "Peak allocated", MB, "the most allocated at once", section="§11"),
    Quantity("peak_reserved_mb", "Peak reserved", MB, "the most reserved at once", section="§11"),
    Quantity("peak_active_mb", "Peak active", MB, "the most active at once", section="§11"),
    Quantity("reserved_at_peak_mb", "Reserved at peak", MB, "reserved at the allocated peak", section="§11"),
    Quantity("unallocated_at_peak_mb", "Unallocated at peak", MB, "reserved but not allocated at the allocated "
             "peak", section="§11"),
    Quantity("size_mb", "Size", MB, "the allocation's size", section="§11"),
    Quantity("live_at_peak_mb", "Alive at peak", MB, "total size of the allocations alive at the allocated peak",
             section="§11"),
    Quantity("memory_peak_allocated_mb", "Peak allocated memory", MB, "the card's allocated peak (of the component the "
             "peak is judged on)", section="§9"),
    Quantity("memory_peak_reserved_mb", "Peak reserved memory", MB, "the card's reserved peak", section="§9"),
    Quantity("peak_allocated_at_ns", "Peak allocated at", NS, f"when the allocated peak happened, {CLOCK}",
             section="§11"),
    Quantity("peak_reserved_at_ns", "Peak reserved at", NS, f"when the reserved peak happened, {CLOCK}",
             section="§11"),
    Quantity("allocated_at_ns", "Allocated at", NS, f"when the allocation was made, {CLOCK}", section="§11"),
    Quantity("released_at_ns", "Released at", NS, f"when it was released, {CLOCK}; null when never",
             section="§11"),
    Quantity("allocations", "Allocations", COUNT, "how many allocation records were read", section="§11"),
    Quantity("live_at_peak_count", "Allocations alive at peak", COUNT, "how many allocations were alive at the "
             "allocated peak", section="§11"),
    Quantity("rows_read", "Rows read", COUNT, "memory rows read", section="§11"),
    Quantity("dropped_rows", "Dropped rows", COUNT, "memory rows that could not be read, counted by reason",
             section="§11"),
    Quantity("peak_at_ns", "Peak at", NS, f"when a driver module's reserved peak happened, {CLOCK}", section="§11"),
    Quantity("live_at_peak_at_ns", "Peak at", NS, f"the allocated peak the live allocations are taken at, {CLOCK}",
             section="§11"),
)

VERDICTS = (  # §4, §8: a slow-card flag, a memory flag, a finding
    Quantity("value", "Value", AS_METRIC, "the figure judged: the metric of the card, link or step named",
             section="§4"),
    Quantity("reference", "Reference", AS_METRIC, "what a finding's value is judged against", section="§8"),
    Quantity("median", "Cards' median", AS_METRIC, "the cards' median of the metric", section="§4"),
    Quantity("threshold", "Threshold", AS_METRIC, "median + max(practical size, z_N × σ): what a flagged value "
             "passes", section="§4"),
    Quantity("z", "z", Z_SCORE, "(value − median) / σ, σ = 1.4826 × the MAD; null when σ is 0", section="§4"),
    Quantity("z_required", "z required", Z_SCORE, "the z a value must pass among N compared: z_N", section="§4"),
    Quantity("steps_above", "Steps above", COUNT, "the flagged card's steps above the threshold", section="§4"),
)

DIFF = (  # §9: two runs
    Quantity("ratio", "New / base", RATIO, "a framework operator's device time, new / base; null when the base "
             "gave none", section="§13"),
    Quantity("base_total_us", "Base total", US, "an operator's total in the base run, over matched cards",
             section="§9"),
    Quantity("new_total_us", "New total", US, "an operator's total in the new run, over matched cards",
             section="§9"),
    Quantity("delta_us", "Change", US, "new total − base total", section="§9"),
    Quantity("base_device_us", "Base device time", US, "device time of the work a framework operator launched "
             "(inclusive: the kernels of the operators it calls) in the base run, over matched cards", section="§13"),
    Quantity("new_device_us", "New device time", US, "device time of the work a framework operator launched "
             "(inclusive: the kernels of the operators it calls) in the new run, over matched cards", section="§13"),
    Quantity("base_count", "Base count", COUNT, "its slices in the base run", section="§9"),
    Quantity("new_count", "New count", COUNT, "its slices in the new run", section="§9"),
    Quantity("status", "Status", CATEGORY, "where a name is. changed: in both runs, another total or count; "
             "unchanged: in both runs, the same total and count; added: only in the new run; removed: only in the "
             "base run", section="§9"),
    Quantity("computation_us", "Computation", US, "a run's mean step as compare breaks it down: time some compute "
             "task or kernel runs (the step window's compute_us)", section="§13"),
    Quantity("host_launch_overhead_us", "Host launch overhead", US, "the part of free time the device waited for "
             "the host: free intervals that end where device work starts that was launched after they began",
             section="§13"),
)

# a declared quantity measured another way, said by a prefix of its key: prefix -> (label suffix, how); none
# today: the unions over every plane are quantities of their own (ALL_PLANES), their definitions not the
# producer's main-plane ones with a suffix
QUALIFIERS: dict[str, tuple[str, str]] = {}

QUANTITIES: tuple[Quantity, ...] = (*WINDOW, *CARD, *STEP, *PIPELINE, *COMMUNICATION, *ALL_PLANES, *OPERATORS, *KERNELS,
                                    *COSTS, *MEMORY, *VERDICTS, *DIFF)
