"""The task ids ``import browsergym.shopsim`` registers: ``browsergym/shopsim.<split>.<n>``.

``n`` counts from the start of WebShop's split (:data:`shopsim.simsite.goals.SPLITS`: test = goals
0-499, eval = 500-1499, train = 1500 on), the way ``POST /api/sessions`` reads ``{"split", "goal"}``:
``shopsim.eval.0`` plays goal 500. Which goals exist depends on the data the server serves, which
importing must not load (that takes seconds), so every id WebShop's full data defines is registered
and a goal the served data lacks is refused at ``reset`` with one clear line.
"""

from __future__ import annotations

from shopsim.simsite.goals import SPLITS

__all__ = ["BENCHMARK", "WEBSHOP_GOALS", "goal_index", "split_names", "task_name"]

#: The prefix of every id after ``browsergym/``.
BENCHMARK = "shopsim"
#: Goals in WebShop's full data (human instructions): test 500, eval 1000, train 10,587.
WEBSHOP_GOALS = 12_087


def _bounds(split: str) -> tuple[int, int]:
    lo, hi = SPLITS[split]
    return lo, WEBSHOP_GOALS if hi is None else hi


def task_name(split: str, n: int) -> str:
    """The id without ``browsergym/``: ``shopsim.test.3``."""
    return f"{BENCHMARK}.{split}.{n}"


def split_names(split: str) -> list[str]:
    """Every task name of ``split``, in goal order."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: expected one of {', '.join(SPLITS)}")
    lo, hi = _bounds(split)
    return [task_name(split, n) for n in range(hi - lo)]


def goal_index(split: str, n: int) -> int:
    """The absolute goal index (``fixed_<index>``) of task ``n`` of ``split``."""
    lo, hi = _bounds(split)
    if not 0 <= n < hi - lo:
        raise ValueError(f"goal {n} is outside split {split} ({hi - lo} goals)")
    return lo + n
