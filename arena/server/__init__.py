"""The competition web site (``arena server``): teams upload bots, each upload is checked
in the sandbox, everyone sees the results.

A Django project beside its applications, as a Django site is laid out: this folder holds
the project (the settings built from the site folder, the URLs, the WSGI entry, ``manage``,
the start-up, ``init`` and ``run``, the middleware), the plain modules every part shares,
and three applications:

* :mod:`.site`: the site itself: teams, tokens, versions and their verdicts, matches and
  their hands, the leaderboard, the admin, the views (Django label ``arena_server``);
* :mod:`.validation`: the validation corridor: the pure validation of an upload, its queue
  over the ``bot_version`` table, the ``validate_uploads`` worker;
* :mod:`.ladder`: the ladder: its games, ratings, promotion tests, finals and worker.

Imports point one way, down this table of the server's parts (``tests/test_architecture.py``
reads it from here, as it reads the arena's): the project at the top, then the
applications, then the shared base modules. Each part may import itself and the parts
listed after its name::

    site_folder:   (nothing)
    competition:   (nothing)
    lifeline:      (nothing)
    jobs:          lifeline
    django_start:  site_folder
    current:       competition
    overview:      competition
    site:          current, competition, overview, django_start, site_folder
    validation:    site, jobs, competition
    ladder:        site, jobs, current, competition, overview
    middleware:    (nothing)
    settings:      site_folder
    urls:          site, ladder
    wsgi:          site, django_start
    manage:        django_start
    conftest:      django_start
    init_site:     site, competition, site_folder, django_start
    serve:         wsgi, site, jobs, lifeline, site_folder, django_start
    worker_folder: site_folder

The base modules: :mod:`.site_folder` (what a site keeps on disk), :mod:`.competition`
(the competition file), :mod:`.current` (the competition as its file says now, parsed
again only when it changes, and its deadline, when uploads freeze), :mod:`.jobs` (the job
queue with leases and the workers' loop, for the validation and the ladder alike; a Django
application of its own only for the table of the workers' records, shown in the admin),
:mod:`.overview` (the rules a bot plays under as the overview page says them, the starter
bots),
:mod:`.lifeline` (a worker dies with ``arena server run``), :mod:`.worker_folder` (a
worker machine's folder, made by ``arena server join``), :mod:`.django_start` (Django
started once per process).

Nothing here imports Django at module level except the Django modules themselves, so that
``arena --help`` and the doctests of the plain modules need no configured settings.
"""
