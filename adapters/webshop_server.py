"""``env.server`` for the WebShop shim: WebShop's ``SimServer`` attributes over a :class:`Shop`.

WebShop clients read the server directly (``baseline_models/env.py`` reads ``goals``,
``product_item_dict``, ``product_prices`` and ``user_sessions[env.session]``), so this facade
gives them WebShop's shapes:

- ``goals``: goal dicts (``asin, category, query, name, product_category, instruction_text,
  attributes, price_upper, goal_options, weight``) after ``filter_goals`` and ``limit_goals``;
  ``weights`` and ``cum_weights`` (``[0] + cumsum``) as ``SimServer`` keeps them;
- ``product_item_dict``: product dicts with ``load_products``' keys, built once per Shop on first use;
- ``product_prices``: a read-only view of the shop's prices (the rewards use the shop's own);
- ``user_sessions``: per session ``goal, done, keywords, page, asin, asins, options, actions``
  (and ``verbose_info, reward`` after a purchase), kept up to date by the shim as ``receive`` does.

The dicts are views: editing them does not change the shop, except a goal dict's
``instruction_text``, which pages show (that is how WebShop's ``assigned_instruction_text`` works).
"""

from __future__ import annotations

import bisect
import itertools
import random
import types
import weakref
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import TypeAdapter

from shopsim import routes
from shopsim.errors import ConfigError
from shopsim.simsite.goals import GOAL_SHUFFLE_SEED, goal_dict
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.shop import Shop

__all__ = ["GoalFilter", "WebShopServer", "product_dict", "random_idx"]

#: The type of ``PageState.instruction``, which shows a goal's (assignable) instruction text.
_INSTRUCTION: TypeAdapter[str | None] = TypeAdapter(str | None)  # type: ignore[arg-type]

#: ``filter_goals``: called with (index after the shuffle, goal dict); keep the goal when True.
GoalFilter = Callable[[int, dict[str, Any]], bool]

# Product dicts cost one pass over the catalog; every facade over the same Shop shares them.
_PRODUCT_DICTS: weakref.WeakKeyDictionary[Shop, dict[str, dict[str, Any]]] = weakref.WeakKeyDictionary()


def random_idx(cum_weights: list[float], rng: random.Random) -> int:
    """WebShop's ``utils.random_idx``, from a caller's rng: ``bisect`` into ``[0] + cumsum(weights)``.

    Kept exactly, quirk included: a draw in goal i's weight band returns i + 1 (the last index
    absorbs the overflow), so by random draw goal 0 is never chosen and the last goal twice as often.
    """
    pos = rng.uniform(0, cum_weights[-1])
    return min(bisect.bisect(cum_weights, pos), len(cum_weights) - 2)


def product_dict(p: Product, human_goals: bool) -> dict[str, Any]:
    """A product as WebShop's ``load_products`` leaves it: the file's fields plus the derived ones.

    The file's own ``customization_options`` are not kept by our loader; they are rebuilt from the
    normalised options (lower-cased, ``/`` shown as ``' | '``) plus the axes the file lists as
    ``null`` (so ``len()`` counts axes as WebShop's does), ``''`` when there are none, as in
    WebShop's files. ``small_description`` is the bullet list (a bare string arrives wrapped).
    """
    options: dict[str, list[dict[str, Any]] | None] = {
        axis: [{"value": v, "image": p.option_to_image.get(v)} for v in values] for axis, values in p.options.items()
    }
    options.update(dict.fromkeys(p.null_option_axes))
    raw_options: dict[str, list[dict[str, Any]] | None] | str = options or ""
    d: dict[str, Any] = {
        "asin": p.asin,
        "name": p.title,
        "full_description": p.description,
        "small_description": list(p.bullet_points),
        "pricing": list(p.pricing),
        "images": list(p.images),
        "customization_options": raw_options,
        "product_category": p.product_category,
        "query": p.query,
        "category": p.category,
        "Title": p.title,
        "Description": p.description,
        "Reviews": [{"title": r.title, "score": r.score, "body": r.body} for r in p.reviews],
        "Rating": p.rating,
        "BulletPoints": list(p.bullet_points),
        "Price": p.price_text,
        "options": {axis: list(values) for axis, values in p.options.items()},
        "option_to_image": dict(p.option_to_image),
        "Attributes": list(p.attributes),
    }
    if human_goals:
        if p.human_instructions:
            d["instructions"] = [dict(x) for x in p.human_instructions]
    else:
        d["instruction_text"] = p.instruction_text
        d["instruction_attributes"] = None if p.instruction_attributes is None else list(p.instruction_attributes)
    d["MainImage"] = p.main_image
    return d


