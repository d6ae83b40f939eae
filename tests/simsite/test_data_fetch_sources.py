"""Falling back from one download source to the next, against real HTTP servers on 127.0.0.1.

Local servers stand in for Google Drive and the mirrors: the first fails the ways Drive fails today
(404, a quota page, an error page, a connection that drops mid-file) and the next serves the file.
Checked: the file verifies, one line says which source failed and which comes next, a ``.part`` begun
on one source is resumed on the next, and when every source fails the command ends with one line naming
each failure. Plus the shipped record: every file of both sets pinned, both mirrors pinned to a revision.
"""

from __future__ import annotations

import hashlib
import io
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from shopsim.progress import DownloadProgress
from shopsim.simsite.fetch import Fetched, fetch_files
from shopsim.simsite.fetch_record import (
    DRIVE,
    FetchError,
    RemoteFile,
    Source,
    default_sources,
    load_manifest,
    source_from_url,
    verification_level,
)

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("items_shuffle_1000.json", "items_ins_v2_1000.json", "items_human_ins.json")
QUOTA_PAGE = ("<html><head><title>Google Drive - Quota exceeded</title></head><body>Sorry, you can't view or "
              "download this file at this time. Too many users have viewed or downloaded this file recently."
              "</body></html>")
ERROR_PAGE = "<html><head><title>Google Drive - Error</title></head><body>Something went wrong.</body></html>"


@dataclass
class Host:
    """One local server: which files it has and how it fails; tests set it up before fetching."""

    files: dict[str, bytes] = field(default_factory=dict)
    fail: dict[str, str] = field(default_factory=dict)  # name -> 404 | 503 | quota | error-page | drop | loop
    drop_after: int = 100_000  # "drop": send this many bytes of the body, then hang up (every time)
    ranges: bool = True
    log: list[tuple[str, str | None]] = field(default_factory=list)  # (file name, Range header)
    url: str = ""

    @property
    def label(self) -> str:
        return self.url.removeprefix("http://")


