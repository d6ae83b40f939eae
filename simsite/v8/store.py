"""``shopsim data prepare --profile shopsim-v8``: verify, clean and index a v8 catalog once.

The prepared folder holds the cleaned products, the exclusions with reasons, the saved search
index with its manifest, and ``v8_manifest.json`` with checksums. Opening it checks the products
file against the manifest and the index against the code, so an altered or stale folder is refused
instead of silently searched with the wrong index.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

from shopsim.errors import DataError
from shopsim.simsite.datafiles import read_data_file
from shopsim.simsite.out_guard import refuse_out_holding
from shopsim.simsite.user_cache import write_atomic
from shopsim.simsite.v8.records import MAX_V8_JSON_BYTES, parse_v8_records, read_v8_json

__all__ = ["PREPARED_FORMAT", "PrepareReport", "open_v8_data", "prepare_v8"]

PREPARED_FORMAT = "shopsim-v8-prepared-1"
MANIFEST = "v8_manifest.json"
PRODUCTS = "products.json.gz"
EXCLUSIONS = "exclusions.json"
INDEX_DIR = "index"
_SMALL = 1 << 24
"""The most bytes a manifest may hold (a few kB in practice)."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _expected_sums(manifest: str | Path | None) -> dict[str, str]:
    if manifest is None:
        return {}
    path = Path(manifest)
    raw = read_data_file(path, _SMALL)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise DataError(f"{path}: cannot read the checksum manifest: {exc}") from exc
    if not isinstance(data, dict):
        raise DataError(f"{path}: the checksum manifest must be a JSON object")
    out = {}
    # our names, then the names annotate-budgets (and the seed's clean_dataset_manifest) write
    for key, aliases in (("archive_sha256", ("archive_sha256", "sha256", "output_archive_sha256")),
                         ("json_sha256", ("json_sha256", "output_data_sha256"))):
        for a in aliases:
            if isinstance(data.get(a), str):
                out[key] = data[a].lower()
                break
    if not out:
        raise DataError(f"{path}: the checksum manifest has neither archive_sha256 nor json_sha256 "
                        "(nor output_archive_sha256 / output_data_sha256)")
    return out


def _copy_source_splits(manifest: str | Path | None, dest: Path) -> None:
    """Bring the source-group split file beside the manifest into the prepared folder, checked.

    annotate-budgets writes ``task_splits.cleaned.v2.json`` next to its manifest, which records the
    file's SHA-256; ``search-eval --split persona_eval`` then finds it in the prepared folder.
    """
    from shopsim.simsite.v8.source_splits import SOURCE_SPLITS_FILE

    if manifest is None:
        return
    src = Path(manifest).parent / SOURCE_SPLITS_FILE
    want = json.loads(read_data_file(manifest, _SMALL)).get("task_splits_sha256")
    if not src.exists() or not isinstance(want, str):
        return
    raw = read_data_file(src, MAX_V8_JSON_BYTES)
    if _sha256(raw) != want.lower():
        raise DataError(f"{src}: sha256 differs from task_splits_sha256 in {manifest}: the split file is not the one expected")
    write_atomic(dest, SOURCE_SPLITS_FILE, lambda f: f.write(raw))


def _verified_records(src: Path, manifest: str | Path | None, verify: bool) -> tuple[Any, dict[str, str]]:
    """The archive's records and its two checksums, checked against ``manifest`` (refused without one
    unless ``verify`` is False: the seed never prepares an unverified archive silently).
    """
    if manifest is None and verify:
        raise DataError(f"{src}: no checksum manifest given: pass --manifest FILE (archive_sha256 / json_sha256), "
                        "or --no-verify to prepare an unverified archive")
    if manifest is not None and not verify:
        raise DataError("--manifest and --no-verify contradict each other: give one")
    raw_archive = read_data_file(src, MAX_V8_JSON_BYTES)
    data, raw_json = read_v8_json(src, raw_archive)
    sums = {"archive_sha256": _sha256(raw_archive), "json_sha256": _sha256(raw_json)}
    for key, want in _expected_sums(manifest).items():
        if sums[key] != want:
            raise DataError(f"{src}: {key} is {sums[key]}, the manifest says {want}: the archive is not the one expected")
    return data, sums


class PrepareReport(dict):
    """Counts and checksums of one preparation (also written into the manifest)."""


