"""``webshop_minimal.engine``: WebShop's engine names (``parse_action``, the button constants, ...)."""

from web_agent_site.engine.engine import (
    BACK_TO_SEARCH,
    END_BUTTON,
    NEXT_PAGE,
    PREV_PAGE,
    get_product_per_page,
    get_top_n_product_from_keywords,
    init_search_engine,
    load_products,
    parse_action,
)

__all__ = [
    "BACK_TO_SEARCH",
    "END_BUTTON",
    "NEXT_PAGE",
    "PREV_PAGE",
    "get_product_per_page",
    "get_top_n_product_from_keywords",
    "init_search_engine",
    "load_products",
    "parse_action",
]
