"""Tournament statistics, pure (standard library and openskill, no I/O): results per hand in
milli-big-blinds grouped into duplicate deals (:mod:`~arena.stats.units`), confidence
intervals (:mod:`~arena.stats.intervals`), the sequential probability ratio test
(:mod:`~arena.stats.sprt`), multiplayer ratings (:mod:`~arena.stats.ratings`) and the
leaderboard and crosstable a tournament prints and stores (:mod:`~arena.stats.tables`).

The package imports nothing else from the arena: it reads a match's outcome through the
small structural types of :mod:`~arena.stats.units`, which the tournament's
``MatchOutcome`` satisfies.
"""
