"""Tests of :mod:`arena.bots.sandbox`, one file per module, and sandboxed bots as processes."""
