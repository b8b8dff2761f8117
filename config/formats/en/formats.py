# A time on a rater's screen (a grade given, a skip): the year is nearly always this one.
SHORT_DATETIME_FORMAT = "M j, H:i"
