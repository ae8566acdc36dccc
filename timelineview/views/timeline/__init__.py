"""The timeline: widget, canvas, navigation, lane tree, overlay and the tracks that paint lanes."""
