"""The findings of what the trace shows (metrics.md §7.1, §8): slow operators across cards, AI Core frequency
drops, dynamic shapes, low block dims and fusable runs of small vector operators, from each card's advisor facts
(``analysis.advisor``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from timelineview.analysis.cluster.slow_cards import SlowCard, typical
from timelineview.analysis.findings.records import Evidence, Finding, fmt_us, make_finding
from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.analysis.findings.signals import CardSignals
from timelineview.analysis.findings.slow_operators import CardOpTimes, OperatorVerdict, slow_operators
from timelineview.producers.msprof import FREQUENCY_RULE

NS_PER_US = 1000.0
SHAPES_NAMED = 3  # shapes of a slow op type named in its advice


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def _evidence(docs: list[dict] | None) -> list[Evidence]:
    return [Evidence(**d) for d in docs or []]


def _facts(signals: dict[str, CardSignals]) -> dict[str, dict]:
    return {card: f for card, sig in signals.items() if (f := sig.advisor()) is not None}


# ------------------------------------------------------------------------------------------ slow operators
def median_step_us(signals: dict[str, CardSignals]) -> float:
    """The cards' median of each card's typical step (the median of its steps; µs): the practical floor's base."""
    values = [typical([(w.end - w.start) / NS_PER_US for w in sig.steps]) for sig in signals.values() if sig.steps]
    values = [v for v in values if np.isfinite(v)]
    return float(np.median(values)) if values else 0.0


def op_times(facts: dict[str, dict], shapes: bool) -> list[CardOpTimes]:
    """Each card's op-type (or (op type, shapes)) table from its facts."""
    out = []
    for card, f in facts.items():
        table = f["op_types"]
        if shapes:
            keys = [(t, s) for t, s, _, _ in table["by_shape"]]
            rows = {(t, s): (c, v) for t, s, c, v in table["by_shape"] if s}  # no shapes: the op type again
            split = table.get("by_shape_steps") or []  # a summary written before the split has none
        else:
            keys = [t for t, _, _ in table["by_op_type"]]
            rows = {t: (c, v) for t, c, v in table["by_op_type"]}
            split = table.get("by_op_type_steps") or []
        per_step = {k: (c, v) for k, (c, v) in zip(keys, split, strict=True) if k in rows} if split else {}
        out.append(CardOpTimes(card, f["steps"], rows, per_step))
    return out


def _how_sure(v: OperatorVerdict, what: str) -> str:
    steps = f", in {v.steps_above} of its {v.steps_judged} steps" if v.steps_above is not None else ""
    if v.z is None:
        return f" (the other cards all equal{steps})"
    return f" (z {v.z:.1f} against {v.z_required:.1f} needed among {v.compared} {what} × cards{steps})"


def _operator_finding(v: OperatorVerdict, facts: dict, shapes: list[OperatorVerdict]) -> Finding:
    rule = RULE_BY_NAME["slow_operator"]
    op_type, shape = (v.key, None) if isinstance(v.key, str) else v.key
    name = operator_name(v.key)
    factor = (f", after {v.card}'s common factor of {v.card_factor:.2f}× over all its op types is divided out"
              if abs(v.card_factor - 1.0) >= 0.01 else "")
    shape_words = ""
    if shapes:
        listed = "; ".join(f"{s.key[1]}: +{fmt_us(s.excess_us_per_step)} per step" for s in shapes[:SHAPES_NAMED])
        shape_words = f" Its input shapes that stand out there: {listed}."
    evidence = _evidence(facts["op_types"]["longest"].get(op_type))
    return make_finding(rule, [v.card], "op_type_time_us", v.us_per_step, v.reference_us_per_step, evidence,
                        operator=name, value=fmt_us(v.us_per_step), reference=fmt_us(v.reference_us_per_step),
                        how_sure=_how_sure(v, "op types" if shape is None else "shapes"),
                        mean=fmt_us(v.mean_us), median_mean=fmt_us(v.median_mean_us * v.card_factor),
                        factor=factor, shapes=shape_words)


def operator_verdicts(signals: dict[str, CardSignals]) -> tuple[list[OperatorVerdict], list[OperatorVerdict]]:
    """(the op-type verdicts, the (op type, shapes) verdicts) over the cards' facts."""
    facts = _facts(signals)
    step_us = median_step_us({c: signals[c] for c in facts})
    return slow_operators(op_times(facts, False), step_us), slow_operators(op_times(facts, True), step_us)


def operator_name(key) -> str:
    """'MatMulV2', or 'MatMulV2 [32,64;64,128]' for an (op type, input shapes) key."""
    return key if isinstance(key, str) else f"{key[0]} [{key[1]}]"


