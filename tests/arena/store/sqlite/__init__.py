"""Tests of :mod:`arena.store.sqlite`, one file per module."""
