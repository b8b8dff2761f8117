"""Django admin for every model of the app, narrowed to the campaigns a staff user manages
(see scoping.py). Importing the modules registers their ModelAdmins."""

from annotate.admin import accounts, campaigns, corpus, derived, judgments, quiz, sxs, tokens

__all__ = ["accounts", "campaigns", "corpus", "derived", "judgments", "quiz", "sxs", "tokens"]
