"""The ``--no-cache`` option of the commands that load cards: by default they read and fill the card cache,
as the window does, so a second run over the same files reopens their columns instead of decoding again."""

from __future__ import annotations

import argparse


def add_cache_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--no-cache`` to ``parser``."""
    parser.add_argument("--no-cache", action="store_true",
                        help="read every card from its files, neither reading nor filling the card cache "
                             "($TIMELINEVIEW_CACHE, default ~/.cache/timelineview)")


def cache_wanted(args: argparse.Namespace) -> bool:
    """What to pass ``load`` as its ``cache``: the default folder unless ``--no-cache`` was given."""
    return not args.no_cache
