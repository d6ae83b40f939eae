"""``shopsim data annotate-budgets``: seed 004's persona budget annotation and cleaned-archive build.

Plan-only by default (a paid API is never called by accident): it prints what it would send and
where the outputs would go. ``--run`` sends the requests, then writes the cleaned archive, its
manifest (for ``shopsim data prepare --manifest``), the audit, the exclusions and the source-group
split file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from shopsim.cli.options import print_table
from shopsim.errors import ConfigError, DataError

__all__ = ["add_annotate_parser"]

_KEY_ENV = ("SHOPSIM_LLM_API_KEY", "OPENAI_API_KEY")


def _cache_path(args: argparse.Namespace, out: Path) -> Path:
    if args.cache:
        return Path(args.cache)
    return out / f"price_annotations.{re.sub(r'[^A-Za-z0-9._-]+', '_', args.model)}.jsonl"


def _check(args: argparse.Namespace) -> None:
    for flag, value in (("--workers", args.workers), ("--requests-per-minute", args.requests_per_minute)):
        if value <= 0:
            raise ConfigError(f"{flag} {value}: must be > 0")
    if args.max_requests is not None and args.max_requests < 1:
        raise ConfigError(f"--max-requests {args.max_requests}: must be >= 1")
    if args.retries < 0 or args.eval_products < 0:
        raise ConfigError("--retries and --eval-products must be >= 0")
    for flag, seconds in (("--timeout-s", args.timeout_s), ("--backoff-s", args.backoff_s),
                          ("--cooldown-s", args.cooldown_s), ("--rate-limit-retries", args.rate_limit_retries)):
        if not seconds >= 0 or (flag == "--timeout-s" and seconds == 0):  # NaN too: a sleep or socket refuses it
            raise ConfigError(f"{flag} {seconds:g}: must be {'> 0' if flag == '--timeout-s' else '>= 0'}")
    if not re.match(r"^https?://", args.base_url):
        raise ConfigError(f"--base-url {args.base_url!r}: expected http(s)://HOST[:PORT]/v1")


def cmd_annotate(args: argparse.Namespace) -> int:
    """Plan (default) or run the annotation, then build the cleaned archive."""
    _check(args)
    try:
        return _annotate(args)
    except OSError as exc:  # an unwritable --out or --cache, a full disk: one line, not a traceback
        raise DataError(f"{getattr(exc, 'filename', None) or args.out}: cannot write: {exc.strerror or exc}") from exc


def _annotate(args: argparse.Namespace) -> int:
    from shopsim.simsite.v8.budget_annotation import CacheKey, load_cache, request_body
    from shopsim.simsite.v8.clean_dataset import first_items, load_source, output_paths, second_items

    source = load_source(args.archive)
    out = Path(args.out) if args.out else source.path.parent
    paths = output_paths(source, out)
    key = CacheKey(source.archive_sha256, args.base_url.rstrip("/"), args.model)
    cache_file = _cache_path(args, out)
    cache = load_cache(cache_file, key)
    pending = [i for i in first_items(source) if (i.task_id, i.source_field) not in cache]
    if not args.run:
        later = [i for i in second_items(source, cache) if (i.task_id, i.source_field) not in cache]
        plan: dict[str, Any] = {
            "archive": str(source.path), "archive_sha256": source.archive_sha256,
            "products": len(source.catalog.products), "excluded": len(source.excluded),
            "tasks": len(source.catalog.tasks), "persona_tasks": len(source.persona_tasks),
            "cached_answers": len(cache), "phase1_to_send": len(pending), "phase2_known_to_send": len(later),
            "endpoint": key.api_url + "/chat/completions", "model": args.model, "workers": args.workers,
            "requests_per_minute": args.requests_per_minute, "cache": str(cache_file),
            "outputs": {k: str(v) for k, v in paths.items()},
            "first_request": request_body(pending[0], args.model) if pending else None,
        }
        if args.json:
            print(json.dumps(plan, ensure_ascii=False))
            return 0
        print(f"shopsim data annotate-budgets: plan only, nothing sent (add --run to send). {source.path.name}")
        print_table([(k, str(v)) for k, v in plan.items() if k not in ("outputs", "first_request")])
        minutes = (len(pending) + len(later)) / args.requests_per_minute
        print(f"  at {args.requests_per_minute:g} requests/minute phase one takes at least {minutes:.1f} min; "
              "phase two sends the full instruction only where the simple request gave no budget")
        for name, path in paths.items():
            print(f"  would write {name}: {path}")
        if pending:
            print("  first request body:\n" + json.dumps(plan["first_request"], ensure_ascii=False, indent=1))
        return 0
    return _run(args, source, key, cache_file, cache, pending, out)


def _run(args: argparse.Namespace, source: Any, key: Any, cache_file: Path, cache: dict[Any, Any],
         pending: list[Any], out: Path) -> int:
    from shopsim.simsite.v8.budget_annotation import Annotator, RateGate, load_cache, run_items
    from shopsim.simsite.v8.clean_dataset import resolve_annotations, second_items, write_clean_dataset

    api_key = next((os.environ[n] for n in ((args.api_key_env,) if args.api_key_env else _KEY_ENV)
                    if os.environ.get(n)), None)
    gate = RateGate(args.requests_per_minute, cooldown_s=args.cooldown_s)
    annotator = Annotator(args.base_url, args.model, key, cache_file, gate, api_key=api_key, retries=args.retries,
                          rate_limit_retries=args.rate_limit_retries, timeout_s=args.timeout_s,
                          backoff_s=args.backoff_s)
    budget = args.max_requests if args.max_requests is not None else 1 << 62
    t0 = time.perf_counter()
    outcomes = []
    try:
        for phase in (1, 2):
            if phase == 2:
                cache = load_cache(cache_file, key)
                pending = [i for i in second_items(source, cache) if (i.task_id, i.source_field) not in cache]
            batch = pending[:budget]
            budget -= len(batch)
            done = run_items(annotator, batch, args.workers)
            if batch and not done[0].replied:
                raise DataError(f"the first request (health check) failed, nothing else was sent: {done[0].error}")
            outcomes.extend(done)
    finally:
        annotator.close()
    seconds = time.perf_counter() - t0
    failed = [o for o in outcomes if o.annotation is None]
    stats = {"sent_items": len(outcomes), "requests": sum(o.requests for o in outcomes),
             "rate_limited": sum(o.rate_limited for o in outcomes), "failed": len(failed),
             "seconds": round(seconds, 3), "items_per_s": round(len(outcomes) / seconds, 3) if seconds else 0.0}
    for o in failed[:5]:
        print(f"  failed {o.item.task_id}:{o.item.source_field}: {o.error}", file=sys.stderr)
    resolved, missing = resolve_annotations(source, load_cache(cache_file, key), args.runtime_regex_task_id)
    if missing and budget <= 0:  # a trial run (--max-requests 1) stops here; the answers are cached
        print(f"shopsim data annotate-budgets: sent {stats['sent_items']} of the items (--max-requests), "
              f"{stats['failed']} failed; {len(missing)} still to ask; answers cached in {cache_file}; "
              "rerun without --max-requests to finish and build")
        return 0
    if missing:
        raise DataError(f"{len(missing)} persona annotations missing (e.g. {', '.join(missing[:3])}): rerun to ask "
                        "them again (answers are cached), or list them with --runtime-regex-task-id")
    manifest = write_clean_dataset(source, resolved, out, key, eval_products=args.eval_products)
    if args.json:
        print(json.dumps({**stats, "manifest": manifest}, ensure_ascii=False))
        return 0
    print(f"shopsim data annotate-budgets: {stats['sent_items']} items in {seconds:.1f} s -> {out}")
    print_table([(k, str(v)) for k, v in stats.items()] + [
        ("persona tasks (llm / runtime regex)", f"{manifest['persona_task_count']} "
         f"({manifest['persona_llm_task_count']} / {len(manifest['persona_runtime_regex_task_ids'])})"),
        ("kinds", json.dumps(manifest["persona_annotation_kind_counts"], ensure_ascii=False)),
        ("products (kept / excluded)", f"{manifest['cleaned_product_count']} / {manifest['excluded_product_count']}"),
        ("cleaned archive", manifest["output_archive"]),
        ("next", f"shopsim data prepare --archive {out / manifest['output_archive']} "
                 f"--manifest {out / 'clean_dataset_manifest.v2.json'} --out PREPARED"),
    ])
    return 0


def add_annotate_parser(dsub: argparse._SubParsersAction) -> None:
    """Add ``data annotate-budgets``."""
    a = dsub.add_parser("annotate-budgets", help="shopsim-v8: LLM budget annotation of persona tasks, then the "
                                                 "cleaned archive, manifest, audit and source-group splits")
    a.add_argument("--archive", required=True, help="the source products archive (.json or .json.gz); never modified")
    a.add_argument("--base-url", required=True, help="an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    a.add_argument("--model", required=True)
    a.add_argument("--out", default=None, help="output folder (default: the archive's folder)")
    a.add_argument("--cache", default=None, help="answer cache, JSONL (default: OUT/price_annotations.MODEL.jsonl)")
    a.add_argument("--run", action="store_true", help="send the requests (default: only print the plan)")
    a.add_argument("--workers", type=int, default=32, help="requests in flight at most (default 32)")
    a.add_argument("--requests-per-minute", type=float, default=32.0, help="request starts, all workers (default 32)")
    a.add_argument("--max-requests", type=int, default=None, help="send at most N items (e.g. 1 to try the setup)")
    a.add_argument("--retries", type=int, default=2, help="retries on network errors, 5xx and rejected answers")
    a.add_argument("--rate-limit-retries", type=int, default=20, help="retries after HTTP 429, counted apart")
    a.add_argument("--cooldown-s", type=float, default=65.0, help="pause after a 429 without Retry-After")
    a.add_argument("--backoff-s", type=float, default=1.0, help="first back-off after a failure (doubles)")
    a.add_argument("--timeout-s", type=float, default=120.0)
    a.add_argument("--runtime-regex-task-id", type=int, action="append", default=[], metavar="TASK_ID",
                   help="build without this task's missing answer: its budget is read from its text at run time")
    a.add_argument("--eval-products", type=int, default=0,
                   help="products [0, N) came from the official eval file (when tasks carry no source_split)")
    a.add_argument("--api-key-env", default=None, help="environment variable holding the API key "
                                                       "(default: SHOPSIM_LLM_API_KEY, then OPENAI_API_KEY)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_annotate)
