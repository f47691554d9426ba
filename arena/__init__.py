"""The arena: bot processes, watchdog, matches and the command line (the only I/O)."""
