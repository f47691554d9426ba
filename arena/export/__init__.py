"""Standard hand-history exports of recorded hands: PHH (the Poker Hand History format,
:mod:`arena.export.phh`) and the ACPC dealer's log lines (:mod:`arena.export.acpc`), read
from a ``hands.jsonl``, a match's or a tournament's run folder (:mod:`arena.export.sources`).
"""
