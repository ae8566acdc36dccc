"""``timelineview sample``: where the bundled sample cluster is, so that an installed wheel's user can give it
to the other commands (``timelineview stats "$(timelineview sample)"``)."""

from __future__ import annotations

import argparse
import sys

from timelineview.commands.exit_codes import EXIT_NOTHING_READABLE, EXIT_OK

PROG = "timelineview sample"


def sample_main(argv: list[str]) -> int:
    """Print the bundled sample cluster's folder; exit 1 when this install holds none."""
    argparse.ArgumentParser(prog=PROG, description="Print the folder of the bundled sample cluster (four cards "
                            "of a data-parallel job), e.g. for timelineview stats \"$(timelineview sample)\".",
                            ).parse_args(argv)
    from timelineview.views.resources import sample_cluster_path

    path = sample_cluster_path()
    if path is None:
        print(f"{PROG}: this installation holds no sample cluster", file=sys.stderr)
        return EXIT_NOTHING_READABLE
    print(path)
    return EXIT_OK
