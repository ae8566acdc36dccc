"""Subcommands of ``timelineview`` that print instead of opening a window."""
