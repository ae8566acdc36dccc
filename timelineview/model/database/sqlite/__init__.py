"""SQLite files as such, whatever their schema: opening one read-only, its tables as numpy columns (by SQLite
or straight from its pages), and what is damaged in it."""
