"""Download WebShop's published data files: resumable, with a progress bar, checked against pinned checksums.

Where the files come from: WebShop's ``setup.sh`` (princeton-nlp/WebShop) fetches each file by its
Google Drive id with gdown. The ids, and what is on record about each file, are in
``webshop_data.json`` beside this module; shopsim ships no data.

* **Resumable:** bytes go to ``NAME.part``; a later run (or a retry after a dropped connection) asks
  for the rest with an HTTP ``Range`` request and appends. A server that ignores the range (200)
  restarts the file; the finished file is renamed into place only after it verifies.
* **Checked:** a file with a pinned SHA-256 must match it; one with only its size and a SHA-256
  prefix on record must match those; a file with nothing on record is refused unless the caller
  trusts it (``trust_unverified``), and its SHA-256 is reported so it can be pinned
  (``--checksums FILE`` in ``sha256sum`` format adds or replaces pins). A mismatch deletes the download.
* **Google Drive:** a large file first answers with a "can't scan this file for viruses" page; the
  confirmation (a form, a ``confirm=`` link, or a ``download_warning`` cookie) is followed. A quota page
  ("too many users have downloaded this file") is reported as such.
* ``base_url`` replaces Google Drive: ``URL/NAME`` for a plain mirror, or a template with ``{id}`` /
  ``{name}`` (how the tests point it at a local server).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from shopsim.errors import ConfigError, DataError
from shopsim.simsite.fetch_progress import Progress, human_bytes

__all__ = [
    "DRIVE_URL",
    "MANIFEST_PATH",
    "DataManifest",
    "FetchError",
    "Fetched",
    "Progress",
    "RemoteFile",
    "drive_confirm_url",
    "fetch_files",
    "load_manifest",
    "read_checksums",
    "select_files",
    "sha256_file",
    "verification_level",
]

MANIFEST_PATH = Path(__file__).with_name("webshop_data.json")
DRIVE_URL = "https://drive.google.com/uc?export=download&id={id}"
CHUNK = 1 << 16
#: A confirmation page is small; anything larger is not one and is not read into memory.
MAX_PAGE_BYTES = 2 << 20
Verification = Literal["sha256", "size+prefix", "unverified"]
_HEX = r"^[0-9a-f]+$"


class FetchError(DataError):
    """A download failed or a file did not verify; the message is one line naming the file."""


class RemoteFile(BaseModel):
    """One published file and what is on record about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = ""
    drive_id: str
    sha256: str | None = Field(default=None, min_length=64, max_length=64, pattern=_HEX)
    size: int | None = Field(default=None, ge=0)
    sha256_prefix: str | None = Field(default=None, min_length=8, max_length=64, pattern=_HEX)
    note: str = ""


class DataManifest(BaseModel):
    """``webshop_data.json``: the sets WebShop's setup.sh knows and each file's record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    source: str
    license: str
    sets: dict[str, list[str]]
    files: dict[str, RemoteFile]


@dataclass(frozen=True)
class Fetched:
    """What one file ended as."""

    name: str
    path: Path
    size: int
    sha256: str
    verified: Verification
    resumed_from: int = 0
    already_there: bool = False


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
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _verify(f: RemoteFile, path: Path) -> tuple[str, Verification]:
    """The file's SHA-256 and level, or FetchError naming what did not match."""
    size, digest = path.stat().st_size, sha256_file(path)
    level = verification_level(f)
    if f.size is not None and size != f.size:
        raise FetchError(f"{f.name}: {size} bytes, but the published file has {f.size}")
    if f.sha256 and digest != f.sha256:
        raise FetchError(f"{f.name}: SHA-256 {digest[:16]}... does not match the pinned {f.sha256[:16]}...")
    if not f.sha256 and f.sha256_prefix and not digest.startswith(f.sha256_prefix):
        raise FetchError(f"{f.name}: SHA-256 {digest[:16]}... does not start with the recorded {f.sha256_prefix}")
    return digest, level


# ---- downloading ----------------------------------------------------------------------------------------
class _Retry(Exception):
    """A failure worth another try (dropped connection, 5xx, 429); the message says what happened."""


