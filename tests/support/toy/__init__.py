"""A toy third engine, defined entirely under tests/: proves the engine seam needs no harness change."""