def _handler(h: Host) -> type[BaseHTTPRequestHandler]:
    by_id = {f.drive_id: f.name for f in load_manifest().files.values()}  # the CLI asks by the real Drive ids

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            fid = parse_qs(url.query).get("id", [""])[0]
            name = by_id.get(fid, fid) if url.path == "/uc" else url.path.lstrip("/")
            h.log.append((name, self.headers.get("Range")))
            how = h.fail.get(name)
            if how in ("404", "503"):
                return self._send(int(how), b"<html>no</html>", "text/html")
            if how == "loop":  # a redirect to itself, for ever
                self.send_response(302)
                self.send_header("Location", self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if how in ("quota", "error-page"):
                return self._send(200, (QUOTA_PAGE if how == "quota" else ERROR_PAGE).encode(), "text/html")
            data = h.files.get(name)
            if data is None:
                return self._send(404, b"not found", "text/plain")
            start = int(self.headers["Range"].removeprefix("bytes=").split("-")[0]) \
                if self.headers.get("Range") and h.ranges else 0
            if start and start >= len(data):
                return self._send(416, b"", "text/plain")
            body = data[start:]
            self.send_response(206 if start else 200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.end_headers()
            if how == "drop":
                self.wfile.write(body[: h.drop_after])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture
def hosts() -> Iterator[Callable[[], Host]]:
    """A factory of running servers (each a fresh Host); all shut down after the test."""
    running: list[ThreadingHTTPServer] = []

    def start() -> Host:
        h = Host()
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(h))
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        running.append(httpd)
        h.url = f"http://127.0.0.1:{httpd.server_address[1]}"
        return h

    yield start
    for httpd in running:
        httpd.shutdown()
        httpd.server_close()


def _content(name: str, size: int = 300_000) -> bytes:
    seed = hashlib.sha256(name.encode()).hexdigest()
    return ("[" + ",".join(f'"{seed}{i}"' for i in range(size // 70)) + "]").encode()


def _record(name: str, data: bytes) -> RemoteFile:
    """A pinned record for test bytes; its drive id is its name, so a ``/uc?id=`` template finds it too."""
    return RemoteFile(name=name, drive_id=name, sha256=hashlib.sha256(data).hexdigest(), size=len(data))


def _fetch_direct(files: list[RemoteFile], out: Path, sources: list[Source],
                  retries: int = 4) -> tuple[list[Fetched], str]:
    stream = io.StringIO()
    results = fetch_files(files, out, sources=sources, progress=DownloadProgress(stream, live=False), retries=retries,
                          retry_wait=0)
    return results, stream.getvalue()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shopsim.cli", "data", "fetch", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def _sums(tmp: Path, files: dict[str, bytes]) -> Path:
    path = tmp / "SUMS"
    path.write_text("".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in files.items()))
    return path


# ---- one source fails, the next serves the file ----------------------------------------------------------
@pytest.mark.parametrize(("how", "said"), [
    ("404", "answered 404"),
    ("quota", "refused: quota exceeded"),
    ("error-page", "answered with a web page (Google Drive - Error), not the file"),
    ("drop", "gave up after 1 retries (connection "),
    ("loop", "failed (TooManyRedirects)"),
])
def test_next_source_serves_what_the_first_refused(hosts: Callable[[], Host], tmp_path: Path, how: str,
                                                   said: str) -> None:
    first, second = hosts(), hosts()
    data = {n: _content(n) for n in NAMES}
    first.files, second.files = dict(data), dict(data)
    first.fail = {"items_ins_v2_1000.json": how}
    sources = [source_from_url(first.url + "/uc?export=download&id={id}"), source_from_url(second.url)]
    results, log = _fetch_direct([_record(n, d) for n, d in data.items()], tmp_path, sources, retries=1)

    for n in NAMES:
        assert (tmp_path / n).read_bytes() == data[n] and not (tmp_path / f"{n}.part").exists()
    assert [r.source for r in results] == [sources[0].label, sources[1].label, sources[0].label]
    switch = [line for line in log.splitlines() if "; trying " in line]
    assert len(switch) == 1 and switch[0].startswith(f"items_ins_v2_1000.json: {first.label}/uc {said}")
    assert switch[0].endswith(f"; trying {second.label}")
    assert [n for n, _ in second.log] == ["items_ins_v2_1000.json"]  # only the refused file went elsewhere


def test_resume_carries_over_to_the_next_source(hosts: Callable[[], Host], tmp_path: Path) -> None:
    first, second = hosts(), hosts()
    name = "items_shuffle_1000.json"
    data = _content(name)
    first.files = second.files = {name: data}
    first.fail, first.drop_after = {name: "drop"}, 120_000
    results, log = _fetch_direct([_record(name, data)], tmp_path, [source_from_url(first.url),
                                                                  source_from_url(second.url)], retries=0)

    assert first.log == [(name, None)]  # retries=0: one try, then the next source
    assert len(second.log) == 1 and second.log[0][1] is not None
    start = int(re.fullmatch(r"bytes=(\d+)-", second.log[0][1]).group(1))  # type: ignore[union-attr]
    assert 0 < start <= 120_000  # what reached the disk before the line dropped
    assert results[0].resumed_from == start and results[0].source == second.label
    assert (tmp_path / name).read_bytes() == data
    assert f"{name}: {first.label} gave up after 0 retries" in log


def test_bytes_that_do_not_verify_are_deleted_and_fetched_afresh(hosts: Callable[[], Host], tmp_path: Path) -> None:
    first, second = hosts(), hosts()
    name = "items_human_ins.json"
    good = _content(name)
    first.files = {name: good[:5000] + b"X" + good[5001:]}  # the right size, the wrong bytes
    second.files = {name: good}
    results, log = _fetch_direct([_record(name, good)], tmp_path, [source_from_url(first.url),
                                                                  source_from_url(second.url)])
    assert f"{first.label} gave bytes that do not verify (SHA-256" in log and "deleted the download" in log
    assert second.log == [(name, None)]  # afresh: no Range into the deleted bytes
    assert (tmp_path / name).read_bytes() == good and results[0].resumed_from == 0


def test_wrong_size_is_refused_before_a_byte_is_written(hosts: Callable[[], Host], tmp_path: Path) -> None:
    first, second = hosts(), hosts()
    name = "items_ins_v2_1000.json"
    good = _content(name)
    (tmp_path / f"{name}.part").write_bytes(good[:1000])  # an earlier run's bytes survive the bad source
    first.files, first.ranges = {name: good + b"extra"}, False
    second.files = {name: good}
    _, log = _fetch_direct([_record(name, good)], tmp_path, [source_from_url(first.url),
                                                            source_from_url(second.url)])
    assert f"{first.label} serves {len(good) + 5} bytes, but the published file has {len(good)}" in log
    assert second.log == [(name, "bytes=1000-")] and (tmp_path / name).read_bytes() == good


# ---- every source fails: one line, through the CLI --------------------------------------------------------
def test_every_source_failing_is_one_line(hosts: Callable[[], Host], tmp_path: Path) -> None:
    a, b, c = hosts(), hosts(), hosts()
    data = {n: _content(n, 20_000) for n in NAMES}
    for h in (a, b, c):
        h.files = dict(data)
    a.fail = {"items_shuffle_1000.json": "404"}
    b.fail = {"items_shuffle_1000.json": "503"}
    c.fail = {"items_shuffle_1000.json": "quota"}
    r = _cli("--set", "small", "--out", str(tmp_path / "d"), "--checksums", str(_sums(tmp_path, data)),
             "--base-url", a.url, "--base-url", b.url, "--base-url", c.url + "/uc?id={id}",
             "--retries", "1", "--retry-wait", "0")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("shopsim: error:")]
    assert len(errors) == 1 and r.stderr.rstrip().endswith(errors[0])
    assert errors[0] == (f"shopsim: error: items_shuffle_1000.json: every source failed: {a.label} answered 404; "
                         f"{b.label} gave up after 1 retries (HTTP 503 from {b.url}/items_shuffle_1000.json); "
                         f"{c.label}/uc refused: quota exceeded (too many downloads of this file recently)")
    assert f"items_shuffle_1000.json: {a.label} answered 404; trying {b.label}" in r.stderr
    assert f"; trying {c.label}/uc" in r.stderr and not (tmp_path / "d" / "items_shuffle_1000.json").exists()


def test_cli_prints_where_each_file_came_from(hosts: Callable[[], Host], tmp_path: Path) -> None:
    a, b = hosts(), hosts()
    data = {n: _content(n, 20_000) for n in NAMES}
    b.files = dict(data)  # the first source has nothing: every file comes from the second
    r = _cli("--set", "small", "--out", str(tmp_path / "d"), "--checksums", str(_sums(tmp_path, data)),
             "--base-url", a.url, "--base-url", b.url, "--no-prepare", "--json")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(f'"source": "{b.label}"') == 3 and r.stderr.count(f"; trying {b.label}") == 3


def test_source_and_base_url_exclude_each_other(tmp_path: Path) -> None:
    r = _cli("--set", "small", "--out", str(tmp_path / "d"), "--source", "mirrors", "--base-url", "http://127.0.0.1:9")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("shopsim: error: --source picks among")
    assert not (tmp_path / "d").exists()


def test_a_single_source_keeps_its_own_error(hosts: Callable[[], Host], tmp_path: Path) -> None:
    a = hosts()
    name = "items_human_ins.json"
    with pytest.raises(FetchError) as err:
        _fetch_direct([_record(name, _content(name))], tmp_path, [source_from_url(a.url)])
    assert str(err.value).startswith(f"{name}: HTTP 404 from {a.url}/{name}")


# ---- sources and the shipped record ----------------------------------------------------------------------
def test_source_labels_and_urls() -> None:
    f = RemoteFile(name="items_human_ins.json", drive_id="ID1")
    hf = "https://huggingface.co/datasets/O/N/resolve/0123abcd/{name}"
    assert source_from_url(hf).label == "huggingface.co/datasets/O/N"
    assert source_from_url(hf).url_for(f) == "https://huggingface.co/datasets/O/N/resolve/0123abcd/items_human_ins.json"
    assert source_from_url("http://127.0.0.1:8/mirror/").url_for(f) == "http://127.0.0.1:8/mirror/items_human_ins.json"
    assert source_from_url("http://h/uc?export=download&id={id}").label == "h/uc"
    assert DRIVE.url_for(f) == "https://drive.google.com/uc?export=download&id=ID1"


def test_shipped_record_pins_every_file_and_both_mirrors() -> None:
    m = load_manifest()
    names = {n for files in m.sets.values() for n in files}
    assert names == {*NAMES, "items_shuffle.json", "items_ins_v2.json"}
    for name in names:
        f = m.files[name]
        assert f.sha256 is not None and re.fullmatch(r"[0-9a-f]{64}", f.sha256), name
        assert f.size is not None and f.size > 0 and f.sha256_prefix is None, name
        assert verification_level(f) == "sha256"
    assert m.files["items_shuffle_1000.json"].sha256.startswith("30a4765c")  # type: ignore[union-attr]
    assert m.files["items_shuffle.json"].size == 5_479_720_229
    assert len(m.mirrors) == 2
    for mirror in m.mirrors:
        assert re.fullmatch(r"https://huggingface\.co/datasets/[\w-]+/[\w-]+/resolve/[0-9a-f]{40}/\{name\}", mirror.url)
        assert source_from_url(mirror.url).label == mirror.name
    assert "public records" in m.provenance
    assert [s.label for s in default_sources(m)] == ["Google Drive", *(x.name for x in m.mirrors)]
    assert [s.label for s in default_sources(m, "mirrors")] == [x.name for x in m.mirrors]
    assert default_sources(m, "drive") == [DRIVE]


def test_switch_line_ends_a_live_progress_line() -> None:
    out = io.StringIO()
    p = DownloadProgress(out, live=True)
    p.start("items.json", 0, 4000)
    p.advance(1000)
    p.say("items.json: A answered 404; trying B")
    assert out.getvalue().endswith("\nitems.json: A answered 404; trying B\n")
    p.say("again")  # no half-drawn line now: no blank line
    assert out.getvalue().endswith("B\nagain\n")


def test_a_source_with_a_shorter_file_keeps_the_part_for_the_next(hosts: Callable[[], Host], tmp_path: Path) -> None:
    """A 416 to a range inside the published size means that source's copy is short: the bytes
    already held are kept and the next source resumes from them (not from byte 0)."""
    first, second = hosts(), hosts()
    name = "items_shuffle_1000.json"
    data = _content(name)
    held = len(data) * 3 // 5
    first.files, second.files = {name: data[: len(data) // 2]}, {name: data}
    (tmp_path / f"{name}.part").write_bytes(data[:held])
    results, log = _fetch_direct([_record(name, data)], tmp_path, [source_from_url(first.url),
                                                                  source_from_url(second.url)], retries=0)

    assert f"{name}: {first.label} refused the range from byte {held} (its file is shorter)" in log
    assert second.log == [(name, f"bytes={held}-")] and results[0].resumed_from == held
    assert (tmp_path / name).read_bytes() == data
