"""Where a tournament's matches run: this machine's process pool, or a Dask cluster.

The tournament's host plays its matches through one narrow seam,
:class:`~arena.cluster.executor.MatchExecutor` (how many at once, ``submit(job)`` giving a
future of the outcome, ``close()``), and this package holds its two implementations. It
knows no tournament: a job is a :class:`~arena.cluster.job.MatchJob` and the host hands the
executor the function that plays one (the tournament's ``play_match``). Its parts:

* :mod:`~arena.cluster.executor`: the protocol, and what both executors share;
* :mod:`~arena.cluster.job`: the job, and the outcome of a match that could not be played;
* :mod:`~arena.cluster.local`: the process pool on this machine (the default);
* :mod:`~arena.cluster.dask_executor`: a Dask cluster reached or started, the checks before
  the first match (:mod:`~arena.cluster.checks`), one Dask task per match
  (:mod:`~arena.cluster.task`) played by a referee process (:mod:`~arena.cluster.referee`)
  forked by the worker's zygote (:mod:`~arena.cluster.zygote`), its files sent back when
  the run folder is not shared (:mod:`~arena.cluster.files`).

``docs/cluster.md`` says how to set up the machines.
"""
