"""Evaluation of rankings from graded labels, and GSB launch decisions.

The engine (``metrics.core``) is pure numpy and never imports Django; ``metrics.cli`` runs it
from the command line. The Django side reads campaigns into the engine (``adapters``),
computes and stores the reports' numbers (``services``, ``selectors``), decides
(``decide``: NDCG comparisons and GSB) and shows them (``reports``, ``api``).
"""
