"""Download WebShop's published data files: resumable, with a progress bar, checked against pinned checksums.

Where the files come from: WebShop's ``setup.sh`` (princeton-nlp/WebShop) fetches each file by its
Google Drive id with gdown; Drive often refuses today (404, quota pages), so two public Hugging Face
mirrors, pinned to one revision each, follow it. The ids, mirrors, sizes and SHA-256s are in
``webshop_data.json`` beside this module; shopsim ships no data.

* **Sources in order:** a file that fails on one source (after its retries, a 4xx, a quota or error
  page, bytes that do not verify) is tried on the next, with one line saying so. The ``.part`` carries
  over, so the next source resumes it; the end result is checked against the same pin whichever
  sources supplied the bytes, so mixing them is safe.
* **Resumable:** bytes go to ``NAME.part``; a later run (or a retry after a dropped connection) asks
  for the rest with an HTTP ``Range`` request and appends. A server that ignores the range (200)
  restarts the file; the finished file is renamed into place only after it verifies.
* **Checked:** against a pinned SHA-256 (and the size, checked before a byte is written), or a size and
  SHA-256 prefix; a file with nothing on record needs ``trust_unverified`` and its SHA-256 is reported
  (``--checksums FILE``, ``sha256sum`` format, adds or replaces pins). A mismatch deletes the download.
* **Bounded:** each source gets a connect timeout, a read timeout (seconds without a byte), a minimum
  rate (bytes a second, averaged over the read timeout) and an optional total time per file
  (:class:`Limits`); a source that breaks one is *stalled* and the next source takes over (the ``.part``
  carries over). A body longer than the recorded size is cut off at that size (verification decides).
* **Inside ``out``:** file names are plain names; ``NAME.part`` and ``NAME`` are opened without following
  symlinks (``O_NOFOLLOW``, and ``O_EXCL`` for a fresh ``.part``), so a planted link is refused, never
  written through.
* **Google Drive:** a large file first answers with a "can't scan this file for viruses" page; the
  confirmation (a form, a ``confirm=`` link, or a ``download_warning`` cookie) is followed. A quota page
  ("too many users have downloaded this file") is reported as such.
* :func:`~shopsim.simsite.fetch_record.source_from_url` turns a URL into a source: ``URL/NAME`` for a
  plain mirror, or a template with ``{id}`` / ``{name}`` (how the tests point it at local servers).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit

import httpx
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from shopsim.errors import ConfigError
from shopsim.progress import DownloadProgress, human_bytes
from shopsim.simsite.fetch_local import held_size, open_part, target_paths, verify, verify_or_delete
from shopsim.simsite.fetch_record import (
    FetchError,
    RemoteFile,
    Source,
    Verification,
    default_sources,
    load_manifest,
    verification_level,
)

__all__ = ["Fetched", "Limits", "drive_confirm_url", "fetch_files"]

#: A confirmation page is small; anything larger is not one and is not read into memory.
MAX_PAGE_BYTES = 2 << 20
#: A file pinned only by its SHA-256 (``--checksums``) has no size on record: its body is cut off here
#: (the largest published file, ``items_shuffle.json``, is 5.5 GB).
MAX_UNSIZED_BYTES = 8 << 30


@dataclass(frozen=True)
class Limits:
    """How long one source may take over one file before it counts as stalled and the next is tried.

    ``read``: seconds without a byte; ``min_rate``: bytes a second, averaged over each ``read`` seconds
    (a mirror that drips a byte a second never hits a read timeout); ``total``: seconds per file per
    source (None: no limit beyond the rate).
    """

    connect: float = 20.0
    read: float = 30.0
    min_rate: float = 1024.0
    total: float | None = None

    def timeout(self) -> httpx.Timeout:
        """The client's timeouts (the rate and total time are checked as bytes arrive)."""
        return httpx.Timeout(self.read, connect=self.connect)

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
    source: str = ""  # the label of the source that finished the download


