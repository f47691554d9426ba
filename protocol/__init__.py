"""The wire contract between the arena and bots, and nothing else: what goes on the wire,
byte for byte, and what comes back. Pure: no I/O, no clock; it maps engine values to and
from JSON lines and imports only :mod:`engine`.

Bots in any language talk to the arena in JSON lines; ``protocol/PROTOCOL.md`` is the contract
for bot authors and ``protocol/schemas/*.json`` its machine-readable form. The modules, from
bytes up:

* :mod:`protocol.framing` - ``LineReader``: bytes in, complete lines out, capped length.
* :mod:`protocol.codec` - ``encode`` (message to line) and ``decode`` (line to object; raises
  only protocol errors, whatever the bytes).
* :mod:`protocol.schema` - the JSON Schemas, loaded and compiled once; ``validate_outgoing``.
* :mod:`protocol.layout` - the one layout of the messages made from a seat's view, from which
  their builders and their fast text writers are generated.
* :mod:`protocol.messages` - builders of the arena's messages from engine views and results.
* :mod:`protocol.request_encoder` - one seat's request lines, written fast: the bytes of
  ``encode`` of the builders.
* :mod:`protocol.replies` - parsers of bots' replies into engine actions, with seq rules and
  legality checks against ``LegalActions`` (:mod:`protocol.betting`: a wire action's legality).
* :mod:`protocol.strategy` - a reply's ``distribution`` (a mixed strategy): its checks and the
  draw of an action from it with a number the arena gives.
* :mod:`protocol.errors` - whose fault: ``BotFaultError`` (stable codes) or ``ArenaBugError``.
* :mod:`protocol.version`, :mod:`protocol.cards`, :mod:`protocol.legal` - versions, wire cards,
  the legal-action list.
"""
