"""The site's job queues and their workers, written once for both kinds of job (an
upload's validation, a ladder game):

* :mod:`.lease`: a table as a queue, a row claimed with a lease by one conditional
  ``UPDATE``, renewed while it is worked on, released when its worker is stopped, given up
  after a number of attempts;
* :mod:`.worker`: the loop a worker command runs: stop signals, dying with ``arena server
  run``, the thread that keeps the lease, claiming or sleeping, and "the site failed, not
  the bot" when the work itself raises.

Why hand-written rather than a task library: see ``docs/server.md`` ("How the code is laid
out").
"""
