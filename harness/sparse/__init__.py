"""A sweep whose cost grows slower than its points (`run --sparse`).

Per group of points that share engine, release, model, device and fixed arguments (`groups`): predict every
point, launch the few that pin the formulas' unknown terms (`terms`), calibrate, bound every other point's
prediction by the fit's residuals and the terms it could not pin (`bounds`), launch where the bound is wider
than the tolerance or the outcome is undecided, and repeat (`loop`). Every point ends as a row: measured, or
predicted with its bound and no log (`rows`).
"""
