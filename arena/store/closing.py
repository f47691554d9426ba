"""A resource that a ``with`` block closes: the context manager protocol written once.

A class with a ``close()`` method derives from :class:`ClosedOnExit` to be usable as
``with Resource(...) as resource:``; the block's end calls ``close()``, whether it ended
normally or by an exception (which goes on: ``__exit__`` returns None).
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

__all__ = ["ClosedOnExit"]


class ClosedOnExit:
    """``with`` gives the resource itself and closes it at the end of the block.

    >>> class Door(ClosedOnExit):
    ...     is_open = True
    ...     def close(self) -> None:
    ...         self.is_open = False
    >>> with Door() as door:
    ...     door.is_open
    True
    >>> door.is_open
    False
    """

    __slots__ = ()

    def close(self) -> None:
        """Release the resource (a subclass's own; closing twice must be harmless)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
