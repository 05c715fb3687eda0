"""Ends its own process with status 0 when it is imported."""
import sys

sys.exit(0)


class BoundedFifo:
    pass
