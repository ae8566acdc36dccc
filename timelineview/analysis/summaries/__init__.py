"""Per-card summaries for clusters beyond one machine: writing them, reading them, their findings."""
