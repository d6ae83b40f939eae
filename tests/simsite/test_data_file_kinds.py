"""Damaged and hostile data files: FIFOs, devices, huge and corrupt v8 files are one DataError line.

Every case here hung, crashed or printed a traceback before the loaders opened files through
:func:`shopsim.simsite.datafiles.open_data_file` (regular files only) and bounded what they read.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shopsim.cli import main
from shopsim.errors import DataError
from shopsim.simsite.catalog import generator as gen
from shopsim.simsite.shop import Shop
from shopsim.simsite.store import prepare_store
from shopsim.simsite.v8.catalog.generator import write_v8
from shopsim.simsite.v8.store import open_v8_data, prepare_v8

pytestmark = pytest.mark.filterwarnings("ignore::shopsim.simsite.loader.DataWarning")


def cli(*args: str) -> tuple[int, str]:
    """The ``shopsim`` entry point in this process: exit code and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, err.getvalue()


def refused(fn: Any, fifo: Path | None = None) -> DataError:
    """The DataError ``fn()`` raises, waited for in a thread: a call that blocks on a FIFO fails the
    test (the FIFO is then opened for writing, which releases the blocked reader).
    """
    box: list[BaseException | None] = []

    def call() -> None:
        try:
            fn()
        except BaseException as exc:  # handed to the test thread
            box.append(exc)
        else:
            box.append(None)

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(60)
    if t.is_alive() and fifo is not None:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # unblock the reader, then fail
        t.join(10)
        pytest.fail(f"blocked on the FIFO {fifo}")
    assert box, "did not return"
    assert isinstance(box[0], DataError), repr(box[0])
    return box[0]


