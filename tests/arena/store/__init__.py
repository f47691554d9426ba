"""Tests of :mod:`arena.store`, one file per module."""
