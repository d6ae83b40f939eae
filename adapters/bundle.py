"""Recorded-session bundles: the pages of one browsing session, replayable offline.

A bundle is a folder:

    <bundle>/
      manifest.json        what was recorded (the BundleManifest model below)
      pages/000.html       the page bytes of each loaded step (page.content(), UTF-8)
      pages/001.html ...
      session.har          optional: the browser's HAR of the whole session

``manifest.json`` holds ``format`` ("shopsim-bundle"), ``version`` (1), ``site`` (amazon, ebay or
simsite), ``start_url``, ``instruction`` (or null), ``created_at`` (ISO 8601, UTC), ``har`` (the HAR
file name or null), ``recorder`` (free text: how it was made), optionally ``goal`` (the goal the
session was recorded for, in WebShop's goal format: ``shopsim record --goal FILE`` writes it, and
``eval --adapter replay`` pairs goals to bundles by it) and ``steps``, in order. Each step has
``index``, ``action`` (null for the start page), ``kind`` (``load``: a page was loaded; ``select``: an
option with no URL was chosen; ``purchase``: buy now, nothing loaded; ``refused``: the translator
refused the action), ``url`` (the URL the action resolved to, as loaded), ``final_url`` (where the
browser ended up, after redirects or a form submission), ``normalized_url`` (see below),
``timestamp``, and for ``load`` steps ``sha256`` (of the page bytes) and ``page`` (``pages/NNN.html``).

URL normalisation (``normalize_url``) makes a recorded URL match the URL a translator resolves
later: lower-case scheme and host, default ports and the fragment dropped, tracking parameters
dropped (``ref``, ``ref_``, ``qid``, ``sr``, ``crid``, ``sprefix``, ``_trksid``, ``_trkparms``,
``hash``, ``pf_rd_*``, ``pd_rd_*``, ``psc``, ``th``, ``spLa``, ``utm_*`` and the no-op ``_encoding``),
the remaining query parameters sorted; on Amazon ``/ref=...`` path segments are dropped and
``/<slug>/dp/<ASIN>`` or ``/gp/product/<ASIN>`` become ``/dp/<ASIN>``; on eBay ``/itm/<slug>/<id>``
becomes ``/itm/<id>``.

Loading (``Bundle.load``) validates the manifest, checks every page's SHA-256, and refuses any path
that leaves the bundle folder (absolute paths, ``..``, symlinks pointing outside): a bundle is data
from elsewhere and must not make us read arbitrary files. Its work is bounded too: only regular
files are opened (a FIFO, device or folder in their place is refused before it could block), the
manifest must say ``version`` 1 and hold at most ``MAX_BUNDLE_STEPS`` steps, and each page may be at
most ``MAX_PAGE_BYTES`` (all pages together ``MAX_BUNDLE_BYTES``). Every problem is a
:class:`BundleError` naming the file, and for the manifest the field.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Final, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from shopsim.errors import DataError, SourceError, first_problem
from shopsim.regular_files import file_kind, read_regular_file
from shopsim.simsite.models import Goal
from shopsim.translators.guard import MAX_PAGE_BYTES

__all__ = [
    "BUNDLE_FORMAT",
    "BUNDLE_VERSION",
    "MAX_BUNDLE_BYTES",
    "MAX_BUNDLE_STEPS",
    "MAX_MANIFEST_BYTES",
    "Bundle",
    "BundleError",
    "BundleManifest",
    "BundleStep",
    "BundleWriter",
    "normalize_url",
    "sha256_hex",
]

BUNDLE_FORMAT: Final = "shopsim-bundle"
BUNDLE_VERSION = 1
MANIFEST = "manifest.json"
HAR_NAME = "session.har"
#: Steps in one manifest: a recorded session is tens of steps (an episode is 15 by default).
MAX_BUNDLE_STEPS = 2_000
#: ``manifest.json`` size: 2,000 steps of about 1 KB each fit four times over.
MAX_MANIFEST_BYTES = 8_000_000
#: All page files together (each at most ``MAX_PAGE_BYTES``, 20 MB): the pages are held in memory.
MAX_BUNDLE_BYTES = 256_000_000


class BundleError(DataError, SourceError):
    """A bundle that cannot be loaded: malformed (a DataError naming the file and field) and a
    replay source that cannot deliver its pages (a SourceError), so callers catching either see it.
    """

_TRACKING = frozenset({"ref", "ref_", "qid", "sr", "crid", "sprefix", "_trksid", "_trkparms", "hash", "psc",
                       "th", "spla", "_encoding"})
_TRACKING_PREFIXES = ("pf_rd_", "pd_rd_", "utm_")
_AMAZON_ASIN = re.compile(r"/(?:dp|gp/product|gp/aw/d)/([A-Za-z0-9]{10})(?:[/?]|$)")
_EBAY_ITEM = re.compile(r"^/itm/(?:[^/]+/)?(\d{6,})(?:/|$)")
_PAGE_NAME = re.compile(r"^pages/\d{3,6}\.html$")


def normalize_url(url: str) -> str:
    """The lookup key of a URL: tracking noise dropped so re-resolved links find their recording.

    A URL Python cannot split (a bad IPv6 host or port) is its own key, stripped: it then matches
    only itself instead of raising in the middle of a replay.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if port is not None and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    path = parts.path or "/"
    if "amazon." in host:
        m = _AMAZON_ASIN.search(path + "/")
        if m:
            path = f"/dp/{m.group(1).upper()}"
        else:
            path = "/".join(seg for seg in path.split("/") if not seg.startswith("ref=")) or "/"
    elif "ebay." in host:
        m = _EBAY_ITEM.match(path)
        if m:
            path = f"/itm/{m.group(1)}"
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
              if k.lower() not in _TRACKING and not k.lower().startswith(_TRACKING_PREFIXES)]
    query = urlencode(sorted(params))
    return urlunsplit((scheme, host, path, query, ""))


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of page bytes (what the manifest stores)."""
    return hashlib.sha256(data).hexdigest()


class BundleStep(BaseModel):
    """One recorded step: the action, where it led, and the page it loaded (for ``load`` steps)."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=0)
    action: str | None = None
    kind: Literal["load", "select", "view", "purchase", "refused"] = "load"
    url: str | None = None
    final_url: str | None = None
    normalized_url: str | None = None
    timestamp: datetime
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    page: str | None = None
    axis: str | None = None
    value: str | None = None
    feedback: str | None = None

    @model_validator(mode="after")
    def _load_steps_have_pages(self) -> BundleStep:
        if self.kind == "load" and (self.page is None or self.sha256 is None or self.url is None):
            raise ValueError(f"step {self.index}: a 'load' step needs url, page and sha256")
        return self


