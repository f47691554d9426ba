"""People at a poker table over Discord, with bots beside them.

A chat front end is the asynchronous mirror of the terminal seat (:mod:`arena.human`): the
match loop runs in a worker thread, each person's seat waits on a queue that chat commands
fill, hole cards and "your turn" go to the person privately, and the public table goes to
the channel. :mod:`arena.discord.tables` is the table manager, tested without Discord;
:mod:`arena.discord.bot` is the thin discord.py client over it (an optional extra).
"""
