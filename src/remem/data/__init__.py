"""English word lists as data (``words.py`` reads them)."""
