"""Hands in the library's own monitor."""
from frontier.monitor import MonitorFrontier


class BoundedFifo(MonitorFrontier):
    name = "ex1-bounded-fifo"
