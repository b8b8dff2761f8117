"""Report computations and their stored snapshots: scores, agreement, label sources, the
snapshots' fingerprints."""
