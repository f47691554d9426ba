"""The arena: the only package with I/O. It runs bot processes under a watchdog, plays
matches with the engine and the protocol, stores their records and offers the ``arena``
command line.

Imports point one way: ``cli -> commands -> tools -> match -> session -> bots -> protocol
-> engine``; ``store`` reads only the match's record types (``tests/test_architecture.py``
holds the table of what may import what).
"""
