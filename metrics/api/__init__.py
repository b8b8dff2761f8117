"""The metrics REST endpoints under /api/v1/campaigns/<slug>/ (``endpoints``)."""
