"""Golden matches: hand histories recorded once, replayed byte for byte by the tests."""
