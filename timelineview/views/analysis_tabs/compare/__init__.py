"""The Compare tab (issue 14): a second run compared with the one on screen."""
