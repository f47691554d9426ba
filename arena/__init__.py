"""The arena: the only package with I/O. It runs bot processes under a watchdog, plays
matches with the engine and the protocol, stores their records, runs tournaments, draws
reports, exports hand histories, seats people at a table (a terminal or Discord), checks a
bot's conformance and offers the ``arena`` command line.

Imports point one way, down this table of the arena's parts (``tests/test_architecture.py``
reads it from here: add a part by adding its line). Each part may import itself and the
parts listed after its name; everything may import ``protocol`` and ``engine``::

    bots:        (nothing)
    session:     bots
    store:       session, bots
    stats:       (nothing)
    luck:        (nothing)
    uploads:     (nothing)
    ladder:      stats, luck
    match:       luck, store, session, bots
    settings:    match, store, session, bots
    checkbot:    match, session, bots
    human:       match, store, session, bots
    cluster:     match, store, bots
    tournament:  settings, stats, cluster, match, store, session, bots
    report:      tournament, stats, store, session
    export:      report, store
    discord:     settings, human, match, store, session, bots
    server:      (every part but commands and cli)
    commands:    (every part but cli)
    cli:         (every part)

``bots`` starts and confines processes; ``session`` speaks the protocol to one bot under a
watchdog; ``store`` keeps what a run leaves (the names of a run folder's files, the hand
history's writer and its one reader, the results database and the outcome type it stores)
and knows no match type; ``match`` plays a match (and holds the ``ResultStore`` protocol a
store fits, the terminal results table and ``arena replay``); ``checkbot`` is the engine of
``arena check-bot``, a scripted conversation with one bot; ``stats`` is pure computation
over outcomes; ``luck`` is the luck estimator (pure: a hand's history in, each seat's
luck-adjusted result out); ``uploads`` checks and packs a bot's archive; ``ladder`` holds
the ladder's decisions (pure: which games next, ratings, stopping rules); ``server`` is the
competition web site (Django) and its workers; ``cluster`` plays match jobs somewhere (a
local process pool, a Dask cluster) behind one ``MatchExecutor`` seam; ``tournament`` plans,
runs and rates a competition; ``report``, ``export``, ``human`` and ``discord`` read or
front a run; ``commands`` holds one module per ``arena`` command, called only by ``cli``.
"""
