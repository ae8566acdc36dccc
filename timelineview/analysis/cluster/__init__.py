"""Across the cards of a cluster: clock offsets, slow cards, the per-card comparison."""
