"""The rule table of the findings: what each rule looks at, its thresholds and its advice, as data.

A rule's ``advice`` is a template filled from the finding (``{card}``, ``{value}``,
``{reference}``, ``{link}`` …), in the words a performance engineer uses. ``method`` says which step
of the tuning method the rule belongs to, so the Diagnosis panel can walk the method in order.

``kind`` says what a finding of the rule is: an ``ANOMALY`` names a card, a link or a step that
stands out from its peers (with the multiple-comparison correction of metrics.md §4, so about 1 % of
healthy runs name anything); a ``WHERE_TIME_GOES`` finding describes the whole job's time (a share
of the step above a threshold), true of many healthy jobs: it says where to look for a speed-up, not
that something is broken. Findings list anomalies first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from timelineview.producers.msprof import FREQUENCY_RULE

HIGH, MEDIUM, LOW = "high", "medium", "low"
SEVERITY_ORDER = {HIGH: 0, MEDIUM: 1, LOW: 2}
ANOMALY, WHERE_TIME_GOES = "anomaly", "where the time goes"
KIND_ORDER = {ANOMALY: 0, WHERE_TIME_GOES: 1}

# The steps of the tuning method, in the order a user walks them.
METHOD_CLUSTER = "Cluster: slow card, slow link, parallel strategy"
METHOD_STEP_INTERVAL = "Step interval: the data pipeline"
METHOD_FORWARD_BACKWARD = "Forward/backward: operators and dispatch"
METHOD_TAIL = "Tail: gradient aggregation"
METHOD_ORDER = (METHOD_CLUSTER, METHOD_STEP_INTERVAL, METHOD_FORWARD_BACKWARD, METHOD_TAIL)


@dataclass(frozen=True)
class Rule:
    """One rule: when it fires (in words and thresholds), how bad, and what to do."""

    name: str
    severity: str
    method: str
    when: str
    advice: str
    thresholds: Mapping[str, float] = field(default_factory=dict)
    kind: str = WHERE_TIME_GOES  # ANOMALY or WHERE_TIME_GOES


RULES: tuple[Rule, ...] = (
    Rule("slow_data", HIGH, METHOD_CLUSTER,
         "a card flagged slow on its step interval (metrics.md §4)",
         "{card} waits {value} per step for its input data (median over its steps) against {reference} for "
         "the median card{how_sure}. Look at that card's data pipeline: the host-side queue, the GetNext "
         "operator, the data processing workers and the host it runs on.", kind=ANOMALY),
    Rule("slow_compute", HIGH, METHOD_CLUSTER,
         "a card flagged slow on compute (metrics.md §4)",
         "{card} is a slow node: it computes {value} per step (median over its steps) against {reference} "
         "for the median card{how_sure}, and every other card waits for it in the collectives. Compare its "
         "forward/backward and its top operators with a healthy card (frequency, temperature, a different "
         "operator choice).", kind=ANOMALY),
    Rule("slow_link", HIGH, METHOD_CLUSTER,
         "a link whose bandwidth is below the median of its transport by the rule of metrics.md §6",
         "The link {link} ({transport}, {link_type}) moves data at {value} against {reference} for its "
         "peers. Check that link: cabling, the network interface, routing or congestion on the switch.",
         kind=ANOMALY),
    Rule("data_bound", HIGH, METHOD_STEP_INTERVAL,
         "mean step interval ≥ 10 % of the mean step time, on a single card or on every card",
         "Where the time goes: "
         "each step waits {value} for data ({share} of the step; the threshold is {reference}). Data "
         "processing or the host-to-device transfer cannot keep up: more data workers, prefetching, "
         "data sinking, or lighter preprocessing.",
         {"share_of_step": 0.10}),
    Rule("pipeline_stage_imbalance", MEDIUM, METHOD_CLUSTER,
         "with pipeline parallelism, one stage's compute per step is ≥ 10 % above the median of the other stages'",
         "The pipeline stage on {card} computes {value} per step against {reference} for the median of the other "
         "stages (compute, what a stage itself costs: its waits in sends, receives and collectives are the "
         "pipeline's; its stage time, step − receive-only, is {stage_time}): rebalance the layers across the "
         "stages.",
         {"excess_over_others": 0.10}, kind=ANOMALY),
    Rule("flops_imbalance", MEDIUM, METHOD_CLUSTER,
         "with pipeline parallelism, the stage with the most FLOPs per step has ≥ 10 % more than the one with the "
         "fewest (metrics.md §7.1)",
         "The pipeline stage on {card} computes {value} per step against {reference} on {fewest}: the layers "
         "split the work unevenly across the stages. Move layers (or their share of the model) from this stage "
         "to the lighter ones so that every stage computes about the same.",
         {"excess_over_fewest": 0.10}, kind=ANOMALY),
    Rule("pure_communication_high", MEDIUM, METHOD_CLUSTER,
         "pure communication ≥ 20 % of the step time",
         "Where the time goes: {value} per step is communication that no computation hides ({share} of the step; the "
         "threshold is {reference}). The parallel strategy inserts communication nothing overlaps: "
         "overlap it with computation, fuse or bucket the gradients, or change the split.",
         {"share_of_step": 0.20}),
    Rule("long_tail", MEDIUM, METHOD_TAIL,
         "mean tail ≥ 20 % of the step time on most cards, and no card is slow",
         "Where the time goes: "
         "the tail after the last backward operator takes {value} per step ({share} of the step; the "
         "threshold is {reference}): gradient aggregation. Check the AllReduce fusion configuration "
         "(fusion buckets, their sizes) so that communication starts during the backward pass.",
         {"share_of_step": 0.20, "share_of_cards": 0.5}),
    Rule("host_bound", MEDIUM, METHOD_FORWARD_BACKWARD,
         "idle AI Core gaps with nothing running ≥ 10 % of forward/backward (of the whole window in a "
         "trace without step markers)",
         "Where the time goes: "
         "the AI Cores stand idle with nothing running for {value} per step ({share} of forward/backward; "
         "the threshold is {reference}). The device waits for operator dispatch from the host: many "
         "small operators, synchronisations, or a busy host.",
         {"share_of_fp_bp": 0.10}),
    Rule("aicpu_heavy", MEDIUM, METHOD_FORWARD_BACKWARD,
         "AI CPU tasks ≥ 10 % of compute",
         "Where the time goes: "
         "AI CPU tasks take {value} ({share} of compute; the threshold is {reference}); the top one is "
         "{operator}. These operators fell back to the AI CPU: change their data types or shapes, or "
         "use an AI Core implementation.",
         {"share_of_compute": 0.10}),
    Rule("device_sync", MEDIUM, METHOD_FORWARD_BACKWARD,
         "device or stream synchronisation calls on the host hold ≥ 5 % of the step time",
         "Where the time goes: "
         "{count} synchronisation calls ({names}) hold the host for {value} ({share} of the step time; "
         "the threshold is {reference}). Each one drains the device queue: remove the ones that only "
         "read back values (printing a loss, .item(), tensor-to-host copies) from the training loop.",
         {"share_of_step": 0.05}),
    Rule("small_operators", LOW, METHOD_FORWARD_BACKWARD,
         "≥ 20 % of compute operators are followed by free time (nothing runs) longer than themselves",
         "Where the time goes: "
         "{share} of the operators are followed by an idle gap longer than the operator itself (the "
         "threshold is {reference}): the device runs faster than the host dispatches. Fuse small "
         "operators, use graph mode or operator fusion, or enlarge the work per operator.",
         {"share_of_operators": 0.20, "gap_over_duration": 1.0}),
    Rule("collective_size", LOW, METHOD_CLUSTER,
         "≥ 10 % of a card's transfer tasks move a size that is not a multiple of 512 bytes",
         "Where the time goes: "
         "{count} transfers ({share}, {value} in all; the threshold is {reference}) move sizes that are "
         "not multiples of 512 bytes. The copy engines move 512-byte blocks: pad the tensors or the "
         "fusion buckets of these collectives to a multiple of 512 bytes.",
         {"share_of_transfers": 0.10}),
    Rule("slow_step", LOW, METHOD_STEP_INTERVAL,
         "a step at least twice the median step on the cluster's median over cards (with at least 3 steps) "
         "whose robust z-score passes z_N for the N steps (a step of the job), or one card's step at least "
         "twice the cluster's median of that step, boundary shifts netted, past z_N for N = cards × steps "
         "(metrics.md §4)",
         "Step {step} takes {value} on {card} against {reference} for {peers}{how_sure}.{where} A first step "
         "is often slow (compilation, warm-up); a slow step later points at a hiccup: data, host, or a "
         "checkpoint.",
         {"min_step_ratio": 2.0, "min_steps": 3}, kind=ANOMALY),
)

# What the trace shows that the producer's advisor checks (metrics.md §7.1, §8); evaluated by
# ``findings.advisor_rules`` from each card's advisor facts (``analysis.advisor``).
ADVISOR_RULES: tuple[Rule, ...] = (
    Rule("slow_operator", MEDIUM, METHOD_CLUSTER,
         "an op type, or an (op type, input shapes), whose mean task time on one card stands above the other "
         "cards' by the rule of metrics.md §4 (z_N for N = op types × cards, 5 % and 1 % of the step as "
         "practical floor), once the card's common factor over its op types is divided out, and in at least "
         "half of the steps in which the card runs it",
         "{operator} runs slower on {card}: {value} per step against {reference} at the other cards' pace{how_sure}. "
         "Its mean task takes {mean} there against a median of {median_mean} over the cards{factor}.{shapes} Compare "
         "it with a healthy card's: its input shapes and formats, its block dim and PMU figures, the kernel chosen "
         "for it, and that card's AI Core frequency.", kind=ANOMALY),
    Rule(FREQUENCY_RULE, MEDIUM, METHOD_FORWARD_BACKWARD,
         "the AI Core Freq counter reads below the nominal frequency for ≥ 5 % of the steps' time",
         "Where the time goes: the AI Cores ran below their nominal {nominal} for {value} ({share} of the steps' "
         "time; the threshold is {reference}), down to {lowest}; the nominal figure is {nominal_source}. Every "
         "operator runs slower while the frequency is down: check the card's temperature and power draw and its "
         "power-saving settings.",
         {"share_of_step": 0.05}),
    Rule("dynamic_shapes", LOW, METHOD_FORWARD_BACKWARD,
         "tasks whose OP State is dynamic hold ≥ 10 % of compute",
         "Where the time goes: {count} of {tasks} tasks ({share} of compute, {value}; the threshold is {reference}) "
         "run operators compiled for dynamic shapes: {top}. A dynamic operator may be compiled again for each new "
         "shape (recompiles on the host) and runs a generic kernel: keep the shapes static (pad inputs to a few "
         "sizes) so that static kernels are built once, or use the prebuilt binary kernels for shapes that must vary.",
         {"share_of_compute": 0.10}),
    Rule("low_block_dim", LOW, METHOD_FORWARD_BACKWARD,
         "operators of at least 20 µs launched on fewer blocks than the chip has cores for their core type hold "
         "≥ 5 % of compute",
         "Where the time goes: {count} tasks of at least {long} ({share} of compute, {value}; the threshold is "
         "{reference}) run on fewer blocks than the chip's cores ({cores_source}): {top}. The other cores stay idle "
         "while they run: a tiling that splits the work over every core (or larger batches) would use them.",
         {"share_of_compute": 0.05, "long_task_us": 20.0}),
    Rule("fusable_vector_runs", LOW, METHOD_FORWARD_BACKWARD,
         "runs of ≥ 2 consecutive vector operators of at most 20 µs each, with the same op types repeated ≥ 3 "
         "times, hold ≥ 5 % of compute",
         "Where the time goes: repeated runs of small vector operators take {value} ({share} of compute; the "
         "threshold is {reference}); the most frequent: {top}. Each is several launches and several passes over "
         "memory that one fused operator would do at once: use the framework's fused operator for the pattern, "
         "graph-mode fusion, or a custom fused kernel.",
         {"share_of_compute": 0.05, "small_task_us": 20.0, "min_repeats": 3}),
)
RULES = RULES + ADVISOR_RULES

# Memory (metrics.md §11); evaluated by ``analysis.memory.findings``.
METHOD_MEMORY = "Memory: peaks, large blocks, fragmentation"
METHOD_ORDER = METHOD_ORDER + (METHOD_MEMORY,)
MEMORY_ADVICE = ("To lower the peak: recomputation (activation checkpointing) of the layers whose "
                 "activations are alive at the peak, operator fusion (fewer intermediate tensors), "
                 "optimizer parallelism (shard optimizer states across the data-parallel cards), or "
                 "smaller micro-batches.")
MEMORY_RULES: tuple[Rule, ...] = (
    Rule("memory_imbalance", MEDIUM, METHOD_CLUSTER,
         "a card's peak reserved memory stands above the cluster's by the rule of metrics.md §4",
         "{card} reserves {value} at its peak against {reference} for the median card (z = {z}). The card "
         "holds more than its peers: a larger pipeline stage or shard, other batch shapes, or a caching "
         "allocator that kept more. Rebalance the layers or shards, or bring that card's peak down. "
         + MEMORY_ADVICE, kind=ANOMALY),
    Rule("large_allocation", LOW, METHOD_MEMORY,
         "one allocation ≥ 10 % of its component's peak allocated memory",
         "Where the memory goes: {name} allocates {size} at once on {card}, {value} of {component}'s peak "
         "allocated memory "
         "({peak}; the threshold is {reference}). One block this size sets the peak: split the tensor, "
         "or lower it by recomputation, operator fusion or smaller micro-batches. " + MEMORY_ADVICE,
         {"share_of_peak": 0.10}),
    Rule("fragmentation", LOW, METHOD_MEMORY,
         "reserved − allocated ≥ 20 % of reserved at the component's allocated peak",
         "Where the memory goes: at its allocated peak {component} on {card} has {unallocated} reserved but "
         "not allocated, {value} of "
         "its {reserved} reserved (the threshold is {reference}): the caching allocator's pool is "
         "fragmented. Keep tensor shapes steady between steps, free cached blocks between phases, or let the "
         "allocator grow segments (expandable segments). " + MEMORY_ADVICE,
         {"share_of_reserved": 0.20}),
)
RULES = RULES + MEMORY_RULES

RULE_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES}
