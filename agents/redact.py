"""Keep secrets (API keys, tokens, passwords) out of everything a run writes.

Two layers, because a key can leak two ways: under its own name (``agent_options["api_key"]`` in
``config.json`` or the run metadata), and as a bare value that ends up in text (an error message
that echoes the key, a model that types it into a search box). :func:`redact_mapping` replaces the
value of every key that *looks* secret with ``"***"``; :class:`Scrubber` remembers the secret
values themselves (from agent options and from the environment) and replaces them wherever they
occur, case-insensitively and URL-encoded too, in text, JSON lines and Playwright trace zips.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

__all__ = ["MASK", "Scrubber", "is_secret_key", "redact_mapping", "shopsim_env"]

MASK = "***"
#: Name parts that mark a secret (``api_key``, ``OPENAI_API_KEY``, ``accessToken``, ``db_password``...).
#: ``tokens`` (plural, a count such as ``max_tokens``) is not one.
#: Not ``pwd`` (the shell's working directory) nor ``private`` alone (``private_key`` has ``key``).
_SECRET_PARTS = frozenset({
    "key", "apikey", "token", "secret", "password", "passwd", "passphrase", "authorization", "auth",
    "bearer", "credential", "credentials", "cookie", "signature",
})
_MIN_SECRET_LEN = 6  # shorter values ("1", "yes") would scrub innocent text and protect nothing
_ENV_PREFIXES = ("SHOPSIM_", "OPENAI_")


def _parts(key: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key)  # camelCase -> camel_Case
    return [p for p in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if p]


def is_secret_key(key: str) -> bool:
    """Whether a setting named ``key`` holds a secret (by its name, never by its value)."""
    parts = _parts(str(key))
    return any(p in _SECRET_PARTS for p in parts) or "apikey" in "".join(parts)


def redact_mapping(values: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``values`` with every secret-looking key's value replaced by ``"***"`` (nested too)."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if is_secret_key(k) and v not in (None, ""):
            out[k] = MASK
        elif isinstance(v, Mapping):
            out[k] = redact_mapping(v)
        else:
            out[k] = v
    return out


def shopsim_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment settings shopsim reads (``SHOPSIM_*``, ``OPENAI_*``), secrets redacted, by name."""
    env = os.environ if environ is None else environ
    return redact_mapping({k: env[k] for k in sorted(env) if k.startswith(_ENV_PREFIXES)})


class Scrubber:
    """Replaces known secret values with ``"***"`` wherever they appear.

    Built from the agent's options and the environment: every value under a secret-looking name
    (at least 6 characters) is a secret. Matching ignores case and also finds the URL-encoded forms
    (a key typed into a search box travels in URLs).
    """

    def __init__(self, secrets: Iterable[str] = ()):
        found: set[str] = set()
        for s in secrets:
            s = str(s)
            if len(s) >= _MIN_SECRET_LEN:
                found.update({s, quote(s, safe=""), quote_plus(s)})
        self.secrets = sorted(found, key=len, reverse=True)
        self._pattern = (re.compile("|".join(re.escape(s) for s in self.secrets), re.IGNORECASE)
                         if self.secrets else None)

    @classmethod
    def for_run(cls, options: Mapping[str, Any] | None = None,
                environ: Mapping[str, str] | None = None) -> Scrubber:
        """The secrets of a run: secret-named agent options and secret-named environment variables."""
        env = os.environ if environ is None else environ
        values = [str(v) for k, v in (options or {}).items() if is_secret_key(k) and v]
        values += [v for k, v in env.items() if is_secret_key(k) and v]
        return cls(values)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by ``"***"``."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)

    def data(self, value: Any) -> Any:
        """A JSON-like value with every string scrubbed (keys included)."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value

    def zip_file(self, path: str | os.PathLike[str]) -> bool:
        """Scrub every member of a zip (a Playwright trace) in place; True when anything changed.

        Members are bytes; they are decoded as UTF-8 where they are text (trace events, DOM
        snapshots, network logs) and left alone otherwise (screenshots hold pixels, not text).
        """
        if self._pattern is None:
            return False
        path = Path(path)
        changed = False
        fd, tmp_name = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
                for info in src.infolist():
                    data = src.read(info)
                    try:
                        text = data.decode("utf-8")
                    except UnicodeDecodeError:
                        text = None
                    if text is not None and self._pattern.search(text):
                        data = self.text(text).encode("utf-8")
                        changed = True
                    dst.writestr(info, data)
            if changed:
                shutil.move(str(tmp), str(path))
        finally:
            tmp.unlink(missing_ok=True)
        return changed
