"""What a run leaves on disk: the names of a run folder's files (:mod:`.run_folder`), a
match's ``hands.jsonl`` and ``results.json`` written (:mod:`.jsonl`) and the hand history
read back by its one reader (:mod:`.hand_log`), and a tournament's results database
(:mod:`.sqlite`, with its connection, rows and schema) with the outcome type it stores
(:mod:`.outcome`). The store imports no type of the match: the match's ``ResultStore``
protocol (:mod:`arena.match.store`) is what the writer fits."""
