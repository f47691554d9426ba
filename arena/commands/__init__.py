"""One module per ``arena`` command (``match`` and ``demo``, ``replay``, ``check-bot``);
:mod:`arena.cli` parses the arguments and calls them."""
