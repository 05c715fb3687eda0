"""Lab scripts: each reproduces a figure or table of the papers."""
