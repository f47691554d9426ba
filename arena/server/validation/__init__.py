"""The validation corridor: an upload from the queue to its verdict, in one folder.

* :mod:`.pipeline`: :func:`~.pipeline.validate` takes the archive, a work folder and the
  competition's :class:`~.rules.ValidationRules`, reports each step (:mod:`.report`) as it
  starts and ends, and returns a :class:`~.report.Verdict`; no Django there
  (:mod:`.match_step` plays the validation match; :func:`~.rules.rules_for_site` makes
  the rules from the site's settings);
* :mod:`.queue`: the ``bot_version`` table as the validation's queue, with leases; it
  records the validation's own step reports and verdict;
* :mod:`.worker`: the worker, which calls the pipeline directly, and the
  ``validate_uploads`` management command that runs it.
"""
