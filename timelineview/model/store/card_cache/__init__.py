"""The on-disk card cache: columns files, their records and checks, and what the cache tells the user."""
