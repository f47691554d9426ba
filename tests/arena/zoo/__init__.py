"""The zoo: hostile bots (tests/bots/) that each try one thing, in short real matches under
the sandbox layer the arena picks by default; every attack must be contained."""
