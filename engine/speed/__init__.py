"""Speed helpers: every trick on the dealer's hot path, kept apart from the poker rules.

The arena asks for a view and the legal actions before every decision and records every
event of every hand, so these are built far more often than anything else. Each helper
(:mod:`.dataclass_init`, :mod:`.event_dicts`, :mod:`.view_cache`) makes one of them faster
and has a plain counterpart that gives exactly the same output, which the tests compare
over thousands of random hands. None adds a call on the per-action path. The submodules
import nothing from this package's ``__init__``, so the package itself re-exports nothing.
"""
