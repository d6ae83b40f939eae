"""The ``webshop_minimal`` fork's names (RAGEN, ROLL), backed by shopsim: a compatibility façade.

``from webshop_minimal import WebAgentTextEnv, init_basedir``; ``webshop_minimal.env`` (``SimServer``,
``WebAgentTextEnv``), ``webshop_minimal.utils`` (``init_basedir``, ``get_file_path``, the data paths)
and ``webshop_minimal.engine`` (``parse_action``). ``init_basedir('small'|'full')`` points the paths at
``$SHOPSIM_DATA``'s 1,000-product or full files.
"""

from webshop_minimal.env import WebAgentTextEnv
from webshop_minimal.utils import init_basedir

__all__ = ["WebAgentTextEnv", "init_basedir"]
