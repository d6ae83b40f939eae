"""``shopsim data prepare``: stream a WebShop-format catalog into a store, in parallel, once.

The product file is read element by element (:class:`.jsonstream.JsonListReader`); the main
process applies WebShop's skip and first-wins rules and numbers the products, and chunks of 1,000
go to worker processes (:func:`.build.build_chunk`) that normalise, serialise and analyse them. A
record (and its review record) travels as its JSON text: decoding it again in the worker costs a
fraction of pickling the decoded objects. Results (bytes and numpy arrays) come back in order and
are appended to the blobs and postings; then the index is sorted by term, prices and goals are
drawn with the seed in WebShop's order (the goals in a thread, beside the index's sort), and every
file is written through a SHA-256 hasher, so the manifest costs no second read. The store is
built in ``OUT.partial`` and renamed into place, so a failed run leaves no half store.
``benchmarks/prepare.py`` times each phase.
"""

from __future__ import annotations

import collections
import concurrent.futures
import gc
import hashlib
import multiprocessing
import os
import random
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import numpy as np

import shopsim
from shopsim.errors import DataError
from shopsim.progress import Progress
from shopsim.simsite.datafiles import CatalogFiles, find_catalog_files, json_kind, load_side_files
from shopsim.simsite.goals import GOAL_SHUFFLE_SEED, goal_weight, price_limit
from shopsim.simsite.loader import first_records, warn_duplicates
from shopsim.simsite.out_guard import refuse_out_holding
from shopsim.simsite.records import review_asin
from shopsim.simsite.store.build import Chunk, ChunkResult, Record, build_chunk, set_files
from shopsim.simsite.store.index import build_postings
from shopsim.simsite.store.jsonstream import JsonListReader
from shopsim.simsite.store.manifest import (
    STORE_FORMAT,
    FileEntry,
    StoreManifest,
    file_sha256,
    is_store,
    sample_sha256,
    write_manifest,
)
from shopsim.simsite.store.tags import tag_store, titles_kept

__all__ = ["CHUNK", "PARALLEL_FROM_BYTES", "prepare_store"]

CHUNK = 1000
_MAX_GOALS = 1 << 31
PARALLEL_FROM_BYTES = 20 << 20
"""Product files this large are prepared by a process pool unless ``workers`` says otherwise."""


class _HashedWriter:
    """A binary file that hashes what is written to it (``np.save`` writes through ``write``)."""

    def __init__(self, path: Path):
        self.path = path
        self.file: BinaryIO = open(path, "wb")  # noqa: SIM115 -- closed in close()
        self.hash = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes | memoryview) -> int:
        self.hash.update(data)
        self.size += len(data)
        return self.file.write(data)

    def close(self) -> FileEntry:
        self.file.close()
        return FileEntry(name=self.path.name, size=self.size, sha256=self.hash.hexdigest())


class _Files:
    """The store's files as they are written, with their entries for the manifest."""

    def __init__(self, root: Path):
        self.root = root
        self.entries: dict[str, FileEntry] = {}

    def open(self, name: str) -> _HashedWriter:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return _HashedWriter(path)

    def done(self, name: str, writer: _HashedWriter) -> None:
        entry = writer.close()
        self.entries[name] = entry.model_copy(update={"name": name, "sample": sample_sha256(writer.path)})

    def array(self, name: str, value: np.ndarray) -> None:
        writer = self.open(name)
        np.save(writer, np.ascontiguousarray(value), allow_pickle=False)  # type: ignore[arg-type]
        self.done(name, writer)

    def blob(self, name: str, value: bytes) -> None:
        writer = self.open(name)
        writer.write(value)
        self.done(name, writer)


def _source(path: Path | None, sha256: str | None = None) -> FileEntry | None:
    if path is None:
        return None
    return FileEntry(name=path.name, size=path.stat().st_size, sha256=sha256 or file_sha256(path))


