"""The garbage collector during a match: what was alive when the hands began is left alone.

A full collection walks every object the collector tracks, and in a match process nearly
all of them were made before the first hand (the modules' functions, classes and tables,
the bots' sessions): tens of thousands of objects, some 15 to 50 ms of CPU a walk on a
small machine. The match's own allocations (the luck estimator's most of all) set such a
walk off every few hundred hands, so frozen (:func:`gc.freeze`) those objects are not
walked again until the match ends; what the match makes is collected as before. Nothing
recorded depends on it: the same seed gives the same bytes with :data:`FREEZE_HEAP` on or
off (a test checks it).

A heap frozen already is left as it is (a referee's zygote freezes its own before forking,
so that its children's collections leave the shared pages alone). A freeze that other code
makes during the match is undone with ours when the match ends (the collector has one
permanent generation).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FREEZE_HEAP", "heap_frozen"]

#: The switch: false leaves the collector as it is during a match.
FREEZE_HEAP = True


@contextmanager
def heap_frozen() -> Iterator[None]:
    """Freeze the objects alive now for the block (see the module docstring) and unfreeze
    them after it, whatever happens, unless the switch is off or the heap was frozen
    already."""
    if not FREEZE_HEAP or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