@pytest.fixture(scope="module")
def v8_prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Prepared v8 folders (each engine) from a generated catalog."""
    root = tmp_path_factory.mktemp("v8")
    write_v8(root / "catalog.json.gz", 60, seed=3)
    for engine in ("numpy", "fts5"):
        prepare_v8(root / "catalog.json.gz", root / engine, engine=engine, verify=False)
    return {engine: root / engine for engine in ("numpy", "fts5")}


@pytest.fixture()
def v8_copy(v8_prepared: dict[str, Path], tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    dest = tmp_path / "prep"
    shutil.copytree(v8_prepared[getattr(request, "param", "numpy")], dest)
    return dest


@pytest.mark.parametrize("name", ["products.json.gz", "v8_manifest.json", "index/index_manifest.json",
                                  "index/search_index.npz"])
def test_a_fifo_in_place_of_any_v8_prepared_file_is_refused_at_once(v8_copy: Path, name: str) -> None:
    path = v8_copy / name
    path.unlink()
    os.mkfifo(path)
    exc = refused(lambda: open_v8_data(v8_copy), path)
    assert str(path) in str(exc) and "a FIFO (named pipe), not a regular file" in str(exc)
    code, err = cli("search-eval", "--profile", "shopsim-v8", "--data", str(v8_copy))
    assert code == 2 and err.count("\n") == 1 and "FIFO" in err, err


@pytest.mark.parametrize("v8_copy", ["fts5"], indirect=True)
def test_a_fifo_or_device_in_place_of_the_fts5_index_is_refused(v8_copy: Path) -> None:
    path = v8_copy / "index" / "search_index.fts5.sqlite"
    path.unlink()
    os.mkfifo(path)
    assert "FIFO" in str(refused(lambda: open_v8_data(v8_copy), path))
    path.unlink()
    path.symlink_to("/dev/zero")
    assert "a character device, not a regular file" in str(refused(lambda: open_v8_data(v8_copy)))


def test_a_device_a_folder_and_a_socket_are_refused(v8_copy: Path) -> None:
    products = v8_copy / "products.json.gz"
    products.unlink()
    products.symlink_to("/dev/zero")  # endless bytes: refused before the first read
    assert "a character device" in str(refused(lambda: open_v8_data(v8_copy)))
    products.unlink()
    products.mkdir()
    assert "a folder" in str(refused(lambda: open_v8_data(v8_copy)))
    products.rmdir()
    import socket

    with socket.socket(socket.AF_UNIX) as s:
        short = Path("/tmp") / f"shopsim-sock-{os.getpid()}"
        s.bind(str(short))
        try:
            products.symlink_to(short)
            assert "a socket" in str(refused(lambda: open_v8_data(v8_copy)))
        finally:
            short.unlink()


@pytest.mark.slow
def test_a_sparse_huge_archive_and_a_gzip_bomb_are_refused_from_their_size(tmp_path: Path) -> None:
    sparse = tmp_path / "products.json.gz"
    with open(sparse, "wb") as f:
        f.truncate(1 << 40)  # 1 TiB, no blocks
    exc = refused(lambda: open_v8_data(sparse))
    assert "too large (1,099,511,627,776 bytes" in str(exc)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (1 << 20), 9) * 300)  # 300 members: 300 MiB of spaces from 300 kB
    assert bomb.stat().st_size < 1 << 20
    assert "inflates to over 268,435,456 bytes" in str(refused(lambda: open_v8_data(bomb)))
    code, err = cli("data", "prepare", "--profile", "shopsim-v8", "--archive", str(bomb), "--no-verify",
                    "--out", str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1 and "inflates to over" in err, err


def _npz(path: Path, **change: Any) -> None:
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays.update(change)
    with path.open("wb") as f:
        np.savez(f, **arrays)


def _restamp(prep: Path) -> None:
    """Make the index manifest agree with a hand-made index file, so only the content checks remain."""
    import hashlib

    manifest = prep / "index" / "index_manifest.json"
    saved = json.loads(manifest.read_text())
    saved["index_sha256"] = hashlib.sha256((prep / "index" / saved["index_file"]).read_bytes()).hexdigest()
    manifest.write_text(json.dumps(saved))


@pytest.mark.parametrize(("change", "message"), [
    ("nan", "NaN, infinite, zero or negative frequencies"),
    ("negative_doc", "document numbers outside the catalog"),
    ("reversed_indptr", "indptr is not a non-decreasing run"),
    ("zero_length", "zero for a product with postings"),
    ("zip", "unreadable search index"),
])
def test_damaged_v8_index_arrays_are_refused_naming_the_file(v8_copy: Path, change: str, message: str) -> None:
    npz = v8_copy / "index" / "search_index.npz"
    with np.load(npz) as z:
        arrays = {k: z[k] for k in z.files}
    if change == "nan":
        _npz(npz, freqs=np.where(np.arange(len(arrays["freqs"])) == 3, np.nan, arrays["freqs"]))
    elif change == "negative_doc":
        _npz(npz, docs=np.where(np.arange(len(arrays["docs"])) == 5, -1, arrays["docs"]).astype(np.int32))
    elif change == "reversed_indptr":
        _npz(npz, indptr=arrays["indptr"][::-1].copy())
    elif change == "zero_length":
        _npz(npz, lengths=np.zeros_like(arrays["lengths"]))
    else:
        npz.write_bytes(npz.read_bytes()[: npz.stat().st_size // 2])
    _restamp(v8_copy)
    exc = refused(lambda: open_v8_data(v8_copy))
    assert str(npz) in str(exc) and message in str(exc)


def test_a_v8_index_of_another_catalog_of_the_same_size_is_refused(v8_copy: Path, tmp_path: Path) -> None:
    write_v8(tmp_path / "other.json.gz", 60, seed=4)
    other = tmp_path / "other"
    prepare_v8(tmp_path / "other.json.gz", other, engine="numpy", verify=False)
    shutil.copy(other / "index" / "search_index.npz", v8_copy / "index" / "search_index.npz")
    exc = refused(lambda: open_v8_data(v8_copy))
    assert "search_index.npz: not the index" in str(exc) and "index_sha256 differs" in str(exc)


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("store")
    gen.generate(root / "cat", 300, seed=2)
    prepare_store(root / "cat", root / "store", workers=1)
    return root / "store"


@pytest.mark.parametrize("name", ["store.json", "products.bin", "asins.npy", "index/docs.npy", "index/terms.bin"])
def test_a_fifo_in_place_of_a_store_file_is_refused(small_store: Path, tmp_path: Path, name: str) -> None:
    store = tmp_path / "store"
    shutil.copytree(small_store, store)
    path = store / name
    path.unlink()
    os.mkfifo(path)
    exc = refused(lambda: Shop.load(store), path)
    assert name in str(exc)
    for args in (("data", "verify", str(store)), ("search", "shoes", "--data", str(store))):
        code, err = cli(*args)
        assert code == 2 and err.count("\n") == 1 and name in err, (args, err)


@pytest.mark.parametrize("damage", ["magic", "header", "short"])
@pytest.mark.parametrize("reader", ["load_array", "StoredArray"])
def test_a_damaged_npy_header_is_one_data_error(small_store: Path, tmp_path: Path, damage: str, reader: str) -> None:
    from shopsim.simsite.store import arrays

    src = small_store / "asins.npy"
    raw = bytearray(src.read_bytes())
    if damage == "magic":
        raw[0] ^= 0xFF
    elif damage == "header":  # unbalanced brackets: numpy's header parser raised TokenError
        size = int.from_bytes(raw[8:10], "little")
        raw[10 : 10 + size] = b"{'descr': '<i4', 'shape': ((((".ljust(size - 1) + b"\n"
    else:
        raw = raw[:200]
    bad = tmp_path / "asins.npy"
    bad.write_bytes(bytes(raw))
    with pytest.raises(DataError, match=r"asins\.npy: not a readable \.npy array"):
        getattr(arrays, reader)(bad)


def test_a_fifo_planted_in_the_noun_table_cache_is_a_miss_not_a_hang(tmp_path: Path) -> None:
    from shopsim.simsite.noun_table import read_table

    fifo = tmp_path / "shopsim-nouns-0123456789abcdef.json"
    os.mkfifo(fifo)
    box: list[object] = []
    t = threading.Thread(target=lambda: box.append(read_table(fifo, "k", ["a title"])), daemon=True)
    t.start()
    t.join(60)
    if t.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("read_table blocked on a FIFO")
    assert box == [None]  # not the table: the tags are computed again


def test_a_json_catalog_behind_a_fifo_is_one_line_on_the_cli(tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    gen.generate(cat, 50, seed=1)
    items = cat / gen.ITEMS_FILE
    items.unlink()
    os.mkfifo(items)
    code, err = cli("search", "shoes", "--data", str(cat))
    assert code == 2 and err.count("\n") == 1 and f"{items}: cannot read: a FIFO (named pipe)" in err, err


def test_data_verify_checks_a_v8_prepared_folder(v8_copy: Path, tmp_path: Path) -> None:
    code, err = cli("data", "verify", str(v8_copy))
    assert code == 0 and not err
    write_v8(tmp_path / "other.json.gz", 60, seed=4)
    prepare_v8(tmp_path / "other.json.gz", tmp_path / "other", engine="numpy", verify=False)
    shutil.copy(tmp_path / "other" / "index" / "search_index.npz", v8_copy / "index" / "search_index.npz")
    code, err = cli("data", "verify", str(v8_copy))
    assert code == 2 and err.count("\n") == 1 and "index_sha256 differs" in err, err
