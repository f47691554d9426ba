"""Keeping a bot in its box: resource limits, a private directory, its process tree watched.

Two layers wrap the launcher seam (:class:`arena.bots.launcher.Launcher`):

* the limits layer (:mod:`arena.bots.sandbox.limited`), which needs no privilege: a small
  exec wrapper (:mod:`arena.bots.sandbox.supervisor`) sets resource limits, dies with the
  arena and takes down everything the bot started; the bot runs in a private copy of its
  directory with a scrubbed environment; the arena watches the bot's process tree
  (:mod:`arena.bots.sandbox.watch`) and kills it when a limit is crossed;
* the strict layer, which runs that same wrapper inside ``bwrap`` with cgroup limits
  where the machine allows it.

The limits themselves, their defaults and their overrides are in
:mod:`arena.bots.sandbox.resources`.
"""