class WebShopServer:
    """WebShop's ``SimServer`` surface over a :class:`Shop`; pages still come from ``ShopSession``.

    ``filter_goals`` and ``limit_goals`` act as in ``SimServer.__init__``: the filter sees
    ``(i, goal)`` in shuffled order, then ``limit_goals`` keeps that many distinct goals drawn
    with :func:`random_idx`. WebShop draws them from the global ``random`` just after its
    ``random.seed(233)`` shuffle; we replay that state (a ``Random(233)`` that has shuffled as many
    goals), so the same goals are kept, without touching global state.
    """

    def __init__(
        self,
        shop: Shop,
        *,
        filter_goals: GoalFilter | None = None,
        limit_goals: int = -1,
        base_url: str = routes.DEFAULT_BASE_URL,
    ):
        self.shop, self.base_url = shop, base_url
        self.show_attrs = shop.show_attrs
        self.human_goals = bool(shop.goals) and isinstance(shop.goals[0].goal_options, list)
        models = list(shop.goals)
        dicts = [goal_dict(g) for g in models]
        if filter_goals is not None:
            keep = [i for i, g in enumerate(dicts) if filter_goals(i, g)]
            models, dicts = [models[i] for i in keep], [dicts[i] for i in keep]
        if limit_goals != -1 and limit_goals < len(dicts):
            rng = random.Random(GOAL_SHUFFLE_SEED)
            rng.shuffle(list(range(len(shop.goals))))  # advance to the state WebShop's limit draws start from
            idxs = self._limit(dicts, limit_goals, rng)
            models, dicts = [models[i] for i in idxs], [dicts[i] for i in idxs]
        if not dicts:
            raise ConfigError("no goals left after filter_goals/limit_goals")
        self._goal_models: list[Goal] = models
        self.goals: list[dict[str, Any]] = dicts
        self.weights: list[float] = [g["weight"] for g in dicts]
        self.cum_weights: list[float] = [0, *itertools.accumulate(self.weights)]
        self.user_sessions: dict[str, dict[str, Any]] = {}
        self.assigned_instruction_text: str | None = None
        self._session_goal: dict[str, int] = {}

    @staticmethod
    def _limit(dicts: list[dict[str, Any]], limit: int, rng: random.Random) -> list[int]:
        """WebShop's loop: draw until ``limit`` distinct indices (refusing a limit it could never meet)."""
        if limit <= 0:  # WebShop keeps no goal; we then refuse an empty goal list
            return []
        weights = [g["weight"] for g in dicts]
        n = len(weights)  # > limit >= 1
        # random_idx returns i (1 <= i <= n-2) for goal i-1's band and n-1 for the last two bands
        drawable = sum(w > 0 for w in weights[: n - 2]) + (weights[-2] + weights[-1] > 0)
        if sum(weights) == 0:
            drawable = 1  # every draw lands on the last goal
        if limit > drawable:
            raise ConfigError(f"limit_goals={limit}: only {drawable} of these goals can be drawn (WebShop's "
                              "random_idx never returns goal 0 or a goal after a zero weight); WebShop would loop forever")
        cum = [0, *itertools.accumulate(weights)]
        idxs: list[int] = []
        while len(idxs) < limit:
            idx = random_idx(cum, rng)
            if idx not in idxs:
                idxs.append(idx)
        return idxs

    # ---- WebShop's views ------------------------------------------------------------------------
    @property
    def product_item_dict(self) -> dict[str, dict[str, Any]]:
        """``asin -> product dict``, built on first use and shared by every facade of this Shop."""
        cached = _PRODUCT_DICTS.get(self.shop)
        if cached is None:
            cached = {p.asin: product_dict(p, self.human_goals) for p in self.shop.product_list}
            _PRODUCT_DICTS[self.shop] = cached
        return cached

    @property
    def all_products(self) -> list[dict[str, Any]]:
        """The product dicts in file order (``SimServer.all_products``)."""
        return list(self.product_item_dict.values())

    @property
    def product_prices(self) -> Mapping[str, float]:
        """``asin -> price``, read-only: the shop's rewards use these prices."""
        return types.MappingProxyType(self.shop.prices)

    # ---- what the shim calls (WebShop's ``receive`` bookkeeping) -------------------------------
    def open_session(self, session_id: str, session_int: int | None, rng: random.Random) -> Goal:
        """Start or restart a session and return its goal.

        A new session gets goal ``session_int`` or a :func:`random_idx` draw; a known session id
        keeps its goal. Either way the navigation fields are cleared, but ``done`` is not (WebShop
        sets it only when the session is created).
        """
        if session_id not in self.user_sessions:
            if session_int is None:
                idx = random_idx(self.cum_weights, rng)
            elif -len(self.goals) <= session_int < len(self.goals):
                idx = session_int % len(self.goals)
            else:
                raise ConfigError(f"goal {session_int} does not exist: this server has {len(self.goals)} goals "
                                  f"(0..{len(self.goals) - 1})")
            self.user_sessions[session_id] = {"goal": self.goals[idx], "done": False}
            self._session_goal[session_id] = idx
        self.user_sessions[session_id].update(
            {"keywords": None, "page": None, "asin": None, "asins": set(), "options": {}, "actions": defaultdict(int)}
        )
        return self.session_goal(session_id)

    def session_goal(self, session_id: str) -> Goal:
        """The session's goal, showing its goal dict's ``instruction_text`` (set here from
        ``assigned_instruction_text`` first, as ``receive`` does on every request).
        """
        goal_d = self.user_sessions[session_id]["goal"]
        if self.assigned_instruction_text is not None:
            goal_d["instruction_text"] = self.assigned_instruction_text
        goal = self._goal_models[self._session_goal[session_id]]
        text = goal_d["instruction_text"]
        if text == goal.instruction_text:
            return goal
        # the pages show it as PageState.instruction, built without validation: checked here, where it comes in
        return goal.model_copy(update={"instruction_text": _INSTRUCTION.validate_python(text)})

    def note_search(self, session_id: str, keywords: list[str], page: int) -> None:
        """A results page was shown (a search, ``next >``, ``< prev``): options and asin clear."""
        s = self.user_sessions[session_id]
        s.update({"page": page, "keywords": keywords, "asin": None, "options": {}})
        s["actions"]["search"] += 1

    def note_click(self, session_id: str, kind: str, arg: str, axis: str | None = None) -> None:
        """A click on an item page: a product link, an option value or a sub-page button."""
        s = self.user_sessions[session_id]
        if kind == "product":
            s["asin"] = arg.upper()
            s["actions"]["asin"] += 1
            s["asins"].add(s["asin"])
        elif kind == "option" and axis is not None:
            s["options"][axis.lower()] = arg
            s["actions"]["options"] += 1
        elif kind == "sub_page":
            s["actions"][arg.capitalize()] += 1

    def note_purchase(self, session_id: str, reward: float, info: dict[str, Any]) -> None:
        """``Buy Now``: the session is done, with its reward and WebShop's reward breakdown."""
        s = self.user_sessions[session_id]
        s["actions"]["purchase"] += 1
        s.update({"verbose_info": info, "done": True, "reward": reward})

    def note_back_to_search(self, session_id: str) -> None:
        """``Back to Search`` resets the session's navigation, as a fresh index page does."""
        s = self.user_sessions[session_id]
        s.update({"keywords": None, "page": None, "asin": None, "asins": set(), "options": {}, "actions": defaultdict(int)})