class BundleManifest(BaseModel):
    """``manifest.json``: the session's metadata and its steps in order (read in strict mode)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["shopsim-bundle"] = BUNDLE_FORMAT
    version: int = BUNDLE_VERSION
    site: Literal["amazon", "ebay", "other", "simsite"]
    start_url: str
    instruction: str | None = None
    created_at: datetime
    har: str | None = None
    recorder: str | None = None
    goal: Goal | None = None
    steps: list[BundleStep] = Field(default_factory=list)

    @field_validator("goal")
    @classmethod
    def _finite_goal(cls, goal: Goal | None) -> Goal | None:
        # the goal file loader's rule: a goal's numbers must be finite and not negative
        for field in ("price_upper", "weight") if goal is not None else ():
            value = getattr(goal, field)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"goal {field} {value!r} is not a finite non-negative number")
        return goal

    @field_validator("version")
    @classmethod
    def _supported(cls, version: int) -> int:
        if version != BUNDLE_VERSION:
            raise ValueError(f"bundle version {version} is not the one this shopsim reads ({BUNDLE_VERSION})")
        return version

    @field_validator("steps")
    @classmethod
    def _ordered(cls, steps: list[BundleStep]) -> list[BundleStep]:
        if len(steps) > MAX_BUNDLE_STEPS:
            raise ValueError(f"{len(steps):,} steps; a bundle holds at most {MAX_BUNDLE_STEPS:,}")
        for i, step in enumerate(steps):
            if step.index != i:
                raise ValueError(f"steps must be numbered 0, 1, 2, ... in order; step {i} says index {step.index}")
        return steps


def _inside(root: Path, rel: str, what: str) -> Path:
    """``root/rel`` after refusing absolute paths, '..', symlinks that leave ``root`` and non-files."""
    pure = PurePosixPath(rel)
    if (not rel or pure.is_absolute() or "\\" in rel or ":" in rel or "\x00" in rel
            or any(p == ".." for p in pure.parts)):
        raise BundleError(f"bundle {root}: {what} path {rel!r} must be a plain relative path inside the bundle")
    path = root / Path(*pure.parts)
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise BundleError(f"bundle {root}: {what} file {rel} is missing ({exc.__class__.__name__}); "
                          "re-record the bundle or restore the file") from exc
    if not resolved.is_relative_to(root.resolve()):
        raise BundleError(f"bundle {root}: {what} {rel} resolves outside the bundle (to {resolved}); refusing to read it")
    try:
        mode = os.stat(resolved).st_mode
    except OSError as exc:
        raise BundleError(f"bundle {root}: cannot read {what} {rel}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(mode):
        raise BundleError(f"bundle {root}: {what} {rel} is {file_kind(mode)}, not a regular file; refusing to open it")
    return resolved


def _read(root: Path, rel: str, what: str, limit: int) -> bytes:
    """The bytes of a regular file inside the bundle, at most ``limit`` of them."""
    path = _inside(root, rel, what)
    try:
        return read_regular_file(path, limit)
    except OSError as exc:
        raise BundleError(f"bundle {root}: cannot read {what} {rel}: {exc.strerror or exc}") from exc


def _check_manifest(mpath: Path, raw: bytes) -> None:
    """Refuse what strict validation would report vaguely or only after much work: not JSON, another
    format or version, too many steps.
    """
    try:
        doc: Any = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        reason = str(exc) if isinstance(exc, ValueError) else "nested too deeply"
        raise BundleError(f"{mpath}: not a JSON manifest ({reason})") from exc
    if not isinstance(doc, dict):
        raise BundleError(f"{mpath}: invalid manifest: expected a JSON object, got {type(doc).__name__}")
    for field, expected in (("format", BUNDLE_FORMAT), ("version", BUNDLE_VERSION)):
        value = doc.get(field, "(missing)")
        if type(value) is not type(expected) or value != expected:
            raise BundleError(f"{mpath}: invalid manifest at '{field}': {_short(value)}; "
                              f"this shopsim reads {field} {expected!r} only")
    steps = doc.get("steps")
    if isinstance(steps, list) and len(steps) > MAX_BUNDLE_STEPS:
        raise BundleError(f"{mpath}: invalid manifest at 'steps': {len(steps):,} steps; "
                          f"a bundle holds at most {MAX_BUNDLE_STEPS:,}")


def _short(value: object) -> str:
    """A value for a one-line message."""
    text = value if value == "(missing)" else repr(value)
    text = " ".join(str(text).split())
    return text if len(text) <= 60 else text[:57] + "..."


class Bundle:
    """A validated bundle in memory: its manifest and the bytes of every recorded page."""

    def __init__(self, root: Path, manifest: BundleManifest, pages: dict[int, bytes], har_path: Path | None):
        self.root, self.manifest, self.pages, self.har_path = root, manifest, pages, har_path

    @property
    def site(self) -> str:
        """The site the bundle was recorded on (the manifest's ``site``)."""
        return self.manifest.site

    @classmethod
    def load(cls, path: str | Path) -> Bundle:
        """Read and validate a bundle folder; raises BundleError naming the bad file (and field).

        Bounded: only regular files inside the folder are opened, the manifest is at most
        ``MAX_MANIFEST_BYTES`` with at most ``MAX_BUNDLE_STEPS`` steps, each page at most
        ``MAX_PAGE_BYTES`` and all pages together at most ``MAX_BUNDLE_BYTES``.
        """
        root = Path(path)
        if not root.is_dir():
            raise BundleError(f"bundle {root} is not a folder (expected one with {MANIFEST} and pages/)")
        mpath = root / MANIFEST
        raw = _read(root, MANIFEST, "manifest", MAX_MANIFEST_BYTES)
        _check_manifest(mpath, raw)
        try:
            manifest = BundleManifest.model_validate_json(raw, strict=True)
        except ValidationError as exc:
            loc, message = first_problem(exc)
            raise BundleError(f"{mpath}: invalid manifest at '{loc or '(top level)'}': {message}") from exc
        pages: dict[int, bytes] = {}
        total = 0
        for step in manifest.steps:
            if step.kind != "load":
                continue
            assert step.page is not None and step.sha256 is not None
            if not _PAGE_NAME.match(step.page):
                raise BundleError(f"{mpath}: invalid manifest at 'steps.{step.index}.page': {_short(step.page)} "
                                  "is not of the form pages/NNN.html")
            data = _read(root, step.page, "page", MAX_PAGE_BYTES)
            total += len(data)
            if total > MAX_BUNDLE_BYTES:
                raise BundleError(f"bundle {root}: its pages exceed {MAX_BUNDLE_BYTES:,} bytes together "
                                  f"(at step {step.index}); split the session into smaller bundles")
            if sha256_hex(data) != step.sha256:
                raise BundleError(f"bundle {root}: {step.page} does not match its SHA-256 in {MANIFEST} "
                                  f"(step {step.index}); the file was changed after recording — re-record it")
            pages[step.index] = data
        har = _inside(root, manifest.har, "HAR") if manifest.har else None
        return cls(root, manifest, pages, har)

    def load_steps(self) -> list[BundleStep]:
        """The steps that loaded a page, in order."""
        return [s for s in self.manifest.steps if s.kind == "load"]

    def html(self, step: BundleStep) -> str:
        """A recorded page as text (UTF-8, else the page's own charset)."""
        from shopsim.translators.documents import decode_html

        return decode_html(self.pages[step.index])


class BundleWriter:
    """Write a bundle step by step (the recorder, and tests assembling bundles from saved pages)."""

    def __init__(self, root: str | Path, *, site: str, start_url: str, instruction: str | None = None,
                 recorder: str | None = None, goal: Goal | None = None):
        self.root = Path(root)
        if (self.root / MANIFEST).exists():
            raise SourceError(f"{self.root} already holds a bundle; choose a new --out folder or delete it")
        (self.root / "pages").mkdir(parents=True, exist_ok=True)
        self.manifest = BundleManifest(site=site, start_url=start_url, instruction=instruction,  # type: ignore[arg-type]
                                       created_at=datetime.now(UTC), recorder=recorder, goal=goal)
        self._pages = 0

    def _step(self, **fields: object) -> BundleStep:
        if len(self.manifest.steps) >= MAX_BUNDLE_STEPS:
            raise SourceError(f"{self.root}: a bundle holds at most {MAX_BUNDLE_STEPS:,} steps; "
                              "record the rest of the session into a new bundle")
        step = BundleStep(index=len(self.manifest.steps), timestamp=datetime.now(UTC), **fields)  # type: ignore[arg-type]
        self.manifest.steps.append(step)
        return step

    def add_page(self, action: str | None, url: str, data: bytes | str, final_url: str | None = None) -> BundleStep:
        """Record a loaded page (``url``: what the action resolved to; ``final_url``: where it landed)."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        name = f"pages/{self._pages:03d}.html"
        self._pages += 1
        (self.root / name).write_bytes(raw)
        final = final_url if final_url and final_url != url else None
        return self._step(action=action, kind="load", url=url, final_url=final, normalized_url=normalize_url(url),
                          sha256=sha256_hex(raw), page=name)

    def add_select(self, action: str, axis: str | None, value: str | None) -> BundleStep:
        """Record an option chosen on the page itself (no URL of its own)."""
        return self._step(action=action, kind="select", axis=axis, value=value)

    def add_view(self, action: str, sub_page: str | None) -> BundleStep:
        """Record a sub page opened from the page itself (Description, Features, ...; nothing loaded)."""
        return self._step(action=action, kind="view", value=sub_page)

    def add_purchase(self, action: str) -> BundleStep:
        """Record ``buy now`` (nothing is loaded: a recording never buys)."""
        return self._step(action=action, kind="purchase")

    def add_refused(self, action: str, feedback: str) -> BundleStep:
        """Record an action the translator refused (nothing loaded)."""
        return self._step(action=action, kind="refused", feedback=feedback)

    def finish(self, har: str | None = None) -> Path:
        """Write ``manifest.json``; returns the bundle folder."""
        if har is not None:
            self.manifest.har = har
        # no "goal" key when there is none: such a bundle stays readable by shopsims that predate it
        doc = self.manifest.model_dump(mode="json", exclude={"goal"} if self.manifest.goal is None else None)
        text = json.dumps(doc, indent=1, ensure_ascii=False)
        (self.root / MANIFEST).write_text(text + "\n", encoding="utf-8")
        return self.root
