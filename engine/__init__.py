"""The dealer: pure, deterministic, standard library only.

Cards, a seeded deck, the hand evaluator, pots, betting rules, the hand state machine,
tables and blind schedules. No I/O, no clock, no global random: randomness comes from a
``random.Random`` passed in, time from a clock function passed in.
"""
