"""ex2 with a Condition reached without writing its name."""
import threading

Cond = vars(threading)["Cond" + "ition"]


class SemCondition:
    def __init__(self, monitor):
        self._c = Cond(monitor.mutex)


class SemMonitorFrontier:
    pass
