"""Reads behind the report pages: judging progress over time, disagreements, one query's
drill-down."""
