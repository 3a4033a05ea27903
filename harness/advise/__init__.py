"""`advise`: settings that meet a KV target, proposed by the predictor and confirmed in a few real launches.

`search` decides (pure), `loop` launches and recalibrates, `render` says the answer.
"""
