"""The Communication tab: rank × rank matrix of the links, operator tables, jumps."""
