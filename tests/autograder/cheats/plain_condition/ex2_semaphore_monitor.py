"""ex2 built on threading.Condition, written plainly."""
import threading


class SemCondition:
    def __init__(self, monitor):
        self._c = threading.Condition()


class SemMonitorFrontier:
    pass
