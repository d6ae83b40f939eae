"""WebShop's ``web_agent_site.utils``: where its data files are, ``random_idx``, the session logger.

WebShop hard-codes ``<repo>/data/...``; here the folder is ``$SHOPSIM_DATA`` (WebShop's data
folder, or a store from ``shopsim data prepare``). The paths are fixed at import, as WebShop's are,
so set the variable before importing. Without it they point at WebShop's own relative location
(which does not exist in an installed package) and the environments say in one line how to get the
data, then use shopsim's bundled catalog.
"""

from __future__ import annotations

import hashlib
import logging
import random
import sys
from collections.abc import Collection
from os.path import abspath, dirname
from pathlib import Path

from shopsim.adapters.webshop_server import random_idx as _random_idx
from shopsim.errors import ConfigError, DataError
from shopsim.simsite.datafiles import GET_DATA_HINT, env_data_dir
from shopsim.simsite.store.manifest import is_store

__all__ = [
    "BASE_DIR",
    "DATA_DIR",
    "DATA_ERROR",
    "DATA_FROM_ENV",
    "DEBUG_PROD_SIZE",
    "DEFAULT_ATTR_PATH",
    "DEFAULT_FILE_PATH",
    "DEFAULT_REVIEW_PATH",
    "FEAT_CONV",
    "FEAT_IDS",
    "HUMAN_ATTR_PATH",
    "default_file",
    "generate_mturk_code",
    "random_idx",
    "setup_logger",
]

BASE_DIR = dirname(abspath(__file__))
#: WebShop's switch for a debug-sized catalog; ``None`` (all products) as WebShop ships it.
DEBUG_PROD_SIZE: int | None = None


def _data_dir() -> tuple[Path, bool, str | None]:
    """``($SHOPSIM_DATA, True, None)``, or WebShop's relative ``data`` folder, False and why the variable
    was refused (None when unset). Importing never fails: an environment built on the defaults
    refuses a bad value in one line (:func:`default_file`)."""
    try:
        root = env_data_dir()
    except DataError as e:
        return Path(BASE_DIR).parent / "data", False, str(e)
    return (root, True, None) if root is not None else (Path(BASE_DIR).parent / "data", False, None)


def _pick(root: Path, full: str, small: str) -> Path:
    """WebShop's full-size file when the folder has it, else the 1,000-product one."""
    return root / full if (root / full).exists() else root / small


DATA_DIR, DATA_FROM_ENV, DATA_ERROR = _data_dir()
if is_store(DATA_DIR):  # a prepared store is one folder; the environments open it whole
    DEFAULT_FILE_PATH = DEFAULT_ATTR_PATH = HUMAN_ATTR_PATH = DEFAULT_REVIEW_PATH = str(DATA_DIR)
else:
    DEFAULT_FILE_PATH = str(_pick(DATA_DIR, "items_shuffle.json", "items_shuffle_1000.json"))
    DEFAULT_ATTR_PATH = str(_pick(DATA_DIR, "items_ins_v2.json", "items_ins_v2_1000.json"))
    HUMAN_ATTR_PATH = str(DATA_DIR / "items_human_ins.json")
    DEFAULT_REVIEW_PATH = str(DATA_DIR / "reviews.json")
FEAT_CONV = str(DATA_DIR / "feat_conv.pt")
FEAT_IDS = str(DATA_DIR / "feat_ids.pt")
_warned_default = False


def default_file(file_path: str | Path | None, defaults: Collection[str] = ()) -> str | Path | None:
    """``file_path``, or None (shopsim's bundled catalog) when it is a default path (WebShop's, or one of
    ``defaults``) and there is no data there, saying so in one line once; any other missing path is refused."""
    global _warned_default
    if file_path is None or Path(file_path).exists():
        return file_path
    if str(file_path) in {DEFAULT_FILE_PATH, *defaults} and not DATA_FROM_ENV:
        if DATA_ERROR is not None:  # the user set $SHOPSIM_DATA and meant their data: never swap in ours
            raise ConfigError(DATA_ERROR)
        if not _warned_default:
            _warned_default = True
            print(f"web_agent_site: no WebShop data at {file_path}; {GET_DATA_HINT}. "
                  "Using shopsim's bundled 600-product catalog.", file=sys.stderr)
        return None
    raise ConfigError(f"file_path {file_path}: no such file ({GET_DATA_HINT})")


def random_idx(cum_weights: list[float]) -> int:
    """WebShop's weighted goal draw from the global ``random`` (``[0] + cumsum(weights)``).

    Its quirk is kept: goal 0 is never drawn and the last goal twice as often
    (see :func:`shopsim.adapters.webshop_server.random_idx`, which takes an rng instead).
    """
    return _random_idx(cum_weights, random)  # type: ignore[arg-type]  # the module has Random's methods


def setup_logger(session_id: str, user_log_dir: Path) -> logging.Logger:
    """A logger writing bare messages to ``user_log_dir/<session_id>.jsonl`` (truncated), as WebShop's app logs.

    A session id that is not a plain file name is refused (WebShop would write outside the folder).
    """
    if not session_id or Path(session_id).name != session_id or session_id in (".", ".."):
        raise ValueError(f"session id {session_id!r} is not a plain file name")
    logger = logging.getLogger(session_id)
    handler = logging.FileHandler(Path(user_log_dir) / f"{session_id}.jsonl", mode="w")
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    return logger


def generate_mturk_code(session_id: str) -> str:
    """The redeem code WebShop shows on its done page: the first 10 hex digits of SHA-1, upper-cased."""
    return hashlib.sha1(session_id.encode()).hexdigest()[:10].upper()
