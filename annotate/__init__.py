"""Campaigns, corpus, runs, pools, graded and side-by-side judgments."""
