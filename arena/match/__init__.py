"""One match: its configuration, the stack formats (reset, carried, freezeout), the poker
loop (deal, ask, apply, record), its typed records and results, and the switchable
work done while bots think (prefetch)."""
