"""Tests of :mod:`arena.human` (one file per module) and of ``arena play``: in this process
(test_command.py) and at a pseudo-terminal (test_pty.py)."""
