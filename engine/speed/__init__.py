"""Speed helpers: every trick on the dealer's hot path, kept apart from the poker rules.

The arena asks for a view and the legal actions before every decision and records every
event of every hand, so three things are built far more often than anything else. Each
helper here makes one of them faster and has a plain counterpart that gives exactly the
same output, which the tests compare over thousands of random hands:

* :func:`engine.speed.dataclass_init.fast_init` - a faster ``__init__`` for the frozen,
  slotted dataclasses built per decision (events, ``LegalActions``, views, pots). Plain
  counterpart: the ``__init__`` that ``dataclasses`` generates.
* :func:`engine.speed.event_dicts.compile_to_dict` - a ``to_dict`` generated per event
  class. Plain counterpart: each field's ``plain_value``, with the records as objects.
* :class:`engine.speed.view_cache.ViewCache` - one hand's memo of event dicts and of the
  parts of a view that every viewer shares. Plain counterpart: the view built from scratch
  (in the tests).

The helpers are applied where the types are defined (``fast_init`` and ``compile_to_dict``
at import time) and by ``Hand`` (one ``ViewCache`` per hand); none adds a call on the
per-action path. The submodules import nothing from this package's ``__init__``, so the
package itself re-exports nothing.
"""
