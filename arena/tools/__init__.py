"""Commands built on a match: ``check-bot`` (a bot's conformance check), ``replay`` (a
recorded match played again through a recorded-reply decider) and the terminal results
table."""
