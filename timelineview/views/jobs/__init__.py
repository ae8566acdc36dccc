"""Work run off the GUI thread: a job, its runner, and the jobs of the window (load, summary, compare)."""
