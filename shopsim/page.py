"""PageState: the one contract between shops, translators, renderers, adapters and agents.

Every page shopsim sees (its own simulated shop, a recorded Amazon or eBay page, a replayed bundle)
becomes one frozen ``PageState``. Text observations and valid actions are rendered from it alone, so
every site and every adapter yields the same format.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ClickKind",
    "Clickable",
    "Feedback",
    "FeedbackCode",
    "Navigation",
    "PageState",
    "PageType",
    "Price",
    "ProductView",
    "Purchase",
    "ResultCard",
    "Review",
    "Site",
    "SkuPrice",
    "SubPage",
    "css_string",
    "find_clickable",
    "trusted",
]

PageType = Literal["search", "results", "item", "item_detail", "done", "blocked", "unknown"]
Site = Literal["simsite", "amazon", "ebay", "other", "unknown"]
SubPage = Literal["Description", "Features", "Reviews", "Attributes"]
ClickKind = Literal["search", "back_to_search", "next", "prev", "product", "option", "sub_page", "buy"]
FeedbackCode = Literal[
    "ok",
    "unknown_action",
    "not_available",
    "empty_query",
    "query_too_long",
    "ambiguous_option",
    "options_incomplete",
    "episode_done",
    "action_limit",
    "not_recorded",
    "navigation_failed",
    # the shopsim-v8 profile's codes (ShopSimulator's names)
    "invalid_format",
    "search_unavailable",
    "unavailable_action",
    "already_selected",
    "incomplete_options",
]
#: A price as shown: one number, a displayed ``(low, high)`` range, or ``None`` when none is shown.
Price = float | tuple[float, float] | None


def css_string(text: str) -> str:
    """A CSS string literal for attribute selectors (``json.dumps`` escapes are not CSS escapes)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ").replace("\r", "\\d ")
    return f'"{out}"'


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResultCard(_Frozen):
    """One product on a results page."""

    id: str
    title: str
    price: Price = None
    price_text: str = ""
    sponsored: bool = False
    url: str | None = None


class Review(_Frozen):
    """One customer review as shown on a reviews sub-page."""

    title: str = ""
    score: float | None = None
    body: str = ""


class SkuPrice(_Frozen):
    """One SKU's own price as the page's SKU map states it; ``options`` holds a value of every axis."""

    options: dict[str, str]
    price: float


class ProductView(_Frozen):
    """The product shown on an item or item-detail page (only what the page shows)."""

    id: str
    title: str
    price: Price = None
    price_text: str = ""
    currency: str | None = "USD"
    rating: float | None = None
    rating_text: str = "N.A."
    options: dict[str, list[str]] = Field(default_factory=dict)
    selected: dict[str, str | None] = Field(default_factory=dict)
    option_urls: dict[str, dict[str, str]] = Field(default_factory=dict)
    bullet_points: list[str] = Field(default_factory=list)
    description: str = ""
    category_path: list[str] = Field(default_factory=list)
    images: list[str] = Field(default_factory=list)
    reviews: list[Review] = Field(default_factory=list)
    attributes: list[str] = Field(default_factory=list)
    sku_prices: list[SkuPrice] = Field(default_factory=list)
    """Each SKU's price where the page prices its combinations (Chinese shops' SKU maps), else empty."""

    def sku_price(self, selected: dict[str, str]) -> float | None:
        """The price of the SKU ``selected`` names on every axis, when the page states one."""
        return next((s.price for s in self.sku_prices if s.options == selected), None)


class Clickable(_Frozen):
    """One thing an agent may click: ``click[<arg>]``.

    ``arg`` is the exact action argument (lower-cased, as WebShop's text env keys them); ``text`` is
    what the page displays; ``selector`` locates the real element for a browser click; ``url`` is
    where a link-like clickable leads; ``axis`` names the option axis of an option value.
    """

    arg: str
    text: str
    kind: ClickKind
    selector: str | None = None
    url: str | None = None
    axis: str | None = None
    clicked: bool = False


class Feedback(_Frozen):
    """What happened to the last action; ``code == 'ok'`` unless it was refused."""

    code: FeedbackCode = "ok"
    message: str = ""


class Purchase(_Frozen):
    """What was bought on a done page."""

    id: str
    options: dict[str, str] = Field(default_factory=dict)
    price: float | None = None


