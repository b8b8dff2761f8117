"""Decide: two systems compared on NDCG (``ndcg``) and a side-by-side comparison's GSB
decision (``gsb``)."""
