"""A drop-in for WebShop's ``WebAgentTextEnv`` (``web_agent_site/envs/web_agent_text_env.py``), in-process.

Same constructor keywords, ``reset(session=, instruction_text=)``, 4-tuple ``step``,
``get_available_actions()``, ``text_to_clickable``, ``instruction_text``, ``get_instruction_text()``,
``get_image()``, ``state``, ``observation`` and ``env.server`` (a :class:`WebShopServer`), so
WebShop agent code runs unchanged. Pages come from :class:`ShopSession`; the shim keeps WebShop's
bookkeeping around it: which actions it ignores, what ``user_sessions`` holds, when
``text_to_clickable`` is refreshed. Differences are listed in :class:`WebAgentTextEnv`.
"""

from __future__ import annotations

import gc
import random
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from shopsim.actions import parse_action
from shopsim.adapters.image_features import ImageFeatures
from shopsim.adapters.spaces import UnicodeText
from shopsim.adapters.webshop_elements import KnownElements, WebShopClickable
from shopsim.adapters.webshop_server import WebShopServer
from shopsim.errors import ConfigError, ResetNeeded, SessionError
from shopsim.page import Clickable, PageState
from shopsim.render import observation as text_observation
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.sim_page import SimPage

__all__ = ["WebAgentTextEnv", "data_location", "fixed_goal", "load_shop"]

_MODES = ("html", "text", "text_rich", "url", "image")
#: The spaces are declared for ``gym.make`` and tools that read them; WebShop's API is not Gymnasium's
#: (4-tuple ``step``, ``reset(session=)``), so the ids register without Gymnasium's checker.
MAX_OBSERVATION_CHARS = 2_000_000
MAX_ACTION_CHARS = 2_048

@dataclass(eq=False)
class _PageMemo:
    """What the env derives from one page, built once: ``step`` and the agent's own
    ``get_available_actions`` share its elements, ``observation`` and ``state`` its renderings.
    Keyed by the session's page object's identity (``source``, which the memo holds, so never another
    page's); ``page`` is what the env reads: ``source`` itself, or with ``lazy_pages=False`` a page
    around its full PageState, so every reading goes through the PageState as it always did.
    """

    source: SimPage
    page: SimPage
    elements: dict[str, WebShopClickable] | None = None
    observations: dict[str, str] = field(default_factory=dict)


def data_location(file_path: str | Path | None, options: Mapping[str, Any]) -> tuple[Path | None, Path | None]:
    """``(data folder, items file)`` from WebShop's ``file_path`` (an items file, or a folder or store) or
    our ``data_dir``; ``(None, None)`` for the bundled catalog.
    """
    if options.get("data_dir") is not None:
        return Path(options["data_dir"]), None
    if file_path is None:
        return None, None
    p = Path(file_path)
    return (p.parent, p) if p.is_file() or p.suffix == ".json" else (p, None)


def fixed_goal(session: int | str) -> int | None:
    """The goal a session names: ``n`` or ``'fixed_<n>'`` (WebShop's web app), else None."""
    if isinstance(session, int):
        return session
    return int(session[6:]) if session.startswith("fixed_") and session[6:].isdigit() else None


