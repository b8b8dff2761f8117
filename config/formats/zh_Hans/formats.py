# A time on a rater's screen, as Chinese writes it: 1月5日 14:30 (Django's own is Y/m/d G:i).
SHORT_DATETIME_FORMAT = "n月j日 H:i"