# ---- downloading ----------------------------------------------------------------------------------------
class _Retry(Exception):
    """A failure worth another try (dropped connection, 5xx, 429); the message says what happened."""


def _stalled(f: RemoteFile, url: str, why: str) -> FetchError:
    """A source too slow to wait for: not retried, the next source takes over."""
    return FetchError(f"{f.name}: {_short(url)} stalled ({why})", brief=f"stalled ({why})")


class _Meter:
    """Raises when a body arrives slower than ``limits`` allow: under the minimum rate, or past the total time."""

    def __init__(self, f: RemoteFile, url: str, limits: Limits, clock: Callable[[], float] = time.monotonic):
        self.f, self.url, self.limits, self.clock = f, url, limits, clock
        self.start = self.mark = clock()
        self.bytes = self.mark_bytes = 0

    def add(self, n: int) -> None:
        self.bytes += n
        now, lim = self.clock(), self.limits
        if lim.total is not None and now - self.start > lim.total:
            raise _stalled(self.f, self.url, f"not done after {lim.total:g} s")
        if now - self.mark >= lim.read:
            rate = (self.bytes - self.mark_bytes) / (now - self.mark)
            if rate < lim.min_rate:
                raise _stalled(self.f, self.url, f"{rate:.0f} bytes/s over {now - self.mark:.0f} s, "
                                                 f"under the minimum {lim.min_rate:g}")
            self.mark, self.mark_bytes = now, self.bytes


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
                          f"or download https://drive.google.com/uc?id={f.drive_id} by hand into the folder",
                          brief="refused: quota exceeded (too many downloads of this file recently)")
    node = tree.css_first("title")
    title = " ".join(node.text().split())[:80] if node is not None else ""
    return FetchError(f"{f.name}: the server answered with a web page ({title or 'no title'}), not the file",
                      brief=f"answered with a web page ({title or 'no title'}), not the file")


def _content_range_start(value: str | None) -> tuple[int, int | None] | None:
    m = re.match(r"^bytes (\d+)-\d+/(\d+|\*)$", (value or "").strip())
    if m is None:
        return None
    return int(m.group(1)), (int(m.group(2)) if m.group(2) != "*" else None)


def _get_once(client: httpx.Client, f: RemoteFile, url: str, part: Path, progress: DownloadProgress,
              limits: Limits) -> int:
    """One attempt: request the rest of ``part`` and append it. Returns the offset it resumed at."""
    have = held_size(part)
    headers = {"Accept-Encoding": "identity"}  # byte ranges and sizes of the file itself, not of a gzip stream
    if have:
        headers["Range"] = f"bytes={have}-"
    target = url
    for _ in range(4):  # a confirmation page or two, then the file
        with client.stream("GET", target, headers=headers, follow_redirects=True) as r:
            if r.status_code == 429 or r.status_code >= 500:
                raise _Retry(f"HTTP {r.status_code} from {_short(target)}")
            if r.status_code == 416 and have:
                if f.size is None or have >= f.size:
                    return have  # nothing left to fetch: the part is complete (verification decides)
                # this source's file is shorter than the bytes already held: the source is wrong, not the part
                raise FetchError(f"{f.name}: {_short(target)} refused the range from byte {have} of {f.size}",
                                 brief=f"refused the range from byte {have} (its file is shorter)")
            if r.status_code >= 400:
                raise FetchError(f"{f.name}: HTTP {r.status_code} from {_short(target)}",
                                 brief=f"answered {r.status_code}")
            if r.headers.get("content-type", "").startswith("text/html"):
                page = _read_page(r, _Meter(f, target, limits))
                if page.lstrip().startswith("<"):
                    nxt = drive_confirm_url(page, str(r.url), r.cookies)
                    if nxt is None:
                        raise _page_error(f, page)
                    target = nxt
                    continue
                raise FetchError(f"{f.name}: served as text/html; is {_short(target)} the file?",
                                 brief="served text/html, not the file")
            return _write(r, f, part, have, progress, _Meter(f, target, limits))
    raise FetchError(f"{f.name}: more than three confirmation pages from {_short(url)}",
                     brief="sent more than three confirmation pages")


