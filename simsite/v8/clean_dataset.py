"""The cleaned v8 archive: stable task ids, unrecoverable products out, persona budgets annotated.

Seed 004's offline pipeline, minus the paid calls (``budget_annotation`` makes those): ids are given
before anything is filtered (so they have gaps afterwards, and splits list them explicitly),
products with two or more price-changing axes go to an exclusions list, persona tasks get the
``price_upper`` their annotation found (simple request first, the full instruction only when the
simple one gave nothing), standard tasks get ``null`` (the runtime reads their text). Nothing is
written over the source archive; every output's SHA-256 goes into the manifest that
``shopsim data prepare --manifest`` checks.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shopsim.errors import DataError
from shopsim.simsite.v8.budget_annotation import ANNOTATION_VERSION, CacheKey, Item, prompt_sha256
from shopsim.simsite.v8.records import V8Catalog, V8Task, parse_v8_records, read_v8_json
from shopsim.simsite.v8.source_splits import SOURCE_SPLITS_FILE, build_source_splits, task_source

__all__ = ["CLEAN_SCHEMA_VERSION", "OUTPUT_NAMES", "Source", "first_items", "load_source", "output_paths",
           "resolve_annotations", "second_items", "write_clean_dataset"]

CLEAN_SCHEMA_VERSION = "shopsim-v8-cleaned-v2"
OUTPUT_NAMES = {"manifest": "clean_dataset_manifest.v2.json", "audit": "persona_price_annotations.v2.json",
                "exclusions": "catalog_exclusions.v2.json", "splits": SOURCE_SPLITS_FILE}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Source:
    """The immutable source archive, with ids assigned, parsed, and split into kept and excluded products."""

    path: Path
    archive_sha256: str
    data_sha256: str
    records: list[dict[str, Any]]
    catalog: V8Catalog
    excluded: list[dict[str, Any]]
    persona_tasks: list[V8Task]

    @property
    def excluded_asins(self) -> set[str]:
        """ASINs of the excluded products."""
        return {e["asin"] for e in self.excluded}


def _with_ids(data: Any, where: str) -> list[dict[str, Any]]:
    """The records with every task's ``task_id``: kept when all have one, else numbered 0.. in order."""
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DataError(f"{where}: expected a JSON array of product objects")
    records = copy.deepcopy(data)
    tasks = [t for r in records for t in (r.get("instructions") or []) if isinstance(t, dict)]
    have = sum("task_id" in t for t in tasks)
    if have == len(tasks):
        return records
    if have:
        raise DataError(f"{where}: {have} of {len(tasks)} tasks have a task_id; give all of them one, or none")
    for i, t in enumerate(tasks):
        t["task_id"] = i
    return records


def load_source(archive: str | Path) -> Source:
    """Read, number and check the source archive; nothing is written."""
    path = Path(archive)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    data, raw_json = read_v8_json(path)
    records = _with_ids(data, str(path))
    catalog = parse_v8_records(records, str(path))
    excluded = []
    for index, p in enumerate(catalog.products):
        if len(p.price_axes) >= 2:
            excluded.append({"source_product_index": index, "asin": p.asin, "reason": "multiple_price_affecting_axes",
                             "price_affecting_axes": p.price_axes,
                             "task_ids": [t.task_id for t in catalog.tasks if t.asin == p.asin]})
    gone = {e["asin"] for e in excluded}
    persona = [t for t in catalog.tasks if t.task_mode == "persona" and t.asin not in gone]
    return Source(path, _sha(raw), _sha(raw_json), records, catalog, excluded, persona)


def first_items(source: Source) -> list[Item]:
    """Phase one: every kept persona task's simple request (its full instruction when it has none)."""
    return [Item(t.task_id, "instruction_simple" if t.instruction_simple else "instruction", t.simple_text)
            for t in source.persona_tasks]


def second_items(source: Source, cache: Mapping[tuple[int, str], dict[str, Any]]) -> list[Item]:
    """Phase two: the full instruction, only where the simple request was answered with no budget."""
    out = []
    for t in source.persona_tasks:
        simple = cache.get((t.task_id, "instruction_simple"))
        if simple is not None and simple.get("price_upper") is None and t.instruction != t.instruction_simple:
            out.append(Item(t.task_id, "instruction", t.instruction))
    return out


def resolve_annotations(source: Source, cache: Mapping[tuple[int, str], dict[str, Any]],
                        runtime_regex_ids: Iterable[int] = ()) -> tuple[dict[int, dict[str, Any]], list[str]]:
    """Each persona task's final annotation (simple first, full as fallback) and the phases still missing.

    A task listed in ``runtime_regex_ids`` whose answer is missing gets no invented LLM output: it
    is recorded as ``runtime_regex_fallback`` and the runtime reads its text, as for standard tasks.
    """
    fallback = set(runtime_regex_ids)
    resolved: dict[int, dict[str, Any]] = {}
    missing: list[str] = []
    for t in source.persona_tasks:
        first = "instruction_simple" if t.instruction_simple else "instruction"
        answer = cache.get((t.task_id, first))
        phase = first
        if answer is not None and answer.get("price_upper") is None and first == "instruction_simple" \
                and t.instruction != t.instruction_simple:
            phase, answer = "instruction", cache.get((t.task_id, "instruction"))
        if answer is not None:
            resolved[t.task_id] = {**answer, "source_field": phase}
        elif t.task_id in fallback:
            resolved[t.task_id] = {"kind": "runtime_regex_fallback", "amount": None, "evidence": "",
                                   "price_upper": None, "source_field": "runtime_regex", "missing_source_field": phase,
                                   "fallback_reason": "explicitly_ignored_llm_failure (--runtime-regex-task-id)"}
        else:
            missing.append(f"{t.task_id}:{phase}")
    return resolved, missing