class _Collected:
    """What the main process keeps of every chunk, in document order."""

    def __init__(self, files: _Files, nouns: bool | None):
        self.nouns = nouns
        self.products = files.open("products.bin")
        self.human = files.open("human.bin")
        self.product_sizes: list[np.ndarray] = []
        self.human_sizes: list[np.ndarray] = []
        self.price_lo: list[np.ndarray] = []
        self.price_hi: list[np.ndarray] = []
        self.is_range: list[np.ndarray] = []
        self.vocab: dict[str, int] = {}
        self.term_ids: list[np.ndarray] = []
        self.docs: list[np.ndarray] = []
        self.tfs: list[np.ndarray] = []
        self.lengths: list[np.ndarray] = []
        self.count = 0
        self.instructions: list[tuple[int, int, tuple[str, ...]]] = []
        self.human_goals: list[tuple[int, int]] = []
        self.titles: list[str] | None = [] if nouns is not False else None

    def add(self, r: ChunkResult) -> None:
        self.products.write(r.products)
        self.product_sizes.append(r.product_sizes)
        self.human.write(r.human)
        self.human_sizes.append(r.human_sizes)
        self.titles = titles_kept(self.titles, r.titles, self.nouns)
        self.price_lo.append(r.price_lo)
        self.price_hi.append(r.price_hi)
        self.is_range.append(r.is_range)
        vocab = self.vocab
        remap = np.array([vocab.setdefault(t, len(vocab)) for t in r.terms], dtype=np.int32)
        self.term_ids.append(remap[r.term_ids] if len(r.term_ids) else r.term_ids)
        self.docs.append(r.docs)
        self.tfs.append(r.tfs)
        self.lengths.append(r.lengths)
        self.count += len(r.lengths)
        self.instructions += r.instructions
        self.human_goals += r.human_goals

    def abandon(self) -> None:
        """Close the blob files of a prepare that failed: no handle outlives it."""
        self.products.file.close()
        self.human.file.close()


def _cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype=dtype)


def _offsets(sizes: list[np.ndarray]) -> np.ndarray:
    out = np.zeros(sum(len(s) for s in sizes) + 1, dtype=np.int64)
    if len(out) > 1:
        np.cumsum(np.concatenate(sizes), out=out[1:])
    return out


def _review_index(files: CatalogFiles, progress: Progress) -> tuple[dict[str, tuple[int, str]], str | None]:
    """ASIN -> (record index, record's JSON text) of the review file, a later record winning as in
    WebShop (text: it is sent to a worker, and the decoded records would take several times the memory).
    """
    if files.reviews is None:
        return {}, None
    out: dict[str, tuple[int, str]] = {}
    reader = JsonListReader(files.reviews, "a JSON list of review records")
    for i, rec, text in reader.with_text():
        if not isinstance(rec, dict):
            raise DataError(f"{files.reviews}: record {i}: expected an object, got {json_kind(rec)}")
        out[review_asin(rec, i, files.reviews)] = (i, text)
    progress.update(reader.size)
    return out, reader.sha256


def _chunks(reader: JsonListReader, files: CatalogFiles, num_products: int | None, attributes: dict[str, Any],
            human: dict[str, Any], reviews: dict[str, tuple[int, str]], state: dict[str, Any],
            texts: bool) -> Iterator[Chunk]:
    """Number the products (WebShop's skip and first-wins rules) and cut them into chunks.

    With ``texts`` a record travels as its JSON text (for a worker process), else as decoded.
    """
    last: list[Any] = [None, ""]  # the record first_records last took, and its JSON text

    def objects() -> Iterator[tuple[int, dict[str, Any]]]:
        for i, raw, text in reader.with_text():
            if num_products is not None and i >= num_products:
                return
            state["records"] = i + 1
            if not isinstance(raw, dict):
                raise DataError(f"{files.items}: record {i}: expected an object, got {json_kind(raw)}")
            last[:] = raw, text
            yield i, raw

    records: list[Record] = []
    first = 0
    for doc, (i, asin, raw) in enumerate(first_records(objects(), files.items, state["duplicates"]), 1):
        if "\0" in asin:
            raise DataError(f"{files.items}: record {i}: field 'asin': {asin!r} holds a NUL character, "
                            "which a store cannot keep")
        state["asins"].append(asin)
        if raw is not last[0]:
            raise RuntimeError("first_records() must yield each record it keeps before taking the next")
        records.append((i, asin, last[1] if texts else raw, attributes.get(asin), human.get(asin), reviews.get(asin)))
        if len(records) == CHUNK:
            yield first, records
            first, records = doc, []
    if records:
        yield first, records


def _workers(files: CatalogFiles, workers: int | None) -> int:
    if workers is not None:
        return max(1, workers)
    return 1 if files.items.stat().st_size < PARALLEL_FROM_BYTES else min(os.cpu_count() or 1, 16)


def _run_chunks(chunks: Iterator[Chunk], files: CatalogFiles, workers: int, collected: _Collected) -> None:
    """Build every chunk (in a pool when ``workers > 1``) and collect the results in order."""
    if workers == 1:
        set_files(files)
        for chunk in chunks:
            collected.add(build_chunk(chunk))
        return
    context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
    with context.Pool(workers, initializer=set_files, initargs=(files,)) as pool:
        pending: collections.deque[Any] = collections.deque()
        for chunk in chunks:
            pending.append(pool.apply_async(build_chunk, (chunk,)))
            while len(pending) > 2 * workers:  # bounded: the file never sits in memory whole
                collected.add(pending.popleft().get())
        while pending:
            collected.add(pending.popleft().get())


