"""A release's wheel, without its dependencies: what reading a release's source (flags, log formats) starts from."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def download_release_wheel(distribution: str, version: str, dest: Path) -> Path:
    """The release's wheel (no dependencies), fetched by pip into `dest`."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-q",
           "-d", str(dest), f"{distribution}=={version}"]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True)
    wheels = sorted(dest.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        tail = ([line for line in (done.stderr or done.stdout).strip().splitlines() if "ignored" not in line][-1:]
                or ["no wheel"])
        raise RuntimeError(f"pip download {distribution}=={version}: {tail[0]}")
    return wheels[0]
