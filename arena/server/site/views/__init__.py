"""The site's views: thin. Each reads the request, calls a plain function (or a query of
:func:`arena.server.site.scope.visible`) and renders; no rule lives here."""
