"""Tabs that show one analysis of the loaded cards and point back into the timeline."""
