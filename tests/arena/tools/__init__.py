"""Tests of :mod:`arena.tools`, one file per module."""
