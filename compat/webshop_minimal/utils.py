"""``webshop_minimal.utils``: data paths set by ``init_basedir(dataset)``, WebShop's helpers.

The fork leaves the paths empty until ``init_basedir`` is called; so does this module. The folder is
``$SHOPSIM_DATA`` (its ``small``/``full`` sub-folder when it has one, as the fork lays data out).
"""

from __future__ import annotations

from pathlib import Path

from shopsim.simsite.store.manifest import is_store
from web_agent_site import utils as _site
from web_agent_site.utils import BASE_DIR, generate_mturk_code, random_idx, setup_logger

__all__ = [
    "BASE_DIR",
    "DEFAULT_ATTR_PATH",
    "DEFAULT_FILE_PATH",
    "FEAT_CONV",
    "FEAT_IDS",
    "HUMAN_ATTR_PATH",
    "generate_mturk_code",
    "get_file_path",
    "init_basedir",
    "random_idx",
    "setup_logger",
]

DEFAULT_ATTR_PATH = ""
DEFAULT_FILE_PATH = ""
FEAT_CONV = _site.FEAT_CONV
FEAT_IDS = _site.FEAT_IDS
HUMAN_ATTR_PATH = _site.HUMAN_ATTR_PATH
_FILES = {"small": ("items_shuffle_1000.json", "items_ins_v2_1000.json"),
          "full": ("items_shuffle.json", "items_ins_v2.json")}


def init_basedir(dataset: str = "small") -> None:
    """Point ``DEFAULT_FILE_PATH``/``DEFAULT_ATTR_PATH`` at the ``small`` (1,000 products) or ``full`` files."""
    global DEFAULT_ATTR_PATH, DEFAULT_FILE_PATH, HUMAN_ATTR_PATH
    if dataset not in _FILES:
        raise ValueError("dataset must be either 'small' or 'full'")
    items, attrs = _FILES[dataset]
    root = Path(_site.DATA_DIR)
    if is_store(root):  # a prepared store is opened whole, whatever the dataset name
        DEFAULT_FILE_PATH = DEFAULT_ATTR_PATH = HUMAN_ATTR_PATH = str(root)
        return
    if (root / dataset / items).exists():
        root = root / dataset
    DEFAULT_FILE_PATH, DEFAULT_ATTR_PATH = str(root / items), str(root / attrs)
    HUMAN_ATTR_PATH = str(root / "items_human_ins.json")


def get_file_path() -> str:
    """The items file ``init_basedir`` chose (empty before it is called)."""
    return DEFAULT_FILE_PATH
