"""The ladder's decisions, pure: which games next, ratings with their intervals, the
"is my new version better?" test, the finals' entrants and pairs, and what a game's end
means. No clock, no I/O, no global random: the time comes in as a number and randomness
from a ``random.Random`` passed in, so every decision is tested without a server, a
database or a process, and the server's worker calls the same functions.

* :mod:`~arena.ladder.games`: a game's result (a duplicate unit, luck-adjusted mbb/hand
  with the raw beside it), a ring table's result and its pair comparisons (each weighing
  ``2 / n`` of a heads-up game), and the results of each pair;
* :mod:`~arena.ladder.ratings`: the strengths fitted to every pair's results (weighted
  least squares on the margins), their intervals and the chance each bot is above the next;
  :mod:`~arena.ladder.covariance` keeps their covariance (whole, as a factor, or a band);
* :mod:`~arena.ladder.matchmaking`: the next game (tests, placement, floor, uncertainty),
  filled to a ring table's size when the ladder plays tables, under a cap of games in
  flight per team;
* :mod:`~arena.ladder.pairings`: what matchmaking reads and answers (settings, entrants,
  requests, candidates, the pairing);
* :mod:`~arena.ladder.cadence`: how often the ratings are fitted again (the interval follows
  the last fit's cost);
* :mod:`~arena.ladder.promotion`: the sequential test of a candidate version against its
  team's active one, and the auto-activation rule;
* :mod:`~arena.ladder.finals`: the freeze at the deadline, the finals' entrants and pairs;
* :mod:`~arena.ladder.ends`: re-run (the infrastructure's fault) or result (the bot's),
  and forfeits, heads-up or at a table.

docs/ladder.md explains the rules and why they were chosen.
"""
