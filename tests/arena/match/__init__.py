"""Tests of :mod:`arena.match`, one file per module."""
