"""Exercises of the crawlab course: starter files to complete, graded by the autograder.

Each ``exN_*.py`` has one part fenced by ``YOUR CODE HERE`` / ``END OF YOUR CODE`` lines; the
rest is given. Grade your work with ``python exercises/grade.py ex1`` (or ``all``); the handouts
are the "Exercises" pages of the course book.
"""
