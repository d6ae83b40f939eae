"""ShopSimulator v8 (``shopsimulator-paper-aligned-v8``): the second profile, beside WebShop's.

Its own catalog format and persona tasks, CJK multi-field search, selected-SKU prices and budgets,
the paper reward with ``r_strict`` on top, ``observation_state`` and the two-tool protocol. Nothing
here changes how the WebShop profile behaves.
"""
