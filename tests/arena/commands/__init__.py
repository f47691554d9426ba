"""Tests of :mod:`arena.commands`, one file per command module."""
