"""One match: its configuration (:mod:`.config`), the stack formats (:mod:`.formats`:
reset, carried, freezeout), the poker loop (:mod:`.loop`: deal, ask, apply, record) over
the :class:`~arena.match.players.Decider` seam (:mod:`.players`), its typed records and
results (:mod:`.records`, :mod:`.results`), the deck commitment (:mod:`.fairness`), the
readiness check (:mod:`.readiness`), the switchable work done while bots think
(:mod:`.prefetch`), the collector's frozen heap during the hands (:mod:`.collector`) and
the luck estimate in a process beside the match (:mod:`.luck_process`, :mod:`.luck_worker`);
a match with live bots (:mod:`.run`) and its host behind ``arena match`` (:mod:`.host`);
the ``ResultStore`` seam its records go through (:mod:`.store`); what a person sees
(:mod:`.console`, :mod:`.progress`, :mod:`.log`, and the results table,
:mod:`.results_table`); and ``arena replay`` (:mod:`.replay`), the match played again
from its hand history."""
