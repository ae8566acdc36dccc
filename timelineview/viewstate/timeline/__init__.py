"""What the timeline shows, without Qt: viewport, level of detail, rows, hit tests, selection, search."""
