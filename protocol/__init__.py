"""The wire contract between the arena and bots: pure, no I/O."""
