"""Where a match's records go: the :class:`ResultStore` protocol and today's writer of
``hands.jsonl`` and ``results.json`` behind it."""
