"""Hostile bundles: every bad manifest or file is one BundleError line (a DataError), never a hang.

Issue 9's cases (a folder, a FIFO, a symlink out of the bundle in place of a page; manifest version
0, -1, "1" or none; 300,000 steps) and the other limits (sizes, file kinds, every manifest field)
through ``Bundle.load``, ``ReplaySource`` and the real ``shopsim transfer`` in subprocesses (exit 2,
one ``shopsim: error:`` line, no traceback); then hypothesis: random JSON in every manifest field and
random file kinds in place of the manifest and the pages load or raise DataError, under a watchdog.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli_runs import cli_results, start_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopsim.adapters import bundle as bundle_module
from shopsim.adapters.bundle import MAX_BUNDLE_STEPS, Bundle, BundleError, BundleWriter, normalize_url
from shopsim.adapters.replay import ReplaySource
from shopsim.errors import DataError, SourceError
from shopsim.translators.guard import MAX_PAGE_BYTES

URL = "https://www.amazon.com/s?k=kettle"
PAGE = b"<html><head><title>Amazon.com</title></head><body><p>kettle</p></body></html>"
GOAL = {"asin": "B000000001", "name": "kettle", "query": "kettle", "category": "kitchen",
        "product_category": "Home & Kitchen", "instruction_text": "i want a kettle", "attributes": [],
        "goal_options": {}, "price_upper": 50.0}


def _bundle(root: Path, pages: int = 2) -> Path:
    w = BundleWriter(root, site="amazon", start_url=URL, recorder="tests")
    for i in range(pages):
        w.add_page(None if i == 0 else f"click[{i}]", f"{URL}&page={i + 1}", PAGE)
    return w.finish()


def _manifest(root: Path) -> dict[str, Any]:
    return json.loads((root / "manifest.json").read_text())


def _write_manifest(root: Path, doc: Any) -> None:
    (root / "manifest.json").write_text(json.dumps(doc))


@contextlib.contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    """Fail (TimeoutError) instead of hanging: SIGALRM interrupts a blocking open or read."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _load_error(root: Path) -> str:
    """The one-line message Bundle.load raises (it must be a DataError and a SourceError)."""
    with _watchdog(10), pytest.raises(BundleError) as err:
        Bundle.load(root)
    assert isinstance(err.value, DataError) and isinstance(err.value, SourceError)
    message = str(err.value)
    assert "\n" not in message
    return message


# ---- file kinds in place of a page or the manifest -----------------------------------------------------
def test_folder_fifo_symlink_and_missing_pages(tmp_path: Path) -> None:
    root = _bundle(tmp_path / "b")
    page = root / "pages" / "001.html"
    page.unlink()
    page.mkdir()
    assert "pages/001.html is a folder, not a regular file" in _load_error(root)
    page.rmdir()
    os.mkfifo(page)  # nobody writes: opening it for reading would block forever
    assert "pages/001.html is a FIFO (named pipe), not a regular file" in _load_error(root)
    page.unlink()
    outside = tmp_path / "secret.html"
    outside.write_bytes(PAGE)
    page.symlink_to(outside)
    assert "resolves outside the bundle" in _load_error(root)
    page.unlink()
    page.symlink_to("/dev/zero")
    assert "resolves outside the bundle" in _load_error(root)
    page.unlink()
    page.symlink_to(root / "pages" / "000.html")  # a symlink inside the bundle is fine (same bytes)
    assert len(Bundle.load(root).pages) == 2
    page.unlink()
    assert "pages/001.html is missing" in _load_error(root)


def test_manifest_as_a_folder_or_fifo(tmp_path: Path) -> None:
    root = _bundle(tmp_path / "b")
    (root / "manifest.json").unlink()
    os.mkfifo(root / "manifest.json")
    assert "manifest manifest.json is a FIFO" in _load_error(root)
    (root / "manifest.json").unlink()
    (root / "manifest.json").mkdir()
    assert "manifest manifest.json is a folder" in _load_error(root)


def test_size_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _bundle(tmp_path / "b")
    with (root / "pages" / "001.html").open("wb") as f:  # sparse: refused by its size, not read
        f.truncate(MAX_PAGE_BYTES + 1)
    start = time.perf_counter()
    assert "too large" in _load_error(root)
    assert time.perf_counter() - start < 1
    root = _bundle(tmp_path / "c")
    monkeypatch.setattr(bundle_module, "MAX_BUNDLE_BYTES", len(PAGE) + 10)
    assert "pages exceed" in _load_error(root)
    monkeypatch.setattr(bundle_module, "MAX_MANIFEST_BYTES", 100)
    assert "manifest manifest.json: too large" in _load_error(root)


