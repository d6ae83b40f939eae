"""Session snapshots: one session's state as an opaque token a trainer can keep, pass on and restore.

Why: branching one state into many rollouts (a GRPO group) should not cost a replay of every action
that led there. A token is ``shopsim-snap.`` + base64url(deflated JSON payload) + ``.`` +
base64url(MAC), a few hundred ASCII characters (at most ``MAX_TOKEN_CHARS``, so a token always fits
the JSON API's request limit):

* the payload is versioned (``v``) and names the profile, a fingerprint of the shop's catalog and
  goals, and the session's navigation state (never the hidden goal itself: only its index), so a
  token from another catalog, goal set, seed or search engine is refused instead of replaying into
  different pages;
* the fingerprint of a WebShop catalog covers prices and goals, not every product's text (a lazily
  loaded catalog is not read whole for it), so the payload also holds a content digest of each product
  the state names (the one on screen, the visited ones): a product whose title, options or text
  changed since the token was made is refused by name (format version 2);
* the MAC is HMAC-SHA256 over the payload. Without a key (``SHOPSIM_SNAPSHOT_KEY`` unset) its key is
  a public constant, so it is a checksum: it catches truncation, corruption and edits by hand, not a
  determined forger. Set the key (the same in every process) where tokens cross a trust boundary.
  Even a forged token can only describe a state the shop's URL scheme reaches anyway: restoring
  validates every field against the shop.

Every failure is a :class:`SnapshotError` (a ``ConfigError``) with one line that says which check failed.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import json
import os
import weakref
import zlib
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shopsim.errors import ConfigError
from shopsim.page import FeedbackCode, SubPage
from shopsim.simsite.json_api import strict_json_loads
from shopsim.simsite.profiles import ShopLike, get_profile
from shopsim.simsite.search import MAX_QUERY_CHARS
from shopsim.v8.observation_state import V8Feedback

__all__ = [
    "MAX_TOKEN_CHARS",
    "SNAPSHOT_VERSION",
    "TOKEN_PREFIX",
    "SessionSnapshot",
    "SnapshotError",
    "V8SessionState",
    "WebShopSessionState",
    "check_webshop_state",
    "decode",
    "encode",
    "peek",
    "shop_fingerprint",
]

SNAPSHOT_VERSION = 2
TOKEN_PREFIX = "shopsim-snap."
#: Longest token: ~10x a typical session's, and small enough that any string this long, however it is
#: escaped in JSON, fits the JSON API's 64 KiB request limit. Only a session with a near-1,000-character
#: non-ASCII query and many visited products comes close; snapshotting it raises SnapshotError.
MAX_TOKEN_CHARS = 5_000
#: Largest payload a token may inflate to (a guard against a deflate bomb).
MAX_PAYLOAD_BYTES = 64 * 1024
KEY_ENV = "SHOPSIM_SNAPSHOT_KEY"
_PUBLIC_KEY = b"shopsim-snapshot-checksum-v1"


class SnapshotError(ConfigError):
    """A snapshot token that cannot be restored here: malformed, altered, foreign, or describing an impossible state."""


class _State(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class WebShopSessionState(_State):
    """A WebShop-profile session: its goal, rules, counters and the page it is on."""

    profile: Literal["webshop"] = "webshop"
    goal_index: int = Field(ge=0)
    session_id: str = Field(min_length=1, max_length=128)
    strict: bool
    max_steps: int | None = Field(default=None, ge=1)
    steps: int = Field(ge=0)
    done: bool
    truncated: bool
    visited: list[str]
    page: Literal["index", "search_results", "item_page", "item_sub_page", "done"]
    keywords: list[str] | None = None
    page_num: int | None = Field(default=None, ge=1)
    asin: str | None = None
    options: dict[str, str] = Field(default_factory=dict)
    sub_page: SubPage | None = None
    feedback_code: FeedbackCode = "ok"
    feedback_message: str = ""


class V8SessionState(_State):
    """A shopsim-v8 session: its task, limits, counters and the page it is on."""

    profile: Literal["shopsim-v8"] = "shopsim-v8"
    task_id: int
    task_mode: Literal["standard", "persona"] | None = None
    interaction_mode: Literal["single_turn", "multi_turn"]
    max_actions: int = Field(ge=1)
    actions: int = Field(ge=0)
    done: bool
    termination: Literal["purchase", "action_limit", "generation_length"] | None = None
    page: Literal["search", "results", "product", "terminal"]
    query: str = ""
    page_num: int = Field(ge=1)
    asin: str | None = None
    selected: dict[str, str] = Field(default_factory=dict)
    feedback: V8Feedback = "ok"
    message: str = ""


SessionState = Annotated[WebShopSessionState | V8SessionState, Field(discriminator="profile")]


class SessionSnapshot(_State):
    """The decoded payload: format version, shop fingerprint and the session state."""

    v: int
    fingerprint: str
    state: SessionState
    products: dict[str, str]  # ASIN -> content digest (see _product_digests)


# ---- fingerprints ------------------------------------------------------------------------------------
_FINGERPRINTS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def shop_fingerprint(shop: Any) -> str:
    """What a restored session's pages depend on: catalog, prices, goals, engine, profile (SHA-256, hex).

    A shop that knows its own fingerprint (a prepared store's manifest) says so with a
    ``catalog_fingerprint`` attribute, which must cover its products, prices and goals; otherwise it is
    computed once per shop object and cached (78 ms for the 1,000-product set's 6,910 goals). For
    the WebShop profile it hashes the prices (every ASIN and its drawn price) and the goals, not each
    product's text, so a lazily loaded catalog is not materialised.
    """
    cached = _FINGERPRINTS.get(shop)
    if cached is not None:
        return cached
    h = hashlib.sha256()
    profile = getattr(shop, "profile", None) or get_profile(None)
    h.update(f"profile={profile.name}\nengine={type(shop.search_engine).__name__}\n".encode())
    h.update(f"show_attrs={getattr(shop, 'show_attrs', False)}\nproducts={len(shop.products)}\n".encode())
    own = getattr(shop, "catalog_fingerprint", None)
    if isinstance(own, str) and own:  # covers products, prices and goals
        h.update(f"store={own}\n".encode())
    else:
        if profile.fingerprint_products:
            for product in shop.products.values():
                h.update(product.model_dump_json().encode())
                h.update(b"\n")
        else:
            for asin, price in shop.prices.items():
                h.update(f"{asin}\t{float(price)!r}\n".encode())
        for goal in shop.goals:
            h.update(goal.model_dump_json().encode())
            h.update(b"\n")
    digest = h.hexdigest()
    with contextlib.suppress(TypeError):  # not weak-referenceable: computed again next time
        _FINGERPRINTS[shop] = digest
    return digest


def _named_asins(state: WebShopSessionState | V8SessionState) -> list[str]:
    """The products a state names: the one on screen and (WebShop) every visited one, each once."""
    named = list(state.visited) if isinstance(state, WebShopSessionState) else []
    return list(dict.fromkeys([*named, *([state.asin] if state.asin else [])]))


def _product_digests(state: WebShopSessionState | V8SessionState, shop: ShopLike) -> dict[str, str]:
    """A short content digest (48 bits: it detects a change, the MAC guards the token) of each named product
    this shop has; one it lacks is left to the state checks, which name it.
    """
    out = {}
    for asin in _named_asins(state):
        product = shop.products.get(asin)
        if product is not None:
            out[asin] = hashlib.sha256(product.model_dump_json().encode()).hexdigest()[:12]
    return out


def _check_products(snap: SessionSnapshot, shop: ShopLike) -> None:
    """Refuse a token whose named products changed here, though the catalog's fingerprint is the same."""
    for asin, digest in _product_digests(snap.state, shop).items():
        recorded = snap.products.get(asin)
        if recorded is None or not hmac.compare_digest(recorded.encode(), digest.encode()):
            raise SnapshotError(f"snapshot was made when product {asin[:40]} read differently: its title, options "
                                "or text changed in this catalog since")


# ---- tokens ---------------------------------------------------------------------------------------------
def _key(key: str | bytes | None) -> bytes:
    if key is None:
        key = os.environ.get(KEY_ENV) or _PUBLIC_KEY
    return key.encode() if isinstance(key, str) else key


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encode(state: WebShopSessionState | V8SessionState, shop: ShopLike, *, key: str | bytes | None = None) -> str:
    """The token for ``state`` on ``shop``."""
    payload = {"v": SNAPSHOT_VERSION, "fingerprint": shop_fingerprint(shop), "state": state.model_dump(mode="json"),
               "products": _product_digests(state, shop)}
    raw = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    packed = zlib.compress(raw, 9)
    mac = hmac.new(_key(key), packed, hashlib.sha256).digest()
    token = f"{TOKEN_PREFIX}{_b64(packed)}.{_b64(mac)}"
    if len(token) > MAX_TOKEN_CHARS:
        raise SnapshotError(f"this session's state is too large to snapshot ({len(token)} characters, the limit is "
                            f"{MAX_TOKEN_CHARS}): its query or list of visited products is very long")
    return token


def decode(token: Any, shop: ShopLike | None = None, *, key: str | bytes | None = None) -> WebShopSessionState | V8SessionState:
    """The state a token holds, after its integrity, version and (with ``shop``) fingerprint checks."""
    snap = _unpack(token, key, verify=True)
    if shop is not None:
        profile = (getattr(shop, "profile", None) or get_profile(None)).name
        if snap.state.profile != profile:
            raise SnapshotError(f"snapshot is of a {snap.state.profile} session; this shop is {profile}")
        if not hmac.compare_digest(snap.fingerprint.encode(), shop_fingerprint(shop).encode()):
            raise SnapshotError("snapshot was made on a shop with another catalog, goal set, seed or search engine")
        _check_products(snap, shop)
    return snap.state


def peek(token: Any) -> WebShopSessionState | V8SessionState:
    """The state a token holds, unverified: for a client reading the goal of a token a server will check."""
    return _unpack(token, None, verify=False).state


def _unpack(token: Any, key: str | bytes | None, *, verify: bool) -> SessionSnapshot:
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
        raise SnapshotError("not a shopsim snapshot token (it should start with 'shopsim-snap.')")
    if len(token) > MAX_TOKEN_CHARS:
        raise SnapshotError(f"snapshot token is longer than {MAX_TOKEN_CHARS} characters")
    body, dot, mac_text = token[len(TOKEN_PREFIX):].partition(".")
    try:
        if not dot or not body.isascii() or not mac_text.isascii():
            raise ValueError("missing part")
        packed, mac = _unb64(body), _unb64(mac_text)
    except (ValueError, binascii.Error):
        raise SnapshotError("snapshot token is malformed (cut short, or not base64url)") from None
    if verify and not hmac.compare_digest(mac, hmac.new(_key(key), packed, hashlib.sha256).digest()):
        raise SnapshotError(f"snapshot token failed its integrity check: altered, truncated, or made with "
                            f"another {KEY_ENV}")
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_PAYLOAD_BYTES)
        if inflater.unconsumed_tail or not inflater.eof:
            raise ValueError("not a whole payload")
    except (ValueError, zlib.error):
        raise SnapshotError("snapshot token's payload does not inflate") from None
    try:
        data = strict_json_loads(raw.decode("utf-8"))  # depth-limited: a signed bomb is refused, not a 500
    except ValueError as exc:
        raise SnapshotError(f"snapshot token's payload is not JSON: {str(exc)[:120]}") from None
    version = data.get("v") if isinstance(data, dict) else None
    if version != SNAPSHOT_VERSION:
        raise SnapshotError(f"snapshot format version {version!r}; this shopsim reads version {SNAPSHOT_VERSION}")
    try:
        return SessionSnapshot.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SnapshotError(f"snapshot token's state is invalid at {where}: {first['msg']}") from None


# ---- validation against a shop -------------------------------------------------------------------------
def _impossible(why: str) -> SnapshotError:
    return SnapshotError(f"snapshot describes an impossible session: {why}")


def check_webshop_state(shop: Any, s: WebShopSessionState) -> None:
    """Refuse a state no sequence of actions reaches, so a restored session never renders a broken page."""
    if s.goal_index >= len(shop.goals):
        raise SnapshotError(f"snapshot's goal {s.goal_index} does not exist: this shop has {len(shop.goals)} goals")
    if s.max_steps is not None and s.steps > s.max_steps:
        raise _impossible(f"{s.steps} steps taken with a limit of {s.max_steps}")
    if s.done != (s.page == "done" or s.truncated) or (s.truncated and s.page == "done"):
        raise _impossible("its done and truncated flags do not match its page")
    if any(a not in shop.products for a in s.visited):
        raise _impossible("it visited a product this catalog does not have")
    if s.page == "index":
        if s.keywords is not None or s.asin is not None or s.options or s.sub_page is not None:
            raise _impossible("the search page carries results or product state")
        return
    if s.keywords is None or s.page_num is None:
        raise _impossible(f"a {s.page} page needs keywords and a page number")
    if len(" ".join(s.keywords)) > MAX_QUERY_CHARS:
        raise _impossible(f"its query is over {MAX_QUERY_CHARS} characters")
    if s.page == "search_results":
        if s.asin is not None or s.options or s.sub_page is not None:
            raise _impossible("a results page carries product state")
        return
    product = shop.products.get(s.asin or "")
    if product is None:
        raise _impossible(f"product {str(s.asin)[:40]!r} is not in this catalog")
    for axis, value in s.options.items():
        if value not in product.options.get(axis, ()):
            raise _impossible(f"{axis[:40]!r}: {value[:40]!r} is not an option of {product.asin}")
    if (s.page == "item_sub_page") != (s.sub_page is not None):
        raise _impossible(f"sub-page {s.sub_page!r} on a {s.page} page")
