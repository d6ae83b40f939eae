"""The WebShop shim freezes what exists once it has loaded its shop (``gc.freeze``), unless told not to.

Why it matters: a full collection walks every tracked object, the catalog's too; frozen, it never does.
What must hold: frozen objects are still freed by reference counting (a dropped shop goes), and
``freeze_gc=False`` leaves the collector alone.
"""

from __future__ import annotations

import gc
import weakref

from shopsim.adapters.webshop_env import load_shop
from shopsim.simsite.session import ShopSession


def test_loading_a_shop_freezes_what_exists_unless_told_not_to() -> None:
    gc.unfreeze()
    try:
        load_shop(None, {"freeze_gc": False})
        assert gc.get_freeze_count() == 0
        shop = load_shop(None, {})
        assert gc.get_freeze_count() > 0
        session = ShopSession(shop, shop.goals[0], "s")
        assert session.step("search[red shirt]").page.page_type == "results"
        ref = weakref.ref(shop)
        del shop, session
        assert ref() is None  # freed by reference counting, frozen or not
    finally:
        gc.unfreeze()
