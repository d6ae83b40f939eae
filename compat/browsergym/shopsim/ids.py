"""The task ids ``import browsergym.shopsim`` registers: ``browsergym/shopsim.<split>.<n>`` (WebShop) and
``browsergym/shopsim.v8.<split>.<n>`` (shopsim-v8 task indices below :data:`V8_TASKS`, the same split ranges).

``n`` counts from the start of WebShop's split (:data:`shopsim.simsite.goals.SPLITS`: test = goals
0-499, eval = 500-1499, train = 1500 on), the way ``POST /api/sessions`` reads ``{"split", "goal"}``:
``shopsim.eval.0`` plays goal 500. Which goals exist depends on the data the server serves, which
importing must not load (that takes seconds), so every id WebShop's full data defines is registered
and a goal the served data lacks is refused at ``reset`` with one clear line.
"""

from __future__ import annotations

from shopsim.simsite.goals import SPLITS

__all__ = ["BENCHMARK", "V8_TASKS", "WEBSHOP_GOALS", "goal_index", "split_names", "task_name"]

#: The prefix of every id after ``browsergym/``.
BENCHMARK = "shopsim"
#: Goals in WebShop's full data (human instructions): test 500, eval 1000, train 10,587.
WEBSHOP_GOALS = 12_087
#: The v8 ids' fixed ceiling: task indices below it get ids (the bundled catalog has 1,146 tasks; an
#: imported archive may hold more). ``shopsim.v8.<split>.<n>`` is task index ``lo + n`` of ``split``'s
#: range in :data:`SPLITS`, the tasks ``shopsim eval --profile shopsim-v8 --goals <split>`` plays.
V8_TASKS = 20_000


def _bounds(split: str, v8: bool = False) -> tuple[int, int]:
    lo, hi = SPLITS[split]
    return lo, (V8_TASKS if v8 else WEBSHOP_GOALS) if hi is None else hi


def task_name(split: str, n: int, v8: bool = False) -> str:
    """The id without ``browsergym/``: ``shopsim.test.3`` (``shopsim.v8.test.3`` for a v8 task)."""
    return f"{BENCHMARK}.v8.{split}.{n}" if v8 else f"{BENCHMARK}.{split}.{n}"


def split_names(split: str, v8: bool = False) -> list[str]:
    """Every task name of ``split`` (of the v8 profile when ``v8``), in goal order."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: expected one of {', '.join(SPLITS)}")
    lo, hi = _bounds(split, v8)
    return [task_name(split, n, v8) for n in range(hi - lo)]


def goal_index(split: str, n: int, v8: bool = False) -> int:
    """The absolute goal index (``fixed_<index>``; a v8 task's index in the catalog) of task ``n`` of ``split``."""
    lo, hi = _bounds(split, v8)
    if not 0 <= n < hi - lo:
        raise ValueError(f"goal {n} is outside split {split} ({hi - lo} goals)")
    return lo + n
