"""The ladder inside the competition site: a second Django application beside
``arena.server``.

Its models hold the ladder's games (duplicate pairs of matches, each claimed by a worker
with a lease), the ratings fitted after every result, the teams' promotion tests and test
game requests, and the finals. The decisions themselves (which game next, the fit, the
sequential test, what a game's end means) are :mod:`arena.ladder`'s pure functions; this
application feeds them the database's state and stores what they decide:

* :mod:`~arena.server.ladder.models`: the tables;
* :mod:`~arena.server.ladder.state`: the database's state as the ladder's values, the
  ratings refreshed after each result, promotion tests advanced;
* :mod:`~arena.server.ladder.fit_snapshot`: the last fit as matchmaking reads it, made
  once per fit and read back by each claim;
* :mod:`~arena.server.ladder.queue`: claiming a game with a lease, storing its result
  once;
* :mod:`~arena.server.ladder.play`: playing a game's two matches through the match
  executor seam (:mod:`arena.cluster`) with the competition's settings;
* :mod:`~arena.server.ladder.finals`: the final round robin through the tournament runner;
* :mod:`~arena.server.ladder.views`: the pages and the API;
* the management commands ``ladder_worker`` and ``ladder_finals``.
"""