def _url_for(f: RemoteFile, base_url: str | None) -> str:
    if base_url is None:
        return DRIVE_URL.format(id=f.drive_id)
    if "{id}" in base_url or "{name}" in base_url:
        return base_url.replace("{id}", f.drive_id).replace("{name}", f.name)
    return f"{base_url.rstrip('/')}/{f.name}"


def _with_query(url: str, extra: dict[str, str]) -> str:
    parts = urlsplit(url)
    query = "&".join(q for q in (parts.query, urlencode(extra)) if q)
    return urlunsplit(parts._replace(query=query))


def drive_confirm_url(page: str, url: str, cookies: httpx.Cookies | None = None) -> str | None:
    """Where Google Drive's "can't scan this file for viruses" page sends the browser, if it is one."""
    tree = HTMLParser(page)
    for form in tree.css("form"):
        action = form.attributes.get("action") or ""
        if form.attributes.get("id") == "download-form" or "download" in action:
            fields = {i.attributes.get("name") or "": i.attributes.get("value") or ""
                      for i in form.css("input[type=hidden]") if i.attributes.get("name")}
            return _with_query(urljoin(url, action or url), fields)
    for link in tree.css("a[href]"):
        href = link.attributes.get("href") or ""
        if "confirm=" in href:
            return urljoin(url, href)
    for name, value in (cookies or {}).items():
        if name.startswith("download_warning"):
            return _with_query(url, {"confirm": value})
    return None


def _page_error(f: RemoteFile, page: str) -> FetchError:
    tree = HTMLParser(page)
    text = (tree.body.text(separator=" ") if tree.body is not None else "").lower()
    if "too many users" in text or "quota" in text:
        return FetchError(f"{f.name}: Google Drive refuses: too many downloads of this file recently; try again later, "
                          f"or download https://drive.google.com/uc?id={f.drive_id} by hand into the folder")
    node = tree.css_first("title")
    title = " ".join(node.text().split())[:80] if node is not None else ""
    return FetchError(f"{f.name}: the server answered with a web page ({title or 'no title'}), not the file")


def _content_range_start(value: str | None) -> tuple[int, int | None] | None:
    m = re.match(r"^bytes (\d+)-\d+/(\d+|\*)$", (value or "").strip())
    if m is None:
        return None
    return int(m.group(1)), (int(m.group(2)) if m.group(2) != "*" else None)


def _get_once(client: httpx.Client, f: RemoteFile, url: str, part: Path, progress: Progress) -> int:
    """One attempt: request the rest of ``part`` and append it. Returns the offset it resumed at."""
    have = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    target = url
    for _ in range(4):  # a confirmation page or two, then the file
        with client.stream("GET", target, headers=headers, follow_redirects=True) as r:
            if r.status_code == 429 or r.status_code >= 500:
                raise _Retry(f"HTTP {r.status_code} from {_short(target)}")
            if r.status_code == 416 and have:
                return have  # nothing left to fetch: the part is complete (verification decides)
            if r.status_code >= 400:
                raise FetchError(f"{f.name}: HTTP {r.status_code} from {_short(target)}")
            if r.headers.get("content-type", "").startswith("text/html"):
                page = _read_page(r)
                if page.lstrip().startswith("<"):
                    nxt = drive_confirm_url(page, str(r.url), r.cookies)
                    if nxt is None:
                        raise _page_error(f, page)
                    target = nxt
                    continue
                raise FetchError(f"{f.name}: served as text/html; is {_short(target)} the file?")
            return _write(r, f, part, have, progress)
    raise FetchError(f"{f.name}: more than three confirmation pages from {_short(url)}")


def _read_page(r: httpx.Response) -> str:
    data = b""
    for chunk in r.iter_bytes(CHUNK):
        data += chunk
        if len(data) > MAX_PAGE_BYTES:
            break
    return data[:MAX_PAGE_BYTES].decode("utf-8", "replace")


