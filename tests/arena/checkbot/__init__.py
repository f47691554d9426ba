"""Tests of :mod:`arena.checkbot`, one file per module."""
