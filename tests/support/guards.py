"""How long a test lets a subprocess of the harness run before calling it hung.

A guard, not a speed target: what a command takes is judged in benchmarks/, never in a test. The guard must hold on
a healthy machine however busy: a fresh-clone CI beside a busy loop (its workers at nice 5 getting a third of a core
or less) ran the README's `report` example, 9 s on a quiet host with matplotlib building its font cache under an
empty HOME, past a 120 s guard. 900 s is 100 times that quiet figure.
"""

HANG_GUARD_S = 900