def load_shop(file_path: str | Path | None, options: Mapping[str, Any]) -> Shop:
    """The Shop WebShop's keywords describe: ``file_path`` (an items file, its folder, or a prepared store),
    ``attr_path``, ``num_products``, ``human_goals``, ``show_attrs``; ours: ``data_dir``, ``seed``, and
    ``freeze_gc`` (default True: what exists once the shop is loaded is frozen out of the cyclic collector).

    An items file is used by name, so ``items_shuffle_1000.json`` beside ``items_shuffle.json`` loads
    the 1,000 products. ``None`` and no ``data_dir`` mean the bundled catalog.
    """
    data_dir, items = data_location(file_path, options)
    config = ShopConfig(
        data_dir=data_dir,
        items_file=items,
        attributes_file=options.get("attr_path"),
        num_products=options.get("num_products"),
        human_goals=bool(options.get("human_goals", False)),
        seed=int(options.get("seed", 0)),
        show_attrs=bool(options.get("show_attrs", False)),
    )
    if not options.get("freeze_gc", True):
        return Shop.from_config(config)
    # The catalog (~50k objects on the small set) and the modules imported so far live as long as the
    # process; moved out of the collector's generations (``gc.freeze``), no full collection walks them
    # again: a cold run of the rule agent paid two (~0.05 s each), in construction and in its first round.
    # Objects frozen are still freed by reference counting; only cyclic garbage made before a freeze stays.
    gc.freeze()
    shop = Shop.from_config(config)
    gc.freeze()
    return shop


def _observation(state: PageState, mode: str) -> str:
    """``shopsim.adapters.env.observation``'s twin, kept here so the WebShop shim does not load env.py
    (nor the HTML renderer and its markup helpers until a page is asked for as html).
    """
    if mode != "html":
        return text_observation(state, mode)  # type: ignore[arg-type]
    from shopsim.simsite.html import render_html

    return render_html(state)


