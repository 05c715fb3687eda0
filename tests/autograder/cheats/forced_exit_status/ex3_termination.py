"""ex3 that forces its exit status."""
import atexit
import os

atexit.register(os._exit, 0)


class TerminationDetector:
    pass
