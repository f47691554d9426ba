"""The competition web site (``arena server``): teams upload bots, each upload is checked
in the sandbox, everyone sees the results.

A small Django project. The parts that need no HTTP and no database are plain modules
tested alone: the competition file (:mod:`.competition`), the site folder (:mod:`.site`),
API tokens (:mod:`.tokens`), the log-in limit (:mod:`.ratelimit`), what a team may see of
a hand (:mod:`.visibility`). The domain rules over the rows are plain functions the views,
the API and the admin share: storing and activating versions (:mod:`.versions`), a match's
data and hand viewer (:mod:`.matches`), the hands a team downloads (:mod:`.downloads`),
importing a tournament (:mod:`.importer`), the validation queue with its leases
(:mod:`.jobs`). Django's parts: the settings built from the site folder
(:mod:`.settings`), the competition as its file says now and its deadline
(:mod:`.current`), the models (:mod:`.models`), the one function that scopes every query
to the requesting team (:mod:`.scope`), thin views (:mod:`.views`), the admin
(:mod:`.admin`), the worker (the ``validate_uploads`` management command, which calls the
validation through :mod:`.pipeline`). :mod:`.serve` runs waitress and the workers together;
:mod:`.init_site` makes a site. The validation itself is :mod:`.validation`, the ladder
:mod:`.ladder`.

Nothing here imports Django at module level except the Django modules themselves, so that
``arena --help`` and the doctests of the plain modules need no configured settings.
"""
