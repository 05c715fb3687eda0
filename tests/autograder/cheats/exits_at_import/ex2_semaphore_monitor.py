"""ex2 that exits at import."""
raise SystemExit(0)


class SemMonitorFrontier:
    pass
