"""WSGI entry point (gunicorn config.wsgi)."""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Django imports the URLconf, and with it every view (scipy and matplotlib for the reports), in
# a worker's first request: seconds of CPU in front of some rater's grade. Import it here.
get_resolver().url_patterns  # noqa: B018 (importing them is the point)
# Then leave everything loaded so far out of the cyclic garbage collector: it never becomes
# garbage, and each full collection walked those ~200,000 objects (115 ms here) while the
# worker's threads waited, now and then in the middle of a rater's grade.
gc.freeze()
