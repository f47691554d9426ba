"""Tournaments on a cluster: matches played on Dask workers, each by a referee process.

The tournament's runner plays its matches through a
:class:`~arena.cluster.executor.MatchExecutor`; this package is the Dask one,
:func:`~arena.cluster.dask_executor.dask_executor` (``arena tournament --executor dask``).
Its parts, from the host down to the worker:

* :mod:`~arena.cluster.dask_executor`: the cluster (a scheduler reached, or a local one
  started), the checks before the first match, one Dask task per match, each outcome
  fetched and its files written on the host;
* :mod:`~arena.cluster.checks`: what runs on every worker first (can the bots start here,
  is the run folder shared);
* :mod:`~arena.cluster.task`: the task on a worker, which has a referee play the match
  under a wall-clock deadline and kills it and its bots afterwards;
* :mod:`~arena.cluster.zygote` and :mod:`~arena.cluster.referee`: the referee process,
  forked by a per-worker zygote that imported the arena once;
* :mod:`~arena.cluster.files`: a match's files packed into its outcome, and written back.

``docs/cluster.md`` says how to set up the machines.
"""