# ---- the manifest --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("change", "fragment"), [
    ({"version": 0}, "at 'version': 0"),
    ({"version": -1}, "at 'version': -1"),
    ({"version": "1"}, "at 'version': '1'"),
    ({"version": 1.0}, "at 'version': 1.0"),
    ({"version": True}, "at 'version': True"),
    ({"version": 2}, "at 'version': 2"),
    ({"version": None}, "at 'version': (missing)"),
    ({"format": "other"}, "at 'format': 'other'"),
    ({"format": None}, "at 'format': (missing)"),
    ({"site": "walmart"}, "at 'site'"),
    ({"created_at": "yesterday"}, "at 'created_at'"),
    ({"steps": "none"}, "at 'steps'"),
    ({"unknown_field": 1}, "at 'unknown_field'"),
])
def test_bad_manifest_fields(tmp_path: Path, change: dict[str, Any], fragment: str) -> None:
    root = _bundle(tmp_path / "b")
    doc = _manifest(root)
    for key, value in change.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    _write_manifest(root, doc)
    message = _load_error(root)
    assert str(root / "manifest.json") in message and fragment in message


@pytest.mark.parametrize(("change", "fragment"), [
    ({"index": "0"}, "'steps.0.index'"),
    ({"index": 5}, "'steps'"),
    ({"kind": "teleport"}, "'steps.0.kind'"),
    ({"sha256": "xyz"}, "'steps.0.sha256'"),
    ({"page": "../../etc/passwd"}, "'steps.0.page'"),
    ({"page": None}, "'steps.0'"),
    ({"timestamp": 12}, "'steps.0.timestamp'"),
    ({"url": ["x"]}, "'steps.0.url'"),
])
def test_bad_step_fields(tmp_path: Path, change: dict[str, Any], fragment: str) -> None:
    root = _bundle(tmp_path / "b")
    doc = _manifest(root)
    doc["steps"][0].update(change)
    _write_manifest(root, doc)
    message = _load_error(root)
    assert "manifest.json" in message and fragment in message


@pytest.mark.parametrize("raw", [b"", b"not json", b"[]", b"[[[[" * 50_000, b'{"version": 1e999}', b"\xff\xfe"])
def test_manifest_not_a_json_object(tmp_path: Path, raw: bytes) -> None:
    root = _bundle(tmp_path / "b")
    (root / "manifest.json").write_bytes(raw)
    assert "manifest.json" in _load_error(root)


@pytest.mark.parametrize("steps", [300_000, MAX_BUNDLE_STEPS + 1])
@pytest.mark.slow
def test_too_many_steps_refused_quickly(tmp_path: Path, steps: int) -> None:
    """Issue 9's 300,000-step manifest (80 MB: over the manifest size limit), and one step over the limit."""
    root = _bundle(tmp_path / "b")
    doc = _manifest(root)
    step = {**doc["steps"][0], "kind": "select", "page": None, "sha256": None, "url": None}
    doc["steps"] = [{**step, "index": i} for i in range(steps)]
    _write_manifest(root, doc)
    start = time.perf_counter()
    message = _load_error(root)
    assert time.perf_counter() - start < 5
    if steps > 10_000:
        assert "manifest manifest.json: too large" in message
    else:
        assert f"at 'steps': {steps:,} steps; a bundle holds at most {MAX_BUNDLE_STEPS:,}" in message


def test_replay_source_and_urls(tmp_path: Path) -> None:
    root = _bundle(tmp_path / "b")
    doc = _manifest(root)
    doc["steps"][1]["url"] = "http://[::1"  # Python cannot split it: its own lookup key, not a crash
    doc["steps"][1]["normalized_url"] = None
    _write_manifest(root, doc)
    source = ReplaySource(root)
    assert source.reset().site == "amazon"
    assert source.lookup("http://[::1") is source.bundle.load_steps()[1]
    assert normalize_url("http://[::1") == "http://[::1" and normalize_url("http://a:99999/x") == "http://a:99999/x"
    doc["version"] = 0
    _write_manifest(root, doc)
    with pytest.raises(DataError, match="version"):
        ReplaySource(root)


