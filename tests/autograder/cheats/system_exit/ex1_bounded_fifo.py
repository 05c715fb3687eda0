"""Raises SystemExit(0) from its constructor."""


class BoundedFifo:
    def __init__(self, capacity=30):
        raise SystemExit(0)