def output_paths(source: Source, out_dir: str | Path) -> dict[str, Path]:
    """Where each output goes; the cleaned archive is named after the source."""
    name = source.path.name
    for suffix in (".gz", ".json", ".raw"):
        name = name.removesuffix(suffix)
    out = Path(out_dir)
    paths = {key: out / file for key, file in OUTPUT_NAMES.items()}
    paths["archive"] = out / f"{name}.cleaned.v2.json.gz"
    if any(p.resolve() == source.path.resolve() for p in paths.values()):
        raise DataError(f"{source.path}: an output would overwrite the source archive; choose another --out")
    return paths


def _dump(payload: Any) -> bytes:
    return (json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _cleaned(source: Source, resolved: Mapping[int, dict[str, Any]], eval_products: int
             ) -> tuple[list[dict[str, Any]], list[tuple[int, str, str]], list[dict[str, Any]]]:
    modes: dict[int, str] = {t.task_id: t.task_mode for t in source.catalog.tasks}
    kept: list[dict[str, Any]] = []
    tasks: list[tuple[int, str, str]] = []
    audit: list[dict[str, Any]] = []
    for index, rec in enumerate(source.records):
        if str(rec.get("asin", "")).strip() in source.excluded_asins:
            continue
        product = copy.deepcopy(rec)
        product["source_product_index"] = index
        for inst in product.get("instructions") or []:
            tid = int(inst["task_id"])
            src = task_source(inst, rec, index, eval_products)
            inst["source_split"] = src
            tasks.append((tid, src, modes[tid]))
            inst["price_upper"] = None
            inst.pop("price_upper_source", None)
            if tid in resolved:
                ann = resolved[tid]
                if ann["price_upper"] is not None:
                    inst["price_upper"], inst["price_upper_source"] = ann["price_upper"], "annotation"
                audit.append({"task_id": tid, "asin": product.get("asin"), "source_product_index": index, **ann})
        kept.append(product)
    return kept, tasks, sorted(audit, key=lambda a: a["task_id"])


def write_clean_dataset(source: Source, resolved: Mapping[int, dict[str, Any]], out_dir: str | Path,
                        key: CacheKey, eval_products: int = 0) -> dict[str, Any]:
    """Write the cleaned archive, exclusions, source-group splits, audit and manifest; returns the manifest."""
    paths = output_paths(source, out_dir)
    kept, tasks, audit = _cleaned(source, resolved, eval_products)
    data_bytes = json.dumps(kept, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8") + b"\n"
    blobs = {
        "archive": gzip.compress(data_bytes, mtime=0),
        "exclusions": _dump({"excluded": source.excluded}),
        "audit": _dump({"annotation_version": ANNOTATION_VERSION, "model": key.model, "api_url": key.api_url,
                        "prompt_sha256": prompt_sha256(), "annotations": audit}),
        "splits": _dump(build_source_splits(tasks, len(source.catalog.tasks))),
    }
    paths["archive"].parent.mkdir(parents=True, exist_ok=True)
    for name, blob in blobs.items():
        paths[name].write_bytes(blob)
    kinds = Counter(a["kind"] for a in audit)
    manifest = {
        "schema_version": CLEAN_SCHEMA_VERSION, "annotation_version": ANNOTATION_VERSION, "model": key.model,
        "api_url": key.api_url, "prompt_sha256": prompt_sha256(), "source_archive": source.path.name,
        "source_archive_sha256": source.archive_sha256, "source_data_sha256": source.data_sha256,
        "output_archive": paths["archive"].name, "output_archive_sha256": _sha(blobs["archive"]),
        "output_data_sha256": _sha(data_bytes), "exclusions_sha256": _sha(blobs["exclusions"]),
        "task_splits_sha256": _sha(blobs["splits"]), "persona_price_audit_sha256": _sha(blobs["audit"]),
        "source_product_count": len(source.catalog.products), "cleaned_product_count": len(kept),
        "excluded_product_count": len(source.excluded), "source_task_count": len(source.catalog.tasks),
        "active_task_count": len(tasks), "persona_task_count": len(audit),
        "persona_llm_task_count": len(audit) - kinds.get("runtime_regex_fallback", 0),
        "persona_runtime_regex_task_ids": sorted(a["task_id"] for a in audit if a["kind"] == "runtime_regex_fallback"),
        "standard_regex_task_count": len(tasks) - len(audit), "persona_annotation_kind_counts": dict(sorted(kinds.items())),
        "eval_products": eval_products,
    }
    paths["manifest"].write_bytes(_dump(manifest))
    return manifest
