"""Helpers the test modules share (one home for them; no test module imports another)."""
