"""WebShop's ``web_agent_site`` package names, backed by shopsim: a compatibility façade.

Code written for princeton-nlp/WebShop imports these modules unchanged (``envs``, ``engine.engine``,
``engine.goal``, ``engine.normalize``, ``utils``, ``models``); every page, search, goal and reward
comes from shopsim's own layers (``shopsim.simsite``, ``shopsim.adapters``). Nothing here is a
second engine: each module maps WebShop's names and argument shapes onto ours. Data paths come
from ``$SHOPSIM_DATA`` (see :mod:`web_agent_site.utils`).
"""