def _read_page(r: httpx.Response, meter: _Meter) -> str:
    data = b""
    for chunk in r.iter_bytes():
        data += chunk
        meter.add(len(chunk))
        if len(data) > MAX_PAGE_BYTES:
            break
    return data[:MAX_PAGE_BYTES].decode("utf-8", "replace")


def _write(r: httpx.Response, f: RemoteFile, part: Path, have: int, progress: DownloadProgress, meter: _Meter) -> int:
    if r.status_code == 206:
        got = _content_range_start(r.headers.get("content-range"))
        if got is None or got[0] != have:
            part.unlink(missing_ok=True)  # an answer for another range: start over rather than guess
            raise _Retry(f"the server resumed at the wrong offset ({r.headers.get('content-range')!r})")
        total, append, resumed = got[1], True, have
    else:  # 200: the whole file (a server without ranges restarts it)
        length = r.headers.get("content-length")
        total = int(length) if length and length.isdigit() else None
        append, resumed, have = False, 0, 0
    if total is not None and f.size is not None and total != f.size and _identity(r):
        raise FetchError(f"{f.name}: {total} bytes, but the published file has {f.size}",
                         brief=f"serves {total} bytes, but the published file has {f.size}")
    total = total if total is not None else f.size
    cap = f.size if f.size is not None else MAX_UNSIZED_BYTES  # never more than the pin on disk
    progress.start(f.name, have, total)
    written = have
    try:
        with open_part(f, part, append) as out:
            for chunk in r.iter_bytes():  # as the bytes arrive, so a drip is measured, not buffered
                chunk = chunk[: max(0, cap - written)]
                out.write(chunk)
                written += len(chunk)
                progress.advance(len(chunk))
                if written >= cap:
                    break  # a longer body is cut off at the recorded size; verification decides
                meter.add(len(chunk))
    except httpx.ReadTimeout:
        raise _stalled(f, str(r.url), f"no byte for {meter.limits.read:g} s") from None
    except httpx.TransportError as exc:
        raise _Retry(f"connection lost after {human_bytes(written)} ({type(exc).__name__})") from None
    if total is not None and written < total:
        raise _Retry(f"connection closed after {human_bytes(written)} of {human_bytes(total)}")
    progress.finish()
    return resumed


def _identity(r: httpx.Response) -> bool:
    return r.headers.get("content-encoding", "identity").strip().lower() in ("", "identity")


def _short(url: str) -> str:
    return url if len(url) <= 100 else url[:97] + "..."


def _download(client: httpx.Client, f: RemoteFile, url: str, part: Path, progress: DownloadProgress, *, retries: int,
              retry_wait: float, sleep: Callable[[float], None], limits: Limits) -> int:
    """Fetch ``f`` into ``part``, retrying (and resuming) on dropped connections and server errors.

    Returns the offset the successful attempt resumed at (0: it fetched the whole file).
    """
    why = "no attempt made"
    for attempt in range(retries + 1):
        try:
            return _get_once(client, f, url, part, progress, limits)
        except httpx.ReadTimeout:
            progress.interrupt()
            raise _stalled(f, url, f"no byte for {limits.read:g} s") from None
        except httpx.TransportError as exc:
            why = f"{type(exc).__name__}: {str(exc)[:120] or 'no detail'}"
        except httpx.RequestError as exc:  # a redirect loop, an undecodable body: not worth retrying here
            raise FetchError(f"{f.name}: {type(exc).__name__}: {str(exc)[:120] or 'no detail'}",
                             brief=f"failed ({type(exc).__name__})") from None
        except _Retry as exc:
            why = str(exc)
        except FetchError:
            progress.interrupt()
            raise
        progress.interrupt()
        if attempt < retries:
            progress.say(f"{f.name}: {why}; retrying ({attempt + 1} of {retries})")
            sleep(retry_wait * 2 ** attempt)
    have = held_size(part)
    raise FetchError(f"{f.name}: {why}; gave up after {retries} retries (run again to resume from {human_bytes(have)})",
                     brief=f"gave up after {retries} retries ({why})")


