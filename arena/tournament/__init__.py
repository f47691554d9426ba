"""Competitions: many matches between many bots, their results database and statistics."""
