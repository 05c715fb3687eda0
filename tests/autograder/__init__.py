"""Autograder tests of the exercises (``exercises/``); skipped unless ``--exercises=DIR``."""