def _write(r: httpx.Response, f: RemoteFile, part: Path, have: int, progress: Progress) -> int:
    if r.status_code == 206:
        got = _content_range_start(r.headers.get("content-range"))
        if got is None or got[0] != have:
            part.unlink(missing_ok=True)  # an answer for another range: start over rather than guess
            raise _Retry(f"the server resumed at the wrong offset ({r.headers.get('content-range')!r})")
        total, mode, resumed = got[1], "ab", have
    else:  # 200: the whole file (a server without ranges restarts it)
        length = r.headers.get("content-length")
        total = int(length) if length and length.isdigit() else None
        mode, resumed, have = "wb", 0, 0
    total = total if total is not None else f.size
    progress.start(f.name, have, total)
    written = have
    try:
        with open(part, mode) as out:
            for chunk in r.iter_bytes(CHUNK):
                out.write(chunk)
                written += len(chunk)
                progress.advance(len(chunk))
    except httpx.TransportError as exc:
        raise _Retry(f"connection lost after {human_bytes(written)} ({type(exc).__name__})") from None
    if total is not None and written < total:
        raise _Retry(f"connection closed after {human_bytes(written)} of {human_bytes(total)}")
    progress.finish()
    return resumed


def _short(url: str) -> str:
    return url if len(url) <= 100 else url[:97] + "..."


def _download(client: httpx.Client, f: RemoteFile, url: str, part: Path, progress: Progress, *, retries: int,
              retry_wait: float, sleep: Callable[[float], None]) -> int:
    """Fetch ``f`` into ``part``, retrying (and resuming) on dropped connections and server errors.

    Returns the offset the successful attempt resumed at (0: it fetched the whole file).
    """
    why = "no attempt made"
    for attempt in range(retries + 1):
        try:
            return _get_once(client, f, url, part, progress)
        except httpx.TransportError as exc:
            why = f"{type(exc).__name__}: {str(exc)[:120] or 'no detail'}"
        except _Retry as exc:
            why = str(exc)
        if progress.live:
            progress.stream.write("\n")
        if attempt < retries:
            progress.stream.write(f"{f.name}: {why}; retrying ({attempt + 1} of {retries})\n")
            sleep(retry_wait * 2 ** attempt)
    have = part.stat().st_size if part.exists() else 0
    raise FetchError(f"{f.name}: {why}; gave up after {retries} retries (run again to resume from {human_bytes(have)})")


def fetch_files(
    files: list[RemoteFile],
    out: str | Path,
    *,
    base_url: str | None = None,
    trust_unverified: bool = False,
    client: httpx.Client | None = None,
    retries: int = 4,
    retry_wait: float = 1.0,
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> list[Fetched]:
    """Download ``files`` into ``out`` (skipping ones already there and verified); see the module doc."""
    unverified = [f.name for f in files if verification_level(f) == "unverified"]
    if unverified and not trust_unverified:
        raise ConfigError(f"no checksum on record for {', '.join(unverified)}: pass --trust-unverified to download "
                          "unverified (the SHA-256 is printed so you can pin it with --checksums FILE)")
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {folder}: cannot create it ({exc.strerror or exc})") from None
    progress = progress or Progress()
    own = client is None
    client = client or httpx.Client(timeout=httpx.Timeout(60.0, connect=20.0),
                                    headers={"User-Agent": "shopsim-data-fetch"})
    results: list[Fetched] = []
    try:
        for f in files:
            final, part = folder / f.name, folder / f"{f.name}.part"
            if final.exists():
                try:
                    digest, level = _verify(f, final)
                    results.append(Fetched(f.name, final, final.stat().st_size, digest, level, already_there=True))
                    continue
                except FetchError as exc:
                    progress.stream.write(f"{exc}; downloading it again\n")
                    final.unlink()
            resumed = _download(client, f, _url_for(f, base_url), part, progress, retries=retries,
                                retry_wait=retry_wait, sleep=sleep)
            try:
                digest, level = _verify(f, part)
            except FetchError as exc:
                part.unlink(missing_ok=True)
                raise FetchError(f"{exc} (download deleted; run again to fetch it afresh)") from None
            os.replace(part, final)
            results.append(Fetched(f.name, final, final.stat().st_size, digest, level, resumed_from=resumed))
    finally:
        if own:
            client.close()
    return results