class WebAgentTextEnv(gym.Env):  # type: ignore[type-arg]
    """WebShop's text env over the sim (``observation_mode`` html, text, text_rich or url).

    Keywords as WebShop's: ``file_path`` (an items file or its folder), ``server`` (a
    :class:`WebShopServer` to share, or a :class:`Shop` to wrap), ``filter_goals``, ``limit_goals``,
    ``num_products``, ``human_goals``, ``show_attrs``, ``session_prefix``, ``num_prev_obs``,
    ``num_prev_actions``, ``get_image``; ours: ``data_dir`` and ``seed`` (prices, goals and the draws
    of ``reset()``, from one seeded rng, never the global ``random``), and ``lazy_pages`` (default
    True: text observations and clickables come from the session's pages without building each full
    PageState; False reads every page through its PageState, the reference the lazy path is tested
    against; observations, actions, rewards and info are identical).

    Differences from WebShop: ``filter_goals``/``limit_goals`` also apply to a wrapped Shop (WebShop
    ignores them when given a server); ``reset(session='fixed_<n>')`` picks goal n, as WebShop's web
    app does; after a purchase every action is refused (WebShop would still search); a search of
    blanks or over 1,000 characters is refused; ``get_instruction_text()`` on the done page raises
    SessionError (WebShop's page has no instruction there, and BeautifulSoup raises AttributeError);
    an unknown goal index raises ConfigError (WebShop: IndexError).
    """

    def __init__(
        self,
        observation_mode: str = "html",
        file_path: str | None = None,
        server: WebShopServer | Shop | None = None,
        **kwargs: Any,
    ):
        if observation_mode not in _MODES:
            raise ConfigError(f"observation_mode {observation_mode!r}: use html, text, text_rich, url or image")
        self.observation_mode = observation_mode
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS, min_length=0)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        self.kwargs = kwargs
        self.file_path = file_path
        if isinstance(server, WebShopServer):
            self.server = server
        else:
            shop = server if server is not None else load_shop(file_path, kwargs)
            self.server = WebShopServer(shop, filter_goals=kwargs.get("filter_goals"),
                                        limit_goals=int(kwargs.get("limit_goals", -1)))
        self.base_url = self.server.base_url
        self.image_features: ImageFeatures | None = None
        if kwargs.get("get_image", 0) or observation_mode == "image":
            folder = data_location(file_path, kwargs)[0] or Path(".")
            self.image_features = ImageFeatures.load(kwargs.get("feat_conv", folder / "feat_conv.pt"),
                                                     kwargs.get("feat_ids", folder / "feat_ids.pt"))
        self.session: str | None = kwargs.get("session")
        self.session_prefix: str | None = kwargs.get("session_prefix")
        self.num_prev_obs = int(kwargs.get("num_prev_obs", 0))
        self.num_prev_actions = int(kwargs.get("num_prev_actions", 0))
        self._rng = random.Random(int(kwargs.get("seed", 0)))
        self.lazy_pages = bool(kwargs.get("lazy_pages", True))
        self._session: ShopSession | None = None
        self._memo: _PageMemo | None = None
        self._known = KnownElements()
        self.text_to_clickable: dict[str, WebShopClickable] | None = None
        self.instruction_text = ""
        self.prev_obs: list[str] = []
        self.prev_actions: list[str] = []
        self.reset()

    def reseed(self, seed: int) -> None:
        """Restart the rng behind random session ids and goal draws (prices stay the shop's)."""
        self._rng = random.Random(seed)

    def _page(self) -> PageState:
        """The current page's full PageState."""
        return self._page_memo().page.state

    def _page_memo(self) -> _PageMemo:
        if self._session is None:
            raise ResetNeeded("step")
        source = self._session.page
        if self._memo is None or self._memo.source is not source:
            self._memo = _PageMemo(source, source if self.lazy_pages else SimPage.of(source.state))
        return self._memo

    def _rendered(self, mode: str) -> str:
        """The current page in a text or html mode, rendered once per page."""
        memo = self._page_memo()
        text = memo.observations.get(mode)
        if text is None:
            page = memo.page
            text = page.simple_text() if mode == "text" else _observation(page.state, mode)
            memo.observations[mode] = text
        return text

    # ---- WebShop's API ------------------------------------------------------------------------
    @property
    def state(self) -> dict[str, Any]:
        """WebShop's state dict: url, html and the instruction text."""
        return {"url": self._page().url, "html": self._rendered("html"), "instruction_text": self.instruction_text}

    @property
    def observation(self) -> Any:
        """The current page in ``observation_mode`` (image: :meth:`get_image`'s features)."""
        if self.observation_mode == "image":
            return self.get_image()
        return self._rendered(self.observation_mode)

    def get_available_actions(self) -> dict[str, Any]:
        """``{has_search_bar, clickables}``; fills ``text_to_clickable`` (lower-cased text -> element).

        The elements are built once per page; each call hands out a fresh dict of them, as WebShop does.
        """
        memo = self._page_memo()
        if memo.elements is None:
            memo.elements = self._known.elements(memo.page)
        self.text_to_clickable = dict(memo.elements)
        return {"has_search_bar": memo.page.has_search_bar, "clickables": list(memo.elements)}

    def get_instruction_text(self) -> str:
        """The ``#instruction-text h4`` text of the current page, as BeautifulSoup's ``.text`` reads it.

        WebShop's search page writes ``Instruction: <br>goal`` and its other pages ``Instruction:<br>goal``;
        ``<br>`` adds no text, so the first reads ``'Instruction: goal'`` and the others ``'Instruction:goal'``.
        """
        state = self._page_memo().page
        if state.page_type == "done" or state.instruction is None:
            raise SessionError("the done page has no instruction (WebShop's get_instruction_text fails there); "
                               "read env.instruction_text")
        return ("Instruction: " if state.page_type == "search" else "Instruction:") + state.instruction

    def get_image(self) -> Any:
        """The item page's product-image features (a torch tensor), zeros on other pages, as WebShop's.

        Needs ``get_image=1`` (or ``observation_mode='image'``) and WebShop's feature files.
        """
        if self.image_features is None:
            raise ConfigError("get_image() needs the env built with get_image=1 and WebShop's feature files "
                              "(feat_conv.pt, feat_ids.pt in the data folder)")
        page = self._page_memo().page
        product = self.server.shop.product(page.product_id) if page.product_id is not None else None
        url = product.main_image if product is not None and page.page_type == "item" else None
        return self.image_features.lookup(url)

    # WebShop's own reset(session=) and 4-tuple step, kept for its agent code, not Gymnasium's signatures.
    def reset(  # type: ignore[override]
            self, session: int | str | None = None, instruction_text: str | None = None) -> tuple[str, None]:
        """A session: an int picks that goal, a known session id keeps its goal, else a weighted draw.

        ``instruction_text`` replaces only ``env.instruction_text`` (and ``state``), as in WebShop:
        pages still show the goal's own instruction.
        """
        session_int: int | None = None
        if session is not None:
            sid, session_int = str(session), fixed_goal(session)
        else:
            sid = "".join(self._rng.choices(string.ascii_lowercase, k=10))
        if self.session_prefix is not None:
            sid = f"{self.session_prefix}{sid}"
        self.session = sid
        goal = self.server.open_session(sid, session_int, self._rng)
        self._session = ShopSession(self.server.shop, goal, sid, base_url=self.base_url)
        self.text_to_clickable = None
        self.instruction_text = self.get_instruction_text() if instruction_text is None else instruction_text
        obs = self.observation
        self.prev_obs, self.prev_actions = [obs], []
        return obs, None

    def step(self, action: str) -> tuple[Any, float, bool, None]:  # type: ignore[override]
        """WebShop's step: ``search[...]`` or ``click[...]`` of a current clickable; anything else does nothing."""
        self.get_available_actions()
        assert self._session is not None and self.text_to_clickable is not None
        name, arg = parse_action(action)
        arg = arg.lower() if arg is not None else None
        reward, done = 0.0, False
        if name == "search" and arg:
            reward, done = self._apply(action, "search", arg, None)
        elif name == "click" and arg is not None and arg in self.text_to_clickable and arg != "search":
            reward, done = self._apply(action, "click", arg, self.text_to_clickable[arg].clickable)
        ob = self.observation
        self.prev_actions.append(action)
        if self.observation_mode == "image" or not (self.num_prev_obs or self.num_prev_actions):
            self.prev_obs.append(ob)  # a feature vector joins nothing; without history, the page alone
            return ob, reward, done, None
        texts = [ob]
        for i in range(1, 1 + max(self.num_prev_obs, self.num_prev_actions)):
            if len(self.prev_actions) >= i and self.num_prev_actions >= i:
                texts.append(self.prev_actions[-i])
            if len(self.prev_obs) >= i and self.num_prev_obs >= i:
                texts.append(self.prev_obs[-i])
        self.prev_obs.append(ob)
        return " [SEP] ".join(texts[::-1]), reward, done, None

    def _apply(self, action: str, name: str, arg: str, target: Clickable | None) -> tuple[float, bool]:
        """Run an accepted action on the session and keep ``user_sessions`` as WebShop's ``receive`` does."""
        assert self._session is not None and self.session is not None
        sid, server = self.session, self.server
        self._session.goal = server.session_goal(sid)  # an instruction set via the server shows from now on
        before = self._session.page.page_type
        result = self._session.step(action)
        if result.page.feedback.code != "ok":
            return result.reward, result.done
        s = server.user_sessions[sid]
        if target is None:
            server.note_search(sid, arg.split(" "), 1)
        elif target.kind == "buy" and result.breakdown is not None:
            server.note_purchase(sid, result.reward, result.breakdown.webshop_info())
        elif target.kind == "back_to_search":
            server.note_back_to_search(sid)
        elif target.kind in ("next", "prev") and before == "results":
            server.note_search(sid, s["keywords"], (s["page"] or 1) + (1 if target.kind == "next" else -1))
        elif target.kind == "prev" and before == "item":
            server.note_search(sid, s["keywords"], s["page"])
        else:  # a product link, an option, a sub page; ``< prev`` from a sub page changes nothing
            server.note_click(sid, target.kind, arg, target.axis)
        return result.reward, result.done

    def render(self, mode: str = "human") -> None:
        """Nothing to render (as in WebShop)."""

    def close(self) -> None:
        """Nothing to close (as in WebShop)."""
