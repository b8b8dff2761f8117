"""The demo campaign that `manage.py demo` loads: a product-search evaluation with two
rankers, a pool, a side-by-side comparison and some judgments already made."""
