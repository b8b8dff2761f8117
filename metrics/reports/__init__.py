"""The manager's report pages under /reports/: views, forms, what a page says about its
numbers (``presenting``) and the charts."""
