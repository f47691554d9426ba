"""Tournament statistics, pure (standard library and openskill, no I/O): results per hand in
milli-big-blinds grouped into duplicate deals (:mod:`~arena.stats.units`), of either score,
raw or luck-adjusted, read through one selector (:mod:`~arena.stats.scores`), confidence
intervals (:mod:`~arena.stats.intervals`), the sequential probability ratio test
(:mod:`~arena.stats.sprt`), multiplayer ratings (:mod:`~arena.stats.ratings`), the
leaderboard and crosstable a tournament prints and stores (:mod:`~arena.stats.tables`),
each match's luck (:mod:`~arena.stats.match_luck`) and the sentence on whether the leader is
significantly ahead (:mod:`~arena.stats.lead`).

The package imports nothing else from the arena: it reads a match's outcome through the
small structural types of :mod:`~arena.stats.units`, which the tournament's
``MatchOutcome`` satisfies.
"""