def _from_sources(client: httpx.Client, f: RemoteFile, sources: Sequence[Source], part: Path, progress: DownloadProgress, *,
                  retries: int, retry_wait: float, sleep: Callable[[float], None],
                  limits: Limits) -> tuple[int, str, Verification, str]:
    """Download and verify ``f`` from the first source that delivers it; ``part`` carries over between sources.

    Returns (resumed offset, SHA-256, level, source label). One source: its own error; several: one line naming each.
    """
    failures: list[str] = []
    for i, src in enumerate(sources):
        try:
            resumed = _download(client, f, src.url_for(f), part, progress, retries=retries, retry_wait=retry_wait,
                                sleep=sleep, limits=limits)
            digest, level = verify_or_delete(f, part)
            return resumed, digest, level, src.label
        except FetchError as exc:
            if len(sources) == 1:
                raise
            failures.append(f"{src.label} {exc.brief}")
            if i + 1 < len(sources):
                progress.say(f"{f.name}: {src.label} {exc.brief}; trying {sources[i + 1].label}")
    have = held_size(part)
    again = f" (run again to resume from {human_bytes(have)})" if have else ""
    raise FetchError(f"{f.name}: every source failed: {'; '.join(failures)}{again}")


def fetch_files(
    files: list[RemoteFile],
    out: str | Path,
    *,
    sources: Sequence[Source] | None = None,
    trust_unverified: bool = False,
    client: httpx.Client | None = None,
    retries: int = 4,
    retry_wait: float = 1.0,
    progress: DownloadProgress | None = None,
    sleep: Callable[[float], None] = time.sleep,
    limits: Limits | None = None,
) -> list[Fetched]:
    """Download ``files`` into ``out`` (skipping ones already there and verified); see the module doc.

    ``sources`` are tried in order for each file (default: Google Drive, then the record's mirrors);
    ``limits`` bound each source (a client given here keeps its own timeouts; the rate is still checked).
    """
    limits = limits or Limits()
    sources = list(sources) if sources is not None else default_sources(load_manifest())
    if not sources:
        raise ConfigError("no source to download from")
    unverified = [f.name for f in files if verification_level(f) == "unverified"]
    if unverified and not trust_unverified:
        raise ConfigError(f"no checksum on record for {', '.join(unverified)}: pass --trust-unverified to download "
                          "unverified (the SHA-256 is printed so you can pin it with --checksums FILE)")
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {folder}: cannot create it ({exc.strerror or exc})") from None
    progress = progress or DownloadProgress()
    own = client is None
    client = client or httpx.Client(timeout=limits.timeout(),
                                    headers={"User-Agent": "shopsim-data-fetch"})
    results: list[Fetched] = []
    try:
        for f in files:
            final, part = target_paths(folder, f.name)
            if final.exists():
                try:
                    digest, level = verify(f, final)
                    results.append(Fetched(f.name, final, final.stat().st_size, digest, level, already_there=True))
                    continue
                except FetchError as exc:
                    progress.say(f"{exc}; downloading it again")
                    final.unlink()
            resumed, digest, level, src = _from_sources(client, f, sources, part, progress, retries=retries,
                                                        retry_wait=retry_wait, sleep=sleep, limits=limits)
            os.replace(part, final)
            results.append(Fetched(f.name, final, final.stat().st_size, digest, level, resumed_from=resumed,
                                   source=src))
    finally:
        if own:
            client.close()
    return results
