"""WebShop's ``web_agent_site.engine``: search and page helpers (``engine``), goals and rewards
(``goal``), option normalisation (``normalize``)."""