# ---- the CLI -------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_transfer_cli_exits_2_with_one_line(tmp_path: Path) -> None:
    goal = tmp_path / "goal.jsonl"
    goal.write_text(json.dumps(GOAL) + "\n")
    cases: dict[str, tuple[Path, str]] = {}
    root = _bundle(tmp_path / "folder")
    (root / "pages" / "001.html").unlink()
    (root / "pages" / "001.html").mkdir()
    cases["folder"] = (root, "is a folder")
    root = _bundle(tmp_path / "fifo")
    (root / "pages" / "001.html").unlink()
    os.mkfifo(root / "pages" / "001.html")
    cases["fifo"] = (root, "is a FIFO")
    root = _bundle(tmp_path / "version")
    _write_manifest(root, {**_manifest(root), "version": -1})
    cases["version"] = (root, "at 'version': -1")
    cases["missing"] = (tmp_path / "nothing", "is not a folder")
    results = cli_results({case: start_cli("transfer", "--agent", "rule", "--bundle", str(path), "--goal", str(goal))
                           for case, (path, _) in cases.items()})
    for case, (status, out, err) in results.items():
        assert status == 2 and out == "", (case, out, err)
        assert err.count("\n") == 1 and err.startswith("shopsim: error: ") and cases[case][1] in err, (case, err)


# ---- hypothesis: random manifests and file kinds ----------------------------------------------------
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=6)
TOP_FIELDS = ["format", "version", "site", "start_url", "instruction", "created_at", "har", "recorder", "steps"]
STEP_FIELDS = ["index", "action", "kind", "url", "final_url", "normalized_url", "timestamp", "sha256", "page"]
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                          HealthCheck.too_slow])


def _loads_or_data_error(root: Path) -> None:
    with _watchdog(10):
        try:
            bundle = Bundle.load(root)
        except DataError as exc:
            assert "\n" not in str(exc) and str(root) in str(exc)
            return
    if bundle.load_steps():
        ReplaySource(bundle).reset()  # what loads replays (pages become states, never exceptions)
    else:
        with pytest.raises(SourceError, match="no recorded pages"):
            ReplaySource(bundle).reset()


@SETTINGS
@given(data=st.data())
@pytest.mark.slow
def test_random_manifest_fields(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    root = _bundle(tmp_path_factory.mktemp("m") / "b")
    doc = _manifest(root)
    for field in data.draw(st.lists(st.sampled_from(TOP_FIELDS), max_size=3, unique=True)):
        doc[field] = data.draw(JSON)
    if isinstance(doc.get("steps"), list) and doc["steps"] and isinstance(doc["steps"][0], dict):
        for field in data.draw(st.lists(st.sampled_from(STEP_FIELDS), max_size=3, unique=True)):
            doc["steps"][0][field] = data.draw(JSON)
    if data.draw(st.booleans()):
        doc = data.draw(JSON) if data.draw(st.booleans()) else doc  # sometimes no object at all
    _write_manifest(root, doc)
    _loads_or_data_error(root)


KINDS = ["file", "empty", "folder", "fifo", "symlink-in", "symlink-out", "symlink-loop", "missing", "dangling"]


def _make(path: Path, kind: str, outside: Path) -> None:
    """Put a ``kind`` of file at ``path`` (which exists as a regular page or manifest)."""
    data = path.read_bytes()
    path.unlink()
    if kind == "file":
        path.write_bytes(data)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink-in":
        copy = path.with_name(path.name + ".real")
        copy.write_bytes(data)
        path.symlink_to(copy.name)
    elif kind == "symlink-out":
        outside.write_bytes(data)
        path.symlink_to(outside)
    elif kind == "symlink-loop":
        path.symlink_to(path.name)
    elif kind == "dangling":
        path.symlink_to(path.name + ".gone")


@SETTINGS
@given(st.sampled_from(KINDS), st.sampled_from(KINDS), st.sampled_from(KINDS))
def test_random_file_kinds(tmp_path_factory: pytest.TempPathFactory, manifest: str, page0: str, page1: str) -> None:
    base = tmp_path_factory.mktemp("k")
    root = _bundle(base / "b")
    _make(root / "pages" / "000.html", page0, base / "out0.html")
    _make(root / "pages" / "001.html", page1, base / "out1.html")
    _make(root / "manifest.json", manifest, base / "out.json")
    _loads_or_data_error(root)
    if {manifest, page0, page1} <= {"file", "symlink-in"}:
        assert len(Bundle.load(root).pages) == 2


def test_transfer_refuses_fifo_goal_and_actions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from shopsim.cli import main

    root = _bundle(tmp_path / "b")
    goal, fifo = tmp_path / "goal.jsonl", tmp_path / "pipe"
    goal.write_text(json.dumps(GOAL) + "\n")
    os.mkfifo(fifo)
    for args in (["--agent", "rule", "--goal", str(fifo)], ["--actions", str(fifo), "--goal", str(goal)]):
        with _watchdog(10):
            assert main(["transfer", "--bundle", str(root), *args]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is a FIFO (named pipe), not a regular file" in err
