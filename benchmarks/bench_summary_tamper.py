"""The whole summary tampering campaign: about 1 500 tampered copies of a real summary folder, each read by
``timelineview stats DIR --json`` in its own process; prints outcomes by family and verdict, and exits 1 on
any violation (a hang, a traceback, exit 3, numbers changed without a word). The test suite runs a spread
sample of it.

    python benchmarks/bench_summary_tamper.py [--jobs 2] [--limit N] [--work DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the campaign lives beside the tests that sample it

from tests.commands.summary_tamper_campaign import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
