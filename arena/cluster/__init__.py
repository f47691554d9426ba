"""Where a tournament's matches run, behind one seam,
:class:`~arena.cluster.executor.MatchExecutor`: this machine's process pool
(:mod:`~arena.cluster.local`, the default) or a Dask cluster
(:mod:`~arena.cluster.dask_executor`, its referees, zygotes and checks). It knows no
tournament: a job is a :class:`~arena.cluster.job.MatchJob` and the host hands the executor
the function that plays one. ``docs/cluster.md`` says what each module does ("The code") and
how to set up the machines.
"""
