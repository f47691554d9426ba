"""The site as a Django application (label ``arena_server``): teams and their members, API
tokens, bot versions and their validation steps, matches, the leaderboard.

The parts that need no HTTP and no database are plain modules tested alone: API tokens
(:mod:`.tokens`), the log-in limit (:mod:`.ratelimit`), what a team may see of a hand
(:mod:`.visibility`). The domain rules over the rows are plain functions the views, the
API and the admin share: storing and activating versions (:mod:`.versions`), a match's data
and hand viewer (:mod:`.matches`), the hands a team downloads (:mod:`.downloads`), importing
a tournament (:mod:`.importer`). Django's parts: the models (:mod:`.models`), the one
function that scopes every query to the requesting team (:mod:`.scope`), thin views
(:mod:`.views`), the admin (:mod:`.admin`).
"""
