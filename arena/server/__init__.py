"""The competition web site (``arena server``): teams upload bots, each upload is checked
in the sandbox, everyone sees the results.

A small Django project. The parts that need no HTTP and no database are plain modules
tested alone: the competition file (:mod:`.competition`), the site folder
(:mod:`.site`), API tokens (:mod:`.tokens`), the log-in limit (:mod:`.ratelimit`), what a
team may see of a hand (:mod:`.visibility`). Django's parts: the settings built from the
site folder (:mod:`.settings`), the models (:mod:`.models`), the one function that scopes
every query to the requesting team (:mod:`.scope`), thin views (:mod:`.views`), the job
queue with leases (:mod:`.jobs`) and the worker, a management command
(``validate_uploads``). :mod:`.serve` runs waitress and the workers together.

Nothing here imports Django at module level except the Django modules themselves, so that
``arena --help`` and the doctests of the plain modules need no configured settings.
"""
