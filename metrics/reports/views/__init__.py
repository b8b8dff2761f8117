"""Report views: the dashboard and disagreements, system scores, label sources."""
