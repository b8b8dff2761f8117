"""The annotate app's REST endpoints under /api/v1/ (issue 7).

Read-only lists are on the shared router (``annotate.api.urls.register``); writes and the
endpoints that are not plain lists are explicit views (``annotate.api.urls.urlpatterns``).
Permissions are the pages' own rules (annotate.api.scoping over annotate.selectors); every
write calls a service. This package imports nothing at load time: settings name its renderer,
throttle and exception handler, which DRF loads while it is itself being imported.
"""