def _goal_arrays(c: _Collected, prices: np.ndarray, rng: random.Random) -> dict[str, np.ndarray]:
    """WebShop's synthetic goals as arrays, shuffled as WebShop shuffles them."""
    inst_docs = np.array([d for d, _, _ in c.instructions], dtype=np.int32)
    combos = np.array([n for _, n, _ in c.instructions], dtype=np.int64)
    uppers = np.array([price_limit(p, rng)[0] for p in prices[inst_docs].tolist()], dtype=np.float64)
    counts: dict[str, int] = collections.defaultdict(int)
    for _, n, attrs in c.instructions:
        for a in attrs:
            counts[a] += n
    weights = np.array([goal_weight(list(attrs), counts) if n else 0.0 for _, n, attrs in c.instructions],
                       dtype=np.float64)
    total = int(combos.sum())
    if total > _MAX_GOALS:
        raise DataError(f"{total} synthetic goals (one per option combination): more than a store keeps ({_MAX_GOALS})")
    starts = np.zeros(len(combos), dtype=np.int64)
    if len(combos):
        np.cumsum(combos[:-1], out=starts[1:])
    goal_inst = np.repeat(np.arange(len(combos), dtype=np.int32), combos)
    goal_combo = np.arange(total, dtype=np.int64) - np.repeat(starts, combos)
    order = list(range(total))
    random.Random(GOAL_SHUFFLE_SEED).shuffle(order)
    perm = np.array(order, dtype=np.int64)
    goal_inst, goal_combo = goal_inst[perm], goal_combo[perm]
    goal_weight_arr = weights[goal_inst]
    cum = np.cumsum(goal_weight_arr)  # numpy accumulates in order: itertools.accumulate's sums, bit for bit
    return {"inst_docs": inst_docs, "inst_upper": uppers, "goal_doc": inst_docs[goal_inst], "goal_combo": goal_combo,
            "goal_inst": goal_inst, "goal_weight": goal_weight_arr, "goal_cum": cum}


def _prices(c: _Collected, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, random.Random]:
    """Prices drawn with ``seed`` in WebShop's order (one uniform draw per price range)."""
    lo = _cat(c.price_lo, np.float64)
    hi = _cat(c.price_hi, np.float64)
    is_range = _cat(c.is_range, np.bool_)
    rng = random.Random(seed)
    prices = lo.copy()
    ranged = np.flatnonzero(is_range)
    uniform = rng.uniform
    prices[ranged] = [uniform(a, b) for a, b in zip(lo[ranged].tolist(), hi[ranged].tolist(), strict=True)]
    return prices, lo, hi, is_range, rng


def _asin_arrays(asins: list[str]) -> dict[str, np.ndarray]:
    encoded = [a.encode("utf-8", "surrogatepass") for a in asins]
    by_doc = np.array(encoded, dtype=f"S{max(len(e) for e in encoded)}")
    order = sorted(range(len(asins)), key=asins.__getitem__)  # Python's order: every engine's tie-break
    sorted_docs = np.array(order, dtype=np.int32)
    rank = np.empty(len(asins), dtype=np.int32)
    rank[sorted_docs] = np.arange(len(asins), dtype=np.int32)
    return {"asins": by_doc, "asins_sorted": by_doc[sorted_docs], "asins_sorted_docs": sorted_docs, "id_rank": rank}


def _check_out(out: Path) -> None:
    if out.exists() and not is_store(out) and (not out.is_dir() or any(out.iterdir())):
        raise DataError(f"{out}: exists and is not a store; choose an empty or new folder for --out")


