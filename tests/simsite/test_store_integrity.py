"""What ``shopsim data verify`` and ``Shop.load`` catch in a prepared store beyond a changed byte:
changed settings, swapped arrays, values no store holds, huge sparse files, a deleted stamp.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from shopsim.cli import main
from shopsim.errors import DataError
from shopsim.simsite.catalog import generator as gen
from shopsim.simsite.lucene.analysis import query_terms
from shopsim.simsite.shop import Shop
from shopsim.simsite.store import prepare_store, verify_store
from shopsim.simsite.store.manifest import sample_sha256

pytestmark = pytest.mark.filterwarnings("ignore::shopsim.simsite.loader.DataWarning")


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two stores of catalogs of one size (seeds 2 and 3): arrays of the same shapes, other contents."""
    root = tmp_path_factory.mktemp("stores")
    for seed in (2, 3):
        gen.generate(root / f"cat{seed}", 300, seed=seed)
        prepare_store(root / f"cat{seed}", root / f"s{seed}", workers=1)
    return root / "s2", root / "s3"


@pytest.fixture()
def store(stores: tuple[Path, Path], tmp_path: Path) -> Path:
    dest = tmp_path / "s"
    shutil.copytree(stores[0], dest)  # copy2: times kept, the copy opens
    return dest


def _rewrite_manifest(store: Path, **changes: object) -> None:
    manifest = json.loads((store / "store.json").read_text())
    manifest.update(changes)
    (store / "store.json").write_text(json.dumps(manifest))


def _replace_array(store: Path, name: str, value: np.ndarray) -> None:
    """Write ``value`` as ``name`` and record its size and hashes, as if prepared so: only the
    content checks can tell.
    """
    path = store / name
    np.save(path, value, allow_pickle=False)
    manifest = json.loads((store / "store.json").read_text())
    manifest["files"][name].update(size=path.stat().st_size, sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
                                   sample=sample_sha256(path))
    (store / "store.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(("change", "message"), [
    ({"seed": 1}, "prices.npy are not the prices seed=1 draws"),
    ({"range_prices": 5}, "store.json says range_prices=5, the arrays hold"),
    ({"goals": 3}, "store.json says goals=3"),
])
def test_verify_refuses_a_changed_setting(store: Path, change: dict[str, int], message: str) -> None:
    _rewrite_manifest(store, **change)
    with pytest.raises(DataError, match=message):
        verify_store(store)
    code, _, err = cli("data", "verify", str(store))
    assert code == 2 and err.count("\n") == 1 and message in err


def test_verify_refuses_nan_negative_and_out_of_range_values(store: Path) -> None:
    prices = np.load(store / "prices.npy")
    _replace_array(store, "prices.npy", np.where(np.arange(len(prices)) == 7, np.nan, prices))
    with pytest.raises(DataError, match=r"prices\.npy holds NaN, infinite or negative values"):
        verify_store(store)
    _replace_array(store, "prices.npy", prices)
    verify_store(store)
    docs = np.load(store / "goal_doc.npy")
    _replace_array(store, "goal_doc.npy", np.where(np.arange(len(docs)) == 0, -3, docs).astype(docs.dtype))
    with pytest.raises(DataError, match=r"goal_doc\.npy holds document numbers outside the catalog"):
        verify_store(store)


def test_postings_damaged_while_open_refuse_the_search_with_a_data_error(store: Path) -> None:
    """A document number past the catalog, written into the postings after the open checks ran: the
    search that reads them is refused with one DataError, never an IndexError (or a wrong result)."""
    shop = Shop.load(store)
    index = shop.search_engine.index
    query = shop.product_list[7].title
    t = next(index.term_index(term) for term, _ in query_terms(query) if index.term_index(term) is not None)
    docs = index._docs  # the file the store opened; damaged in place before any search read it
    with open(docs.path, "r+b") as f:
        f.seek(docs._offset + (int(index._starts[t + 1]) - 1) * docs.dtype.itemsize)
        f.write(np.array([index.doc_count + 5], dtype=docs.dtype).tobytes())
    with pytest.raises(DataError, match=r"index/docs\.npy: term \d+ lists documents outside the catalog"):
        index.scored(query, 5)


