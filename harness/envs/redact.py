"""What a lock, a run.json or an install log may say of a package source: never the credentials in it.

An index URL may carry them (`https://user:token@host/simple`, as PIP_INDEX_URL or UV_INDEX_URL often do);
the process environment carries tokens (HF_TOKEN). A lock records sources, so it records them without the
user part; a text that may quote the environment (an install log) is scrubbed of every secret value it holds.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

REDACTED = "***"

# Variables whose whole value is a secret, and those holding URLs whose user part may be one.
SECRET_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN", "UV_INDEX_PASSWORD",
                    "UV_PUBLISH_PASSWORD", "UV_PUBLISH_TOKEN", "PIP_PASSWORD", "TWINE_PASSWORD")
URL_VARIABLES = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX",
                 "UV_DEFAULT_INDEX", "PIP_FIND_LINKS", "UV_FIND_LINKS")

_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^/@\s]+)@")


def redact_url(url: str) -> str:
    """`url` without its user:password part (`https://***@host/simple`); other URLs as they are."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{REDACTED}@{host}"))


def redact_text(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` with every URL's user part and every secret value of `environ` (default: os.environ) replaced."""
    environ = os.environ if environ is None else environ
    out = _USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)
    for value in secret_values(environ):
        out = out.replace(value, REDACTED)
    return out


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """The secret strings `environ` holds: token variables' values, URL variables' user parts (longest first)."""
    found = [environ[k] for k in SECRET_VARIABLES if environ.get(k)]
    for key in URL_VARIABLES:
        for url in (environ.get(key) or "").split():
            user = urlsplit(url).netloc.rpartition("@")[0]
            found += [user, *user.split(":")] if user else []
    # Short values (a one-letter user name) would blank unrelated text; a secret is never that short.
    return sorted({v for v in found if len(v) >= 4}, key=len, reverse=True)
