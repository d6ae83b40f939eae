"""``shopsim data fetch`` against a real local HTTP server on 127.0.0.1: resumes, verification, failures.

The server serves files from a temp folder as a plain mirror (``--base-url URL``) and imitates
Google Drive's confirmation flow (``--base-url 'URL/uc?export=download&id={id}'``). The command runs
as its own process (``shopsim data fetch`` through the CLI's entry point), so exit codes and stderr are real.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from shopsim.errors import ConfigError
from shopsim.progress import DownloadProgress
from shopsim.simsite.fetch import drive_confirm_url, fetch_files
from shopsim.simsite.fetch_record import (
    RemoteFile,
    load_manifest,
    select_files,
    source_from_url,
    verification_level,
)
from tests.conftest import SMALL, needs_small

ROOT = Path(__file__).resolve().parents[2]
SMALL_NAMES = ("items_shuffle_1000.json", "items_ins_v2_1000.json", "items_human_ins.json")
FULL_NAMES = ("items_shuffle.json", "items_ins_v2.json", "items_human_ins.json")


@dataclass
class Behaviour:
    """What the test server does; tests change it between runs."""

    files: dict[str, bytes] = field(default_factory=dict)
    truncate_once: set[str] = field(default_factory=set)  # send half the body, then hang up (once)
    status: dict[str, int] = field(default_factory=dict)  # answer this status for a file
    ranges: bool = True  # honour Range requests
    drive: str = "form"  # form | cookie | quota: how /uc answers
    log: list[tuple[str, str | None]] = field(default_factory=list)  # (path?query, Range header)


def _handler(b: Behaviour) -> type[BaseHTTPRequestHandler]:
    by_id = {f.drive_id: f.name for f in load_manifest().files.values()}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            b.log.append((self.path, self.headers.get("Range")))
            if url.path == "/uc" and query.get("confirm") == "ABC123" and query.get("id") in by_id:
                return self._file(by_id[query["id"]])  # the older flow: the confirmed /uc link is the file
            if url.path == "/uc":
                return self._confirm_page(query)
            if url.path == "/download":
                if query.get("confirm") != "t" or query.get("uuid") != "u-1" or query.get("id") not in by_id:
                    return self._send(403, b"no confirmation", "text/plain")
                return self._file(by_id[query["id"]])
            return self._file(url.path.lstrip("/"))

        def _confirm_page(self, query: dict[str, str]) -> None:
            fid = query.get("id", "")
            if b.drive == "quota":
                page = "<html><title>Google Drive - Quota exceeded</title><body>Sorry, you can't view or download " \
                       "this file at this time. Too many users have viewed or downloaded this file recently.</body></html>"
                return self._send(200, page.encode(), "text/html; charset=utf-8")
            if b.drive == "cookie":  # the older flow: a warning cookie and no form
                body = b"<html><title>Google Drive - Virus scan warning</title><body>Can't scan.</body></html>"
                return self._send(200, body, "text/html", {"Set-Cookie": "download_warning_13058876669=ABC123; Path=/"})
            page = (
                "<!DOCTYPE html><html><head><title>Google Drive - Virus scan warning</title></head><body>"
                "<p>Google Drive can't scan this file for viruses.</p>"
                '<form id="download-form" action="/download" method="get">'
                '<input type="submit" value="Download anyway">'
                f'<input type="hidden" name="id" value="{fid}"><input type="hidden" name="export" value="download">'
                '<input type="hidden" name="confirm" value="t"><input type="hidden" name="uuid" value="u-1">'
                "</form></body></html>")
            self._send(200, page.encode(), "text/html; charset=utf-8")

        def _file(self, name: str) -> None:
            if name in b.status:
                return self._send(b.status[name], b"<html>error</html>", "text/html")
            data = b.files.get(name)
            if data is None:
                return self._send(404, b"not found", "text/plain")
            start = 0
            rng = self.headers.get("Range")
            if rng and b.ranges:
                start = int(rng.removeprefix("bytes=").split("-")[0])
                if start >= len(data):
                    return self._send(416, b"", "text/plain", {"Content-Range": f"bytes */{len(data)}"})
            body = data[start:]
            self.send_response(206 if start else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.end_headers()
            if name in b.truncate_once:
                b.truncate_once.discard(name)
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

        def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    b = Behaviour()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(b))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", b
    finally:
        httpd.shutdown()
        httpd.server_close()


def _content(name: str, size: int = 300_000) -> bytes:
    """Deterministic bytes for a file (JSON-looking, large enough to arrive in several chunks)."""
    seed = hashlib.sha256(name.encode()).hexdigest()
    return ("[" + ",".join(f'"{seed}{i}"' for i in range(size // 70)) + "]").encode()


def _pins(tmp: Path, files: dict[str, bytes]) -> Path:
    path = tmp / "SUMS"
    path.write_text("".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in files.items()))
    return path


def _fetch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "import sys; from shopsim.cli import main; sys.exit(main())",
                           "data", "fetch", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def _one_error_line(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("shopsim: error:")]
    assert len(errors) == 1 and r.stderr.rstrip().endswith(errors[0]), r.stderr
    return errors[0]


@pytest.fixture
def small(server: tuple[str, Behaviour], tmp_path: Path) -> tuple[str, Behaviour, Path]:
    base, b = server
    b.files = {n: _content(n) for n in SMALL_NAMES}
    return base, b, _pins(tmp_path, b.files)


# ---- the happy path ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_downloads_verifies_then_skips(small: tuple[str, Behaviour, Path], tmp_path: Path) -> None:
    base, b, sums = small
    out = tmp_path / "data"
    r = _fetch("--set", "small", "--out", str(out), "--base-url", base, "--checksums", str(sums), "--no-prepare")
    assert r.returncode == 0, r.stderr
    for name in SMALL_NAMES:
        assert (out / name).read_bytes() == b.files[name]
        assert not (out / f"{name}.part").exists()
        assert name in r.stderr  # its progress line
    assert r.stdout.count("verified (SHA-256)") == 3 and "academic and research use only" in r.stdout
    assert f"next: shopsim data prepare --data {out}" in r.stderr

    b.log.clear()
    again = _fetch("--set", "small", "--out", str(out), "--base-url", base, "--checksums", str(sums), "--no-prepare")
    assert again.returncode == 0 and again.stdout.count("(already there)") == 3 and b.log == []


def test_truncated_download_resumes_with_range(small: tuple[str, Behaviour, Path], tmp_path: Path) -> None:
    base, b, sums = small
    b.truncate_once = {"items_shuffle_1000.json"}
    out = tmp_path / "data"
    r = _fetch("--set", "small", "--out", str(out), "--base-url", base, "--checksums", str(sums), "--no-prepare",
               "--retry-wait", "0")
    assert r.returncode == 0, r.stderr
    assert "items_shuffle_1000.json: connection" in r.stderr and "retrying (1 of 4)" in r.stderr
    half = len(b.files["items_shuffle_1000.json"]) // 2
    resumes = [int(rng[6:-1]) for path, rng in b.log if path == "/items_shuffle_1000.json" and rng]
    assert len(resumes) == 1 and 0 < resumes[0] <= half  # what had reached the disk when the line dropped
    assert (out / "items_shuffle_1000.json").read_bytes() == b.files["items_shuffle_1000.json"]
    assert f"resumed at {resumes[0]} bytes" in r.stdout


def test_part_file_of_an_earlier_run_resumes(small: tuple[str, Behaviour, Path], tmp_path: Path) -> None:
    base, b, sums = small
    out = tmp_path / "data"
    out.mkdir()
    name = "items_ins_v2_1000.json"
    (out / f"{name}.part").write_bytes(b.files[name][:1000])
    r = _fetch("--set", "small", "--out", str(out), "--base-url", base, "--checksums", str(sums), "--no-prepare")
    assert r.returncode == 0, r.stderr
    assert (f"/{name}", "bytes=1000-") in b.log and (out / name).read_bytes() == b.files[name]


def test_server_without_ranges_restarts_the_file(small: tuple[str, Behaviour, Path], tmp_path: Path) -> None:
    base, b, sums = small
    b.ranges = False
    out = tmp_path / "data"
    out.mkdir()
    (out / "items_human_ins.json.part").write_bytes(b"stale bytes from some other file")
    r = _fetch("--set", "small", "--out", str(out), "--base-url", base, "--checksums", str(sums), "--no-prepare")
    assert r.returncode == 0, r.stderr
    assert (out / "items_human_ins.json").read_bytes() == b.files["items_human_ins.json"]


# ---- failures: one line, non-zero exit --------------------------------------------------------------------
@pytest.mark.slow
def test_corrupted_file_fails_verification(small: tuple[str, Behaviour, Path], tmp_path: Path) -> None:
    base, b, sums = small
    good = b.files["items_ins_v2_1000.json"]
    b.files["items_ins_v2_1000.json"] = good[:5000] + b"X" + good[5001:]
    out = tmp_path / "data"
    line = _one_error_line(_fetch("--set", "small", "--out", str(out), "--base-url", base, "--checksums", str(sums)))
    assert "items_ins_v2_1000.json: SHA-256" in line and "does not match the pinned" in line and "deleted" in line
    assert not (out / "items_ins_v2_1000.json").exists() and not (out / "items_ins_v2_1000.json.part").exists()


def test_server_error_gives_up_after_retries(small: tuple[str, Behaviour, Path], tmp_path: Path) -> None:
    base, b, sums = small
    b.status = {"items_shuffle_1000.json": 503}
    r = _fetch("--set", "small", "--out", str(tmp_path / "d"), "--base-url", base, "--checksums", str(sums),
               "--retries", "2", "--retry-wait", "0")
    line = _one_error_line(r)
    assert "HTTP 503" in line and "gave up after 2 retries" in line
    assert "retrying (2 of 2)" in r.stderr
    assert sum(path == "/items_shuffle_1000.json" for path, _ in b.log) == 3


def test_missing_file_is_not_retried(small: tuple[str, Behaviour, Path], tmp_path: Path) -> None:
    base, b, sums = small
    del b.files["items_human_ins.json"]
    line = _one_error_line(_fetch("--set", "small", "--out", str(tmp_path / "d"), "--base-url", base,
                                  "--checksums", str(sums), "--retry-wait", "0"))
    assert "items_human_ins.json: HTTP 404" in line
    assert sum(path == "/items_human_ins.json" for path, _ in b.log) == 1


def test_unverifiable_files_need_trust(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    """Every shipped file is pinned; a record without a checksum (another manifest) is refused
    before any byte is fetched unless trusted, and then its SHA-256 is reported for pinning."""
    base, b = server
    b.files = {n: _content(n, 20_000) for n in FULL_NAMES}
    record = [RemoteFile(name=n, drive_id=f"id-{n}") for n in FULL_NAMES]
    with pytest.raises(ConfigError) as refused:
        fetch_files(record, tmp_path / "d", sources=[source_from_url(base)])
    assert str(refused.value).startswith("no checksum on record for items_shuffle.json, items_ins_v2.json, "
                                         "items_human_ins.json: pass --trust-unverified")
    assert b.log == []  # refused before any download
    done = fetch_files(record, tmp_path / "d", sources=[source_from_url(base)], trust_unverified=True,
                       progress=DownloadProgress(io.StringIO()))
    assert [f.verified for f in done] == ["unverified"] * 3
    assert done[0].sha256 == hashlib.sha256(b.files["items_shuffle.json"]).hexdigest()


def test_bad_checksums_file_is_one_line(tmp_path: Path) -> None:
    sums = tmp_path / "SUMS"
    sums.write_text("not a checksum line\n")
    line = _one_error_line(_fetch("--set", "small", "--out", str(tmp_path / "d"), "--checksums", str(sums)))
    assert "line 1: expected" in line


# ---- Google Drive's confirmation flow (imitated) ---------------------------------------------------------
@pytest.mark.parametrize("flow", ["form", "cookie"])
def test_drive_confirmation_is_followed(small: tuple[str, Behaviour, Path], tmp_path: Path, flow: str) -> None:
    base, b, sums = small
    b.drive = flow
    out = tmp_path / "data"
    r = _fetch("--set", "small", "--out", str(out), "--base-url", base + "/uc?export=download&id={id}",
               "--checksums", str(sums), "--no-prepare")
    assert r.returncode == 0, r.stderr
    ids = {f.name: f.drive_id for f in load_manifest().files.values()}
    for name in SMALL_NAMES:
        assert (out / name).read_bytes() == b.files[name]
        confirmed = "/download?" if flow == "form" else "/uc?"
        assert any(p.startswith(confirmed) and f"id={ids[name]}" in p and "confirm=" in p for p, _ in b.log)


def test_drive_quota_page_is_reported(small: tuple[str, Behaviour, Path], tmp_path: Path) -> None:
    base, b, sums = small
    b.drive = "quota"
    line = _one_error_line(_fetch("--set", "small", "--out", str(tmp_path / "d"), "--base-url",
                                  base + "/uc?export=download&id={id}", "--checksums", str(sums)))
    assert "Google Drive refuses: too many downloads" in line and "drive.google.com/uc?id=" in line


def test_drive_confirm_url_forms() -> None:
    page = ('<form id="download-form" action="https://drive.usercontent.google.com/download" method="get">'
            '<input type="hidden" name="id" value="X"><input type="hidden" name="confirm" value="t"></form>')
    assert drive_confirm_url(page, "https://drive.google.com/uc?id=X") == \
        "https://drive.usercontent.google.com/download?id=X&confirm=t"
    link = '<a id="uc-download-link" href="/uc?export=download&amp;confirm=Ab_1&amp;id=X">Download anyway</a>'
    assert drive_confirm_url(link, "https://drive.google.com/uc?id=X") == \
        "https://drive.google.com/uc?export=download&confirm=Ab_1&id=X"
    assert drive_confirm_url("<p>nothing</p>", "https://x/uc?id=X") is None


# ---- the packaged record and real data --------------------------------------------------------------------
def test_record_matches_webshop_setup() -> None:
    m = load_manifest()
    assert m.sets == {"small": list(SMALL_NAMES), "all": list(FULL_NAMES)}
    for set_name in ("small", "all"):
        assert {verification_level(f) for f in select_files(m, set_name)} == {"sha256"}


@needs_small
@pytest.mark.slow
def test_real_small_files_verify_against_the_record(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    """WebShop's real attribute file matches shopsim's pinned SHA-256; the shared rebuild of the product
    file is refused (it is not the published original), until it is pinned with --checksums."""
    base, b = server
    b.files = {n: (SMALL / n).read_bytes() for n in SMALL_NAMES}
    out = tmp_path / "data"
    line = _one_error_line(_fetch("--set", "small", "--out", str(out), "--base-url", base, "--trust-unverified"))
    assert "items_shuffle_1000.json" in line and "but the published file has 4467013" in line

    r = _fetch("--set", "small", "--out", str(out), "--base-url", base, "--checksums", str(SMALL / "SHA256SUMS"),
               "--no-prepare")
    assert r.returncode == 0, r.stderr
    for name in SMALL_NAMES:
        assert (out / name).read_bytes() == b.files[name]


@needs_small
def test_prepares_the_store_or_says_how(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    from shopsim.cli.data_fetch import _prepare_function

    base, b = server
    b.files = {n: (SMALL / n).read_bytes() for n in SMALL_NAMES}
    out = tmp_path / "data"
    r = _fetch("--set", "small", "--out", str(out), "--base-url", base, "--checksums", str(SMALL / "SHA256SUMS"))
    assert r.returncode == 0, r.stderr
    if _prepare_function() is None:
        assert f"next: shopsim data prepare --data {out} --out {out / 'store'}" in r.stderr
    else:
        assert (out / "store").is_dir() and "store ready" in r.stderr


def test_cli_has_data_fetch() -> None:
    from shopsim.cli import build_parser
    from shopsim.cli.data_fetch import cmd_fetch

    args = build_parser().parse_args(["data", "fetch", "--set", "small", "--out", "x"])
    assert args.func is cmd_fetch and args.set == "small" and args.out == "x"


def test_progress_line_redraws_on_a_terminal() -> None:
    import io

    from shopsim.progress import DownloadProgress

    out = io.StringIO()
    p = DownloadProgress(out, live=True)
    p.start("items.json", 1000, 4000)
    p.advance(3000)
    p.finish()
    text = out.getvalue()
    assert text.startswith("\r\x1b[K") and text.endswith("\n") and "100%" in text and "(resumed at 1.0 kB)" in text
