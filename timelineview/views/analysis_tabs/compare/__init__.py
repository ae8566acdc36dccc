"""The Compare tab: a second run compared with the one on screen."""