def test_an_array_swapped_in_from_another_store_is_refused_on_open(stores: tuple[Path, Path], store: Path) -> None:
    for name in ("hgoal_rec.npy", "asins.npy", "index/docs.npy"):
        other = stores[1] / name
        if other.stat().st_size != (store / name).stat().st_size or other.read_bytes() == (store / name).read_bytes():
            continue  # another size is caught by the size check already; the same bytes are no harm
        shutil.copy2(other, store / name)
        mtime = json.loads((store / "stamp.json").read_text())["mtime_ns"]
        mtime[name] = (store / name).stat().st_mtime_ns  # the time kept, as a careful swap would
        (store / "stamp.json").write_text(json.dumps({"mtime_ns": mtime}))
        with pytest.raises(DataError, match=rf"{name}'s sampled fingerprint differs"):
            Shop.load(store)
        code, _, err = cli("data", "verify", str(store))
        assert code == 2 and f"{name} has SHA-256" in err
        return
    pytest.fail("no array of the same size in both stores")


def test_a_sparse_file_is_refused_from_its_size(store: Path) -> None:
    blob = store / "products.bin"
    with open(blob, "r+b") as f:
        f.truncate(1 << 40)  # 1 TiB, no blocks: hashing it would take hours
    code, _, err = cli("data", "verify", str(store))
    assert code == 2 and err.count("\n") == 1
    assert "altered store: products.bin is 1099511627776 bytes, the manifest says" in err


def test_a_deleted_stamp_is_written_again_after_the_full_check(store: Path) -> None:
    (store / "stamp.json").unlink()
    with pytest.raises(DataError, match="changed since the store was prepared or last verified"):
        Shop.load(store)
    code, out, _ = cli("data", "verify", str(store))
    assert code == 0 and "stamp.json was missing: written again" in out
    assert os.path.exists(store / "stamp.json")
    Shop.load(store)


_TRUNCATE_WHILE_OPEN = r"""
import json, os, sys
from pathlib import Path
from shopsim.errors import DataError
from shopsim.simsite.shop import Shop

for root, name in zip(sys.argv[1::2], sys.argv[2::2]):
    shop = Shop.load(root)
    assert shop.search_engine.search(shop.product_list[3].title, 5)  # read (and kept) before the damage
    query, asin = shop.product_list[7].title, shop.products.data.asins.asin_at(40)  # product 40 not yet read
    os.truncate(Path(root) / name, 0)
    for what, call in (("search", lambda: shop.search_engine.search(query, 5)),
                       ("page", lambda: shop.products[asin].title)):
        try:
            print(json.dumps([name, what, "served", call()]))
        except DataError as exc:
            print(json.dumps([name, what, "refused", str(exc)]))
"""

#: Read into memory on open: a truncation cannot reach them, and what they serve is what was opened.
_READ_ON_OPEN = ("products_offsets.npy", "asins.npy", "index/terms.bin", "index/idf.npy")
#: Read as a request needs them: a truncation fails the requests that need what is gone.
_READ_ON_DEMAND = {"index/docs.npy": "search", "index/denom.npy": "search", "products.bin": "page"}


@pytest.mark.slow
def test_a_store_file_truncated_while_open_fails_the_request_not_the_process(stores: tuple[Path, Path],
                                                                            tmp_path: Path) -> None:
    """Before: SIGBUS killed the process (under ``shopsim serve``, the server) at the next search."""
    import subprocess
    import sys

    names = (*_READ_ON_OPEN, *_READ_ON_DEMAND)
    args = []
    for k, name in enumerate(names):
        shutil.copytree(stores[0], tmp_path / f"s{k}")
        args += [str(tmp_path / f"s{k}"), name]
    ran = subprocess.run([sys.executable, "-c", _TRUNCATE_WHILE_OPEN, *args], capture_output=True, text=True,
                         timeout=120)
    assert ran.returncode == 0, (ran.returncode, ran.stderr[-2000:])
    intact = Shop.load(stores[0])
    want = {"search": intact.search_engine.search(intact.product_list[7].title, 5),
            "page": intact.products[intact.product_list[40].asin].title}
    outcomes = [json.loads(line) for line in ran.stdout.splitlines()]
    assert len(outcomes) == 2 * len(names), ran.stdout
    for name, what, outcome, value in outcomes:
        if _READ_ON_DEMAND.get(name) == what:
            assert outcome == "refused" and f"{name}: truncated while the store is open" in value, (name, what, value)
        else:
            assert (outcome, value) == ("served", want[what]), (name, what, value)