def slow_operator_findings(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """One finding per op type slow on a card (its slow shapes in its words), and per slow shape of an op type
    not named on that card."""
    facts = _facts(signals)
    by_type, all_shapes = operator_verdicts(signals)
    named = {(v.key, v.card) for v in by_type}
    out = []
    for v in by_type:
        mine = [s for s in all_shapes if s.card == v.card and s.key[0] == v.key]
        out.append(_operator_finding(v, facts[v.card], mine))
    out += [_operator_finding(s, facts[s.card], []) for s in all_shapes if (s.key[0], s.card) not in named]
    return out


# ------------------------------------------------------------------------------------------ what the trace shows
def _mhz(x: float) -> str:
    return f"{x:g} MHz"


def _share_findings(signals: dict[str, CardSignals], rule_name: str, threshold_key: str, fact: str, metric: str,
                    evidence: Callable[[dict], list], words: Callable[[dict, dict], dict[str, str]],
                    applies: Callable[[dict], bool] = lambda found: True) -> list[Finding]:
    """One finding per card whose ``fact`` (of its advisor facts) ``applies`` and holds a ``share`` of at least
    the rule's ``threshold_key``: its evidence and advice words from the fact (``words(fact, card's facts)``)."""
    rule = RULE_BY_NAME[rule_name]
    threshold = rule.thresholds[threshold_key]
    out = []
    for card, facts in _facts(signals).items():
        found = facts.get(fact)
        if not found or not applies(found) or found["share"] < threshold:
            continue
        out.append(make_finding(rule, [card], metric, found["share"], threshold, _evidence(evidence(found)),
                                share=_pct(found["share"]), reference=_pct(threshold),
                                **words(found, facts)))
    return out


def frequency_findings(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """A card whose AI Core frequency is below its nominal for at least the rule's share of its steps' time."""
    return _share_findings(
        signals, FREQUENCY_RULE, "share_of_step", "frequency", "frequency_below_nominal_share",
        lambda freq: freq["evidence"],
        lambda freq, _facts: {"value": fmt_us(freq["below_us"]), "nominal": _mhz(freq["nominal_mhz"]),
                                  "lowest": _mhz(freq["lowest_mhz"]), "nominal_source": freq["nominal_source"]},
        applies=lambda freq: freq["steps_us"] > 0)


def dynamic_findings(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """A card whose tasks compiled for dynamic shapes hold at least the rule's share of its compute."""
    return _share_findings(
        signals, "dynamic_shapes", "share_of_compute", "dynamic", "dynamic_share", lambda dyn: dyn["evidence"],
        lambda dyn, _facts: {
            "value": fmt_us(dyn["dynamic_us"]), "count": str(dyn["dynamic_tasks"]), "tasks": str(dyn["tasks"]),
            "top": ", ".join(f"{t} ({c} tasks, {fmt_us(us)}, {n} shape{'s' if n != 1 else ''})"
                             for t, c, us, n in dyn["top"])})


def block_dim_findings(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """A card whose long tasks launched on fewer blocks than cores hold at least the rule's share of compute."""
    long_task = fmt_us(RULE_BY_NAME["low_block_dim"].thresholds["long_task_us"])
    return _share_findings(
        signals, "low_block_dim", "share_of_compute", "block_dim", "low_block_dim_share", lambda low: low["evidence"],
        lambda low, facts: {
            "value": fmt_us(low["total_us"]), "count": str(low["count"]), "long": long_task,
            "cores_source": facts["device"]["source"],
            "top": ", ".join(f"{t} ({core}, block dim {dim} of {cores} cores, {n} tasks, {fmt_us(us)})"
                             for t, core, dim, cores, n, us in low["top"])})


def vector_run_findings(signals: dict[str, CardSignals], slow: list[SlowCard]) -> list[Finding]:
    """A card whose repeated runs of small vector operators hold at least the rule's share of its compute."""
    return _share_findings(
        signals, "fusable_vector_runs", "share_of_compute", "vector_runs", "fusable_share",
        lambda runs: runs["sequences"][0]["evidence"],
        lambda runs, _facts: {
            "value": fmt_us(runs["repeated_us"]),
            "top": "; ".join(f"{' → '.join(s['op_types'])} (×{s['count']}, {fmt_us(s['total_us'])})"
                             for s in runs["sequences"])},
        applies=lambda runs: bool(runs["sequences"]))


# grouped over cards like the other where-the-time-goes rules (one finding per rule, the worst card's words)
ADVISOR_GROUPED_CHECKS = (frequency_findings, dynamic_findings, block_dim_findings, vector_run_findings)
