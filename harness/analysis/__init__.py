"""Analysis stage: results CSVs in, what changed (compare) and what they show (report) out."""
