"""Per-card analysis results kept beside the card's cache entry, so a re-open does not redo them. No Qt."""
