"""Qt widgets of the viewer (never parse files: they show what the model loaded)."""
