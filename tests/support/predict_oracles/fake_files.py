"""Oracle helper: serve described host files in place of /sys and cgroup files for an engine's own readers."""

import builtins
import io
import os

REAL_OPEN = builtins.open
FAKED = ("/sys/devices/system/node/", "/sys/fs/cgroup")


class FakeFiles:
    """`with FakeFiles({path: text}):` opens those paths as text; other /sys node and cgroup files do not exist."""

    def __init__(self, files: dict):
        self.files = files

    def open(self, path, *args, **kwargs):
        path = os.fspath(path)
        if path in self.files:
            return io.StringIO(self.files[path])
        if path.startswith(FAKED):
            raise FileNotFoundError(path)
        return REAL_OPEN(path, *args, **kwargs)

    def exists(self, path):
        path = os.fspath(path)
        return path in self.files if path.startswith(FAKED) else os.path.lexists(path)

    def __enter__(self):
        builtins.open = self.open
        return self

    def __exit__(self, *exc):
        builtins.open = REAL_OPEN
