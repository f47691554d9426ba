"""The watchdog: one bot seen through one session (asking, retries, the default action,
time limits and the time bank, the fault ledger) and the channel that frames and
encodes the lines sent to it; and the match's secret draws from the mixed strategies bots
report (:mod:`arena.session.draws`)."""
