"""The main window's parts, one job each: menus, opening, job progress, messages, recent paths."""
