"""The ``--min-gap-us`` option of the commands that analyse cards: the shortest idle gap of the compute lanes
that counts as one (metrics.md), a finite number of µs, zero or more."""

from __future__ import annotations

import argparse
import math

DEFAULT_MIN_GAP_US = 1.0


def gap_us(text: str) -> float:
    """``text`` as a gap threshold in µs; argparse reports the error (exit 2) when it is not one."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of µs") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text} µs: a gap threshold is a finite number of µs, 0 or more")
    return value


def add_gap_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--min-gap-us`` to ``parser``."""
    parser.add_argument("--min-gap-us", type=gap_us, default=DEFAULT_MIN_GAP_US,
                        help=f"idle device compute gap threshold (AI Core gaps on Ascend, GPU gaps on a GPU; µs, 0 or "
                             f"more; default {DEFAULT_MIN_GAP_US:g})")