_RACE = r"""
import os, sys, threading
from pathlib import Path
from shopsim.errors import DataError
from shopsim.simsite.shop import Shop

root, rounds = Path(sys.argv[1]), int(sys.argv[2])
shop = Shop.load(root)
index = shop.search_engine.index
index.postings_cache.budget = 0  # every search reads its postings again
query = shop.product_list[7].title
want = index.scored(query, 10)
assert want
files = [root / "index/docs.npy", root / "index/denom.npy", root / "products.bin"]
asins = [shop.product_list[i].asin for i in range(50)]
original = {f: f.read_bytes() for f in files}
stop = threading.Event()

def damage():  # truncate and restore in place (same inode), as fast as it goes, under the readers
    while not stop.is_set():
        for f in files:
            os.truncate(f, len(original[f]) // 3)
            with open(f, "r+b") as out:
                out.write(original[f])

t = threading.Thread(target=damage)
t.start()
served = refused = 0
for i in range(rounds):
    try:
        got = index.scored(query, 10)
        assert got == want, (i, got)  # served means served whole: never a ranking from a cut file
        shop.products[asins[i % 50]]
        served += 1
    except DataError as exc:
        assert "truncated while the store is open" in str(exc), exc
        refused += 1
stop.set()
t.join()
print(served, refused)
"""


@pytest.mark.slow
def test_truncation_racing_reads_never_kills_the_process(stores: tuple[Path, Path], tmp_path: Path) -> None:
    """The check-then-read race of the old mapped store: a truncation landing between the size check
    and the read killed the process with SIGBUS. Nothing is mapped now: a read that meets a cut file
    is a DataError, and what is served is whole.
    """
    import subprocess
    import sys

    shutil.copytree(stores[0], tmp_path / "s")
    ran = subprocess.run([sys.executable, "-c", _RACE, str(tmp_path / "s"), "400"], capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0, (ran.returncode, ran.stderr[-2000:])  # -7 was SIGBUS
    served, refused = map(int, ran.stdout.split())
    assert served + refused == 400


def test_preparing_over_an_open_store_keeps_the_open_one_serving(tmp_path: Path) -> None:
    gen.generate(tmp_path / "cat", 200, seed=4)
    store = tmp_path / "store"
    prepare_store(tmp_path / "cat", store, workers=1)
    old = Shop.load(store)
    before = old.search_engine.search("shoes", 10)
    prepare_store(tmp_path / "cat", store, seed=9, workers=1)  # renamed into place; the old one renamed aside
    assert old.search_engine.search("shoes", 10) == before
    assert [p.asin for p in old.product_list[:50]] == [p.asin for p in Shop.load(store).product_list[:50]]
    assert json.loads((store / "store.json").read_text())["seed"] == 9
    assert not (tmp_path / "store.old").exists() and not (tmp_path / "store.partial").exists()


@pytest.mark.slow
def test_shopsim_serve_survives_a_store_file_truncated_under_it(stores: tuple[Path, Path], tmp_path: Path) -> None:
    """Before: the server died of SIGBUS at the next search; now that request fails, naming the file."""
    import httpx

    from tests.simsite.test_shutdown import _Served

    store = tmp_path / "s"
    shutil.copytree(stores[0], store)
    served = _Served("webshop", tmp_path, ("--data", str(store)))
    try:
        served.wait_ready()
        assert httpx.get(f"{served.base}/search_results/fixed_1/shoes/1", timeout=30).status_code == 200
        os.truncate(store / "index" / "docs.npy", 0)
        r = httpx.get(f"{served.base}/search_results/fixed_1/red+cotton/1", timeout=30)
        assert r.status_code == 503 and "docs.npy: truncated while the store is open" in r.text, r.text[-500:]
        assert served.proc.poll() is None, served.output()
        assert httpx.get(f"{served.base}/api/health", timeout=30).status_code == 200
        assert "Traceback" not in served.output() and "shopsim: data error: " in served.output()
    finally:
        served.proc.terminate()
        served.proc.wait(30)


@pytest.mark.parametrize("shape", [(-1,), (3, -1), (2**32, 2**32), (2**31, 2**31, 4)])
def test_an_npy_header_with_a_negative_or_wrapping_shape_is_a_data_error(shape: tuple[int, ...], tmp_path: Path) -> None:
    """numpy's header parser takes a negative dimension, and ``np.prod`` in int64 wraps ``2**32 * 2**32`` to 0:
    they were an OSError (``pread`` of a negative size), a ValueError from ``len`` and a failed reshape of 0 values.
    (A store's hashes and stamps refuse such a file first; these readers must not depend on that.)"""
    from shopsim.simsite.store.arrays import StoredArray, load_array

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<i8", "fortran_order": False, "shape": shape})
    path = tmp_path / "damaged.npy"
    path.write_bytes(header.getvalue() + bytes(64))
    with pytest.raises(DataError, match=r"damaged\.npy"):
        load_array(path)
    with pytest.raises(DataError, match=r"damaged\.npy"):
        StoredArray(path)