def _swap_in(new: Path, dest: Path) -> None:
    """Rename the finished store ``new`` into place: an old store is renamed aside first and removed
    after, so ``dest`` is never half written, and a process that has the old store open keeps
    reading its files (unlinked, never truncated: their pages stay valid).
    """
    old = dest.with_name(dest.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if dest.exists():
        os.replace(dest, old)
    os.replace(new, dest)
    shutil.rmtree(old, ignore_errors=True)


def prepare_store(data_dir: str | Path, out: str | Path, *, seed: int = 0, num_products: int | None = None,
                  workers: int | None = None, progress: TextIO | None = None,
                  show_progress: bool | None = None, nouns: bool | None = None) -> StoreManifest:
    """Prepare the WebShop-format catalog in ``data_dir`` as a store in ``out`` (see the module docstring).

    ``progress`` is the stream for the progress bar (default stderr; drawn only on a terminal
    unless ``show_progress``). ``nouns``: tag the titles' nouns for the type reward (default: when
    the catalog is small enough, see :mod:`.tags`). Returns the manifest written.
    """
    if seed < 0:
        raise DataError(f"--seed {seed}: must be >= 0")
    if num_products is not None and num_products < 1:
        raise DataError(f"--num-products {num_products}: must be >= 1")
    files = find_catalog_files(data_dir)
    dest = Path(out)
    refuse_out_holding(dest, {"--data": data_dir})
    _check_out(dest)
    tmp = dest.with_name(dest.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    collecting = gc.isenabled()
    # this process keeps millions of objects (the side files' records, the ASINs) that the cyclic
    # collector would walk again and again (two thirds of the time json.loads takes on the attribute
    # file); nothing made here forms cycles, and reference counting frees the rest as before
    gc.disable()
    try:
        manifest = _prepare(files, tmp, seed, num_products, workers, progress, show_progress, nouns)
        _swap_in(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if collecting:
            gc.enable()
    return manifest


def _prepare(files: CatalogFiles, root: Path, seed: int, num_products: int | None, workers: int | None,
             stream: TextIO | None, show: bool | None, nouns: bool | None) -> StoreManifest:
    total = sum(p.stat().st_size for p in (files.items, files.reviews) if p is not None)
    bar = Progress("prepare", total, "B", stream=stream or sys.stderr, enabled=show)
    store = _Files(root)
    collected: _Collected | None = None
    try:
        attributes, human = load_side_files(files)
        reviews, reviews_sha = _review_index(files, bar)
        done_before = bar.done
        reader = JsonListReader(files.items, "a JSON list of products",
                                progress=lambda n: bar.set(done_before + n))
        state: dict[str, Any] = {"duplicates": [], "records": 0, "asins": []}
        collected = _Collected(store, nouns)
        pool = _workers(files, workers)
        chunks = _chunks(reader, files, num_products, attributes, human, reviews, state, texts=pool > 1)
        _run_chunks(chunks, files, pool, collected)
        del attributes, human, reviews
    except BaseException:
        if collected is not None:
            collected.abandon()
        raise
    finally:
        bar.close()
    bar.note("sorting the index, drawing prices and goals, writing arrays")
    if state["duplicates"]:
        warn_duplicates(files.items, state["duplicates"])
    count = collected.count
    if count == 0:
        collected.abandon()
        raise DataError(f"{files.items}: no products (the list is empty or every record was skipped)")
    items_sha = reader.sha256 if num_products is None or state["records"] < num_products else None
    store.done("products.bin", collected.products)
    tagger = tag_store(store, collected.titles, files.items.parent, pool if nouns else 1)
    store.done("human.bin", collected.human)
    store.array("products_offsets.npy", _offsets(collected.product_sizes))
    store.array("human_offsets.npy", _offsets(collected.human_sizes))

    prices, lo, hi, is_range, rng = _prices(collected, seed)
    # WebShop's goal shuffle is Python that holds the GIL; the index's sort and arithmetic, hashing
    # and writing mostly release it, so the two overlap (the files are still written in one order)
    with concurrent.futures.ThreadPoolExecutor(1) as side:
        goals = side.submit(_goal_arrays, collected, prices, rng)
        for name, arr in _asin_arrays(state.pop("asins")).items():
            store.array(f"{name}.npy", arr)
        for name, arr in {"prices": prices, "price_lo": lo, "price_hi": hi, "price_is_range": is_range}.items():
            store.array(f"{name}.npy", arr)
        postings = sum(len(d) for d in collected.docs)
        raw = [_cat(parts, np.int32) for parts in (collected.term_ids, collected.docs, collected.tfs)]
        del collected.term_ids[:], collected.docs[:], collected.tfs[:]  # the parts: only the whole arrays from here
        index = build_postings(collected.vocab, raw[0], raw[1], raw[2], _cat(collected.lengths, np.int64))
        del raw
        for name, arr in goals.result().items():
            store.array(f"{name}.npy", arr)
    store.array("hgoal_doc.npy", np.array([d for d, _ in collected.human_goals], dtype=np.int32))
    store.array("hgoal_rec.npy", np.array([j for _, j in collected.human_goals], dtype=np.int32))
    for name, value in index.items():
        if isinstance(value, bytes):
            store.blob(name, value)
        else:
            store.array(name, value)
    sources = {role: entry for role, entry in (
        ("items", _source(files.items, items_sha)),
        ("attributes", _source(files.attributes)),
        ("human_instructions", _source(files.human_instructions)),
        ("reviews", _source(files.reviews, reviews_sha)),
    ) if entry is not None}
    manifest = StoreManifest(
        format=STORE_FORMAT, shopsim_version=shopsim.__version__, seed=seed, num_products=num_products,
        records=state["records"], products=count, goals=int(sum(n for _, n, _ in collected.instructions)),
        human_goals=len(collected.human_goals), range_prices=int(is_range.sum()), terms=len(collected.vocab),
        postings=postings, nouns=tagger, sources=sources, files=store.entries)
    write_manifest(root, manifest)
    return manifest
