"""What is on record about WebShop's published data files, and where they can be downloaded from.

``webshop_data.json`` (beside this module) names each file's Google Drive id from WebShop's
``setup.sh``, its size and pinned SHA-256, and the public mirrors; :mod:`shopsim.simsite.fetch`
downloads against this record, and its failures are :class:`FetchError`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from shopsim.errors import ConfigError, DataError

__all__ = [
    "DRIVE", "DRIVE_URL", "MANIFEST_PATH", "DataManifest", "FetchError", "Mirror", "RemoteFile", "Source", "Verification",
    "default_sources", "load_manifest", "read_checksums", "select_files", "sha256_file", "source_from_url",
    "verification_level",
]

MANIFEST_PATH = Path(__file__).with_name("webshop_data.json")
DRIVE_URL = "https://drive.google.com/uc?export=download&id={id}"

Verification = Literal["sha256", "size+prefix", "unverified"]
_HEX = r"^[0-9a-f]+$"


class FetchError(DataError):
    """A download failed or a file did not verify; the message is one line naming the file.

    ``brief`` says the same in a few words after a source's name, for the line that switches sources.
    """

    def __init__(self, message: str, *, brief: str | None = None):
        super().__init__(message)
        self.brief = brief or message


class RemoteFile(BaseModel):
    """One published file and what is on record about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = ""
    drive_id: str
    sha256: str | None = Field(default=None, min_length=64, max_length=64, pattern=_HEX)
    size: int | None = Field(default=None, ge=0)
    sha256_prefix: str | None = Field(default=None, min_length=8, max_length=64, pattern=_HEX)
    note: str = ""


class Mirror(BaseModel):
    """A public copy of the files, tried after Google Drive; ``url`` is a template with ``{name}`` (or ``{id}``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    url: str
    note: str = ""

    @field_validator("url")
    @classmethod
    def _template(cls, url: str) -> str:
        if "{name}" not in url and "{id}" not in url:
            raise ValueError("a mirror url must contain {name} or {id}")
        return url


class DataManifest(BaseModel):
    """``webshop_data.json``: the sets WebShop's setup.sh knows, the mirrors, and each file's record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    source: str
    license: str
    provenance: str = ""
    mirrors: list[Mirror] = Field(default_factory=list)
    sets: dict[str, list[str]]
    files: dict[str, RemoteFile]


@dataclass(frozen=True)
class Source:
    """Somewhere to download from: ``label`` names it in messages; ``url`` is a base URL or a template."""

    label: str
    url: str

    def url_for(self, f: RemoteFile) -> str:
        """The URL this source serves ``f`` at (a ``{id}``/``{name}`` template, or ``URL/NAME``)."""
        if "{id}" in self.url or "{name}" in self.url:
            return self.url.replace("{id}", f.drive_id).replace("{name}", f.name)
        return f"{self.url.rstrip('/')}/{f.name}"


DRIVE = Source("Google Drive", DRIVE_URL)


def source_from_url(url: str) -> Source:
    """A ``--base-url``: labelled by host and path (up to a template field or an HF ``/resolve/``)."""
    parts = urlsplit(url)
    path = parts.path.split("{")[0].split("/resolve/")[0]
    return Source((parts.netloc + path).rstrip("/") or url, url)


def default_sources(manifest: DataManifest, which: Literal["drive", "mirrors", "all"] = "all") -> list[Source]:
    """Google Drive, then each mirror of the record, in order (or only one kind)."""
    drive = [DRIVE] if which in ("drive", "all") else []
    mirrors = [Source(m.name, m.url) for m in manifest.mirrors] if which in ("mirrors", "all") else []
    return drive + mirrors



def load_manifest(path: str | Path | None = None) -> DataManifest:
    """The packaged record (or another file in its format)."""
    p = Path(path) if path is not None else MANIFEST_PATH
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        manifest = DataManifest.model_validate(data)
    except (OSError, ValueError, ValidationError) as exc:
        raise DataError(f"{p}: not a data manifest ({str(exc).splitlines()[0][:200]})") from None
    files = {name: f.model_copy(update={"name": name}) for name, f in manifest.files.items()}
    return manifest.model_copy(update={"files": files})


def read_checksums(path: str | Path) -> dict[str, str]:
    """``{name: sha256}`` from a ``sha256sum`` file (``HEX  NAME`` or ``HEX *NAME`` lines)."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--checksums {p}: cannot read it ({exc.__class__.__name__})") from None
    out: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^([0-9a-fA-F]{64}) [ *](.+)$", line.strip())
        if m is None:
            raise ConfigError(f"--checksums {p}, line {number}: expected '<64 hex digits>  <file name>'")
        out[Path(m.group(2).strip()).name] = m.group(1).lower()
    return out


def select_files(manifest: DataManifest, set_name: str, pins: dict[str, str] | None = None) -> list[RemoteFile]:
    """A set's files, with ``pins`` (from :func:`read_checksums`) replacing what is on record."""
    if set_name not in manifest.sets:
        raise ConfigError(f"--set {set_name!r}: choose one of {', '.join(manifest.sets)}")
    files = []
    for name in manifest.sets[set_name]:
        f = manifest.files[name]
        if pins and name in pins:  # a pin replaces the whole record
            f = f.model_copy(update={"sha256": pins[name], "size": None, "sha256_prefix": None})
        files.append(f)
    return files


def verification_level(f: RemoteFile) -> Verification:
    """How strongly a download of ``f`` can be checked."""
    if f.sha256:
        return "sha256"
    if f.size is not None and f.sha256_prefix:
        return "size+prefix"
    return "unverified"


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()
