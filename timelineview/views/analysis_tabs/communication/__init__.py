"""The Communication tab (issue 12): rank × rank matrix of the links, operator tables, jumps."""
