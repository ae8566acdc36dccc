"""The communication a synthetic card is written with: topology, plane tasks, slow links and their truth."""
