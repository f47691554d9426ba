"""A competition: many matches between many bots, planned, played and rated.

Its configuration (:mod:`.config`: the tournament file and flags read into one
:class:`~arena.tournament.config.TournamentConfig`, its rules and its fingerprint) and the
bots' versions by content (:mod:`.bot_versions`); the match plan and each match's seed
(:mod:`.plan`, :mod:`.seeds`); the host behind ``arena tournament`` (:mod:`.host`), the runner
that hands matches to an executor and stores each result once (:mod:`.runner`) and the worker
that plays one of them (:mod:`.worker`); the sequential test's stopping rule
(:mod:`.sequential`); the standings read from the results database (:mod:`.standings`);
and what a person sees meanwhile (:mod:`.display`, :mod:`.stderr_summary`). The results
database itself is :mod:`arena.store.sqlite`, the statistics :mod:`arena.stats`.
"""