def prepare_v8(archive: str | Path, out: str | Path, manifest: str | Path | None = None,
               engine: str = "default", *, verify: bool = True) -> PrepareReport:
    """Verify ``archive`` (``.json`` or ``.json.gz``), drop unrecoverable products, index, save.

    The seed's ``prepare_data.py`` accepts an archive only with its manifest and never falls back
    silently, so without ``manifest`` this refuses unless ``verify=False`` says so explicitly (the
    report then records ``verified: false``).
    """
    from shopsim.simsite.v8.search import make_engine, save_index

    src = Path(archive)
    refuse_out_holding(out, {"--archive": archive, "--manifest": manifest})
    data, sums = _verified_records(src, manifest, verify)
    catalog = parse_v8_records(data, str(src))
    kept_records, exclusions = [], []
    for rec, product in zip(data, catalog.products, strict=True):
        axes = product.price_axes
        if len(axes) >= 2:
            exclusions.append({"asin": product.asin, "title": product.title, "price_axes": axes,
                               "reason": f"{len(axes)} price-changing option axes: no SKU price table can be recovered",
                               "task_ids": [t.task_id for t in catalog.tasks if t.asin == product.asin]})
        else:
            kept_records.append(rec)
    kept = parse_v8_records(kept_records, str(src))
    dest = Path(out)
    dest.mkdir(parents=True, exist_ok=True)
    # every file is written beside its place and renamed into it (a server that has the folder open
    # never reads a half-written file), and the manifest goes first and comes back last: until
    # then the folder is not a prepared folder, not a mix of the old one and the new
    (dest / MANIFEST).unlink(missing_ok=True)
    products_bytes = gzip.compress(json.dumps(kept_records, ensure_ascii=False).encode("utf-8"), mtime=0)
    write_atomic(dest, PRODUCTS, lambda f: f.write(products_bytes))
    _copy_source_splits(manifest, dest)
    excluded = (json.dumps({"excluded": exclusions}, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    write_atomic(dest, EXCLUSIONS, lambda f: f.write(excluded))
    index = make_engine(kept.products, engine)
    save_index(index, dest / INDEX_DIR)
    report = PrepareReport(
        format=PREPARED_FORMAT,
        environment_version="shopsimulator-paper-aligned-v8",
        source=src.name,
        verified=manifest is not None,
        **sums,
        products_sha256=_sha256(products_bytes),
        products_in=len(catalog.products),
        products=len(kept.products),
        excluded=len(exclusions),
        tasks_in=len(catalog.tasks),
        tasks=len(kept.tasks),
        persona_tasks=sum(t.task_mode == "persona" for t in kept.tasks),
        engine=engine,
    )
    written = (json.dumps(dict(report), ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    write_atomic(dest, MANIFEST, lambda f: f.write(written))
    return report


def _read_manifest(root: Path) -> dict[str, Any]:
    raw = read_data_file(root / MANIFEST, _SMALL)
    try:
        manifest = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise DataError(f"{root / MANIFEST}: cannot read: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != PREPARED_FORMAT:
        raise DataError(f"{root / MANIFEST}: not a {PREPARED_FORMAT} manifest; prepare the data again")
    return manifest


def open_v8_data(data: str | Path | None, *, engine: str = "default", task_ids: list[int] | None = None) -> Any:
    """A V8Shop from a prepared folder (checked, saved index) or a raw catalog file (indexed now)."""
    from shopsim.simsite.v8.records import load_v8_catalog
    from shopsim.simsite.v8.search import load_index, make_engine
    from shopsim.simsite.v8.shop import V8Shop, find_v8_catalog

    root = Path(data) if data is not None else None
    if root is not None and root.is_dir() and (root / MANIFEST).exists():
        manifest = _read_manifest(root)
        path = root / PRODUCTS
        raw = read_data_file(path, MAX_V8_JSON_BYTES)
        if _sha256(raw) != manifest.get("products_sha256"):
            raise DataError(f"{path}: checksum differs from {MANIFEST}: the prepared data was altered; prepare it again")
        catalog = parse_v8_records(read_v8_json(path, raw)[0], str(path))  # the bytes just checked
        index = load_index(root / INDEX_DIR, catalog.products)
        return V8Shop(catalog, index, task_ids=task_ids)
    catalog = load_v8_catalog(find_v8_catalog(data))
    return V8Shop(catalog, make_engine(catalog.products, engine), task_ids=task_ids)
