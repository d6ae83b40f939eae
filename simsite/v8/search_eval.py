"""Offline search quality of the v8 index: where does each task's own product rank?

The seed's proxy (``evaluate_search.py``): for every task, the simple instruction and the full
instruction are sent as oracle queries, and Recall@1/20/150 and MRR@150 of the gold ASIN are
reported. It detects index regressions (weights, tokens, field extraction); it is not the agent's
reward, which also credits non-gold products that meet every requirement.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel

from shopsim.errors import ConfigError
from shopsim.simsite.v8.records import V8Catalog, V8Task
from shopsim.simsite.v8.search import RESULTS_N, SEARCH_VERSION, V8SearchEngine

__all__ = ["QueryKindStats", "SearchEvalReport", "evaluate_search"]


class QueryKindStats(BaseModel):
    """Gold-ASIN retrieval of one query kind; rates are fractions in [0, 1]."""

    query_kind: str
    tasks: int
    recall_at_1: float
    recall_at_20: float
    recall_at_150: float
    mrr_at_150: float


class SearchEvalReport(BaseModel):
    """Both query kinds over the same tasks, plus what was measured."""

    search_version: str
    engine: str
    products: int
    tasks: int
    simple: QueryKindStats
    full: QueryKindStats
    gold_ranks: dict[int, tuple[int | None, int | None]]  # task id -> (simple rank, full rank); None: not in top 150

    @property
    def rows(self) -> list[QueryKindStats]:
        """The simple-request and full-instruction rows."""
        return [self.simple, self.full]


def _rank(engine: V8SearchEngine, query: str, asin: str) -> int | None:
    for i, (hit, _) in enumerate(engine.search(query, RESULTS_N), start=1):
        if hit == asin:
            return i
    return None


def _stats(kind: str, ranks: Sequence[int | None]) -> QueryKindStats:
    n = len(ranks)

    def recall(k: int) -> float:
        return sum(1 for r in ranks if r is not None and r <= k) / n if n else 0.0

    mrr = sum(1.0 / r for r in ranks if r is not None) / n if n else 0.0
    return QueryKindStats(query_kind=kind, tasks=n, recall_at_1=recall(1), recall_at_20=recall(20),
                          recall_at_150=recall(RESULTS_N), mrr_at_150=mrr)


def evaluate_search(catalog: V8Catalog, engine: V8SearchEngine, task_ids: Sequence[int] | None = None,
                    workers: int = 1) -> SearchEvalReport:
    """Rank of each task's own product for its simple and its full instruction (all tasks by default).

    ``workers`` threads run the queries; each task's ranks depend only on the index and its own
    text, and they are gathered in task order, so the report is identical for any ``workers``. Threads
    give no speed-up with today's engines (fts5 serialises on its connection, numpy holds the GIL).
    """
    if workers < 1:
        raise ConfigError(f"--workers {workers}: must be >= 1")
    if task_ids is None:
        tasks = list(catalog.tasks)
    else:
        tasks = []
        for tid in task_ids:
            task = catalog.task(tid)
            if task is None:
                raise ConfigError(f"unknown task id {tid}: the catalog has {len(catalog.tasks)} tasks")
            tasks.append(task)

    def ranks_of(task: V8Task) -> tuple[int | None, int | None]:
        return _rank(engine, task.simple_text, task.asin), _rank(engine, task.instruction, task.asin)

    if workers == 1:
        found = [ranks_of(t) for t in tasks]
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="search-eval") as pool:
            found = list(pool.map(ranks_of, tasks))
    ranks = {t.task_id: r for t, r in zip(tasks, found, strict=True)}
    return SearchEvalReport(
        search_version=SEARCH_VERSION, engine=engine.kind, products=len(catalog.products), tasks=len(tasks),
        simple=_stats("instruction_simple", [s for s, _ in ranks.values()]),
        full=_stats("instruction", [f for _, f in ranks.values()]), gold_ranks=ranks)
