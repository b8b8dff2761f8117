"""Evaluation of rankings from graded labels, and GSB launch decisions.

The core (``metrics.core``) is pure numpy and never imports Django.
"""
