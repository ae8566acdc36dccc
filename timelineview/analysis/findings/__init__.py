"""Findings (metrics.md §8): the tuning method as rules over one analysis session."""

from timelineview.analysis.findings.evaluate import Evidence, Finding, evaluate_findings
from timelineview.analysis.findings.rules import RULES, Rule

__all__ = ["Evidence", "Finding", "RULES", "Rule", "evaluate_findings"]
