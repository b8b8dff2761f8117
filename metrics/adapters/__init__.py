"""From the database to the engine: a campaign's qrels and runs as engine arrays
(``campaign``), read column-wise (``columns``)."""
