"""Tests of :mod:`arena.bots`, one file per module."""