class PageState(_Frozen):
    """Everything one page shows, for any site; nothing else is needed to render it."""

    page_type: PageType
    site: Site = "simsite"
    shop: str | None = None
    """Which shop, for real pages: ``amazon.co.uk``, ``ebay.de``, ``etsy``, ``shopify:ostrichpillow.com``."""
    currency: str | None = None
    """The currency a real page shows its prices in (ISO 4217), when it says."""
    url: str | None = None
    instruction: str | None = None
    query: str | None = None
    keywords: list[str] | None = None
    page_num: int | None = None
    total_results: int | None = None
    results: list[ResultCard] = Field(default_factory=list)
    next_page_url: str | None = None
    prev_page_url: str | None = None
    product: ProductView | None = None
    sub_page: SubPage | None = None
    clickables: list[Clickable] = Field(default_factory=list)
    has_search_bar: bool = False
    visited_ids: list[str] = Field(default_factory=list)
    feedback: Feedback = Feedback()
    purchase: Purchase | None = None
    reward: float | None = None
    reward_info: dict[str, Any] | None = None
    reason: str | None = None

    def clickable(self, arg: str) -> Clickable | None:
        """Return the clickable whose action argument is ``arg`` (case-insensitive), if any."""
        return find_clickable(self.clickables, arg)

    def valid_actions(self) -> dict[str, Any]:
        """WebShop's ``get_available_actions()`` shape: ``{has_search_bar, clickables}``."""
        return {"has_search_bar": self.has_search_bar, "clickables": [c.arg for c in self.clickables]}


def find_clickable(clickables: list[Clickable], arg: str) -> Clickable | None:
    """The first of ``clickables`` whose action argument is ``arg`` (case-insensitive), if any."""
    key = arg.lower()
    for c in clickables:
        if c.arg == key:
            return c
    return None


class Navigation(_Frozen):
    """Where an action leads, as ``resolve()`` says: load a URL, post a form, or purchase.

    ``kind='select'`` records an option choice that has no URL of its own; ``kind='sub_page'`` opens
    a real item page's Description / Features / Reviews / Attributes view from the page already
    loaded (``value`` names it; no request); ``kind='none'`` means the action does not navigate
    (refused; see ``feedback``).
    """

    kind: Literal["goto", "form", "purchase", "select", "sub_page", "none"]
    url: str | None = None
    method: Literal["GET", "POST"] = "GET"
    form: dict[str, str] = Field(default_factory=dict)
    selector: str | None = None
    axis: str | None = None
    value: str | None = None
    feedback: Feedback = Feedback()


# ---- trusted construction ---------------------------------------------------------------------------
M = TypeVar("M", bound=BaseModel)


class _Plan:
    """What :func:`trusted` needs of a model class, worked out once: its fields and their defaults."""

    def __init__(self, cls: type[BaseModel]):
        if cls.__pydantic_post_init__ or cls.__private_attributes__ or cls.__pydantic_root_model__ \
                or cls.model_config.get("extra") == "allow" or any(f.alias for f in cls.model_fields.values()):
            raise TypeError(f"trusted() builds plain field models only, not {cls.__name__}")
        #: Every field with its default, in field order (a factory's field is filled per instance).
        self.template = {name: info.default for name, info in cls.model_fields.items()}
        self.factories = tuple((name, info.default_factory) for name, info in cls.model_fields.items()
                               if info.default_factory is not None)


_PLANS: dict[type[BaseModel], _Plan] = {}


def trusted(cls: type[M], /, **values: Any) -> M:
    """A model from values that already are what validation would make of them, without validating.

    For the shop's own pages, built every step from data validated once (the catalog, the goal,
    the session's own strings). The result is what ``cls(**values)`` returns for such values:
    ``==``, the same ``model_fields_set``, the same field order, defaults filled as validation fills
    them (shared immutable defaults, a fresh container from each ``default_factory``). The caller
    guarantees the types (floats not ints, lists not tuples, valid literals, no unknown or missing
    fields) and passes fresh containers, since validation would copy them: nothing checks here, so
    ``tests/simsite/test_trusted_pages.py`` re-validates every model of real episodes' pages.
    ``model_construct`` is the library's way, but it walks aliases in Python and costs more than
    validating these small models; this does only what plain field models need (checked per class).
    """
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _Plan(cls)
    data = {**plan.template, **values}
    if plan.factories:  # most page models have none; the loop is skipped, not run empty (a step builds ~15)
        for name, factory in plan.factories:
            if name not in values:
                data[name] = factory()  # type: ignore[call-arg]
    obj = _new(cls)
    _setattr(obj, "__dict__", data)
    _setattr(obj, "__pydantic_fields_set__", set(values))
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    return obj


_setattr = object.__setattr__  # how pydantic itself sets a frozen model's slots
_new = object.__new__  # BaseModel has no __new__ of its own
