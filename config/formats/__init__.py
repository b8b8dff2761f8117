"""Date formats per interface language (settings.FORMAT_MODULE_PATH); Django's own fill in the
rest."""
