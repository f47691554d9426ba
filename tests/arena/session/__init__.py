"""Tests of :mod:`arena.session`, one file per module."""
