"""``data fetch`` against hostile mirrors on 127.0.0.1: a drip, silence, an endless body, a wrong size, a planted link.

Each mirror is a real HTTP server; the limits are set small (a second) so a stalled source is left
quickly. Checked: the next source takes over (or the fetch ends with one line and exit 2), no ``.part``
ever holds more than the recorded size, and nothing is written through a symlink outside ``--out``.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from shopsim.errors import ConfigError
from shopsim.progress import DownloadProgress
from shopsim.simsite.fetch import Fetched, Limits, fetch_files
from shopsim.simsite.fetch_record import FetchError, RemoteFile, Source, source_from_url

ROOT = Path(__file__).resolve().parents[2]
NAME = "items_ins_v2_1000.json"
DATA = ("[" + ",".join(f'"{i:06d}"' for i in range(20_000)) + "]").encode()  # ~180 kB
FAST = Limits(connect=2.0, read=1.0, min_rate=2000.0)
#: An endless body stops being sent after this much, so a test that fails does not fill the disk.
ENDLESS_CAP = 64 << 20


class _Mirror(BaseHTTPRequestHandler):
    """``/MODE/NAME``: good | drip | silent | endless (the file, then junk for ever) | junk | wrongsize."""

    sent: ClassVar[dict[str, int]] = {}

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        mode = self.path.strip("/").split("/")[0]
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if mode in ("good", "drip", "silent"):
            self.send_header("Content-Length", str(len(DATA)))
        elif mode == "wrongsize":
            self.send_header("Content-Length", str(len(DATA) + 1))
        self.end_headers()  # endless and junk: no length, the body ends when the connection does
        try:
            if mode in ("good", "wrongsize"):
                self.wfile.write(DATA + (b"x" if mode == "wrongsize" else b""))
            elif mode == "drip":
                for byte in DATA[:30]:  # a byte a second: never a read timeout
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.5)
            elif mode == "silent":
                time.sleep(10)
            else:
                self._endless(mode)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _endless(self, mode: str) -> None:
        sent = 0
        if mode == "endless":
            self.wfile.write(DATA)
            sent = len(DATA)
        junk = b"j" * 65536
        while sent < ENDLESS_CAP:
            self.wfile.write(junk)
            sent += len(junk)
            _Mirror.sent[mode] = sent


@pytest.fixture(scope="module")
def mirror() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Mirror)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _record() -> RemoteFile:
    return RemoteFile(name=NAME, drive_id="x", sha256=hashlib.sha256(DATA).hexdigest(), size=len(DATA))


def _fetch(out: Path, sources: list[Source], limits: Limits = FAST) -> tuple[list[Fetched], str]:
    stream = io.StringIO()
    done = fetch_files([_record()], out, sources=sources, progress=DownloadProgress(stream, live=False), retries=1,
                       retry_wait=0, limits=limits)
    return done, stream.getvalue()


def _src(base: str, mode: str) -> Source:
    return source_from_url(f"{base}/{mode}")


@pytest.mark.parametrize(("mode", "said"), [
    ("drip", "stalled ("),  # under the minimum rate
    ("silent", "stalled (no byte for 1 s)"),
    ("wrongsize", f"serves {len(DATA) + 1} bytes, but the published file has {len(DATA)}"),
    ("junk", "gave bytes that do not verify"),
])
def test_a_hostile_mirror_is_left_for_the_next(mirror: str, tmp_path: Path, mode: str, said: str) -> None:
    done, log = _fetch(tmp_path, [_src(mirror, mode), _src(mirror, "good")])
    assert (tmp_path / NAME).read_bytes() == DATA and done[0].source == _src(mirror, "good").label
    switch = [line for line in log.splitlines() if "; trying " in line]
    assert len(switch) == 1 and said in switch[0], log


def test_drip_is_under_the_minimum_rate(mirror: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError) as stalled:
        _fetch(tmp_path, [_src(mirror, "drip")])
    assert "under the minimum 2000" in str(stalled.value) and NAME in str(stalled.value)
    assert (tmp_path / f"{NAME}.part").stat().st_size < 30  # what dripped in is kept to resume


def test_total_time_limit(mirror: str, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match=r"stalled \(not done after 1 s\)"):
        _fetch(tmp_path, [_src(mirror, "drip")], Limits(read=5.0, min_rate=0.0, total=1.0))


def test_an_endless_body_is_cut_off_at_the_pin(mirror: str, tmp_path: Path) -> None:
    done, _ = _fetch(tmp_path, [_src(mirror, "endless")])  # the right bytes, then junk for ever
    assert (tmp_path / NAME).read_bytes() == DATA and done[0].verified == "sha256"
    with pytest.raises(FetchError, match="does not match the pinned"):  # junk only: cut off at the pin, then refused
        _fetch(tmp_path / "junk", [_src(mirror, "junk")])
    assert not (tmp_path / "junk" / f"{NAME}.part").exists()
    assert _Mirror.sent.get("junk", 0) < ENDLESS_CAP  # the client hung up; it did not drain the body


@pytest.mark.parametrize("where", [f"{NAME}.part", NAME])
def test_a_planted_symlink_is_refused(mirror: str, tmp_path: Path, where: str) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.write_bytes(b"keep me")
    (out / where).symlink_to(outside)
    (out / "dangling.part").symlink_to(tmp_path / "created-outside")
    r = subprocess.run([sys.executable, "-m", "shopsim.cli", "data", "fetch", "--set", "small", "--out", str(out),
                        "--base-url", f"{mirror}/good", "--checksums", str(_sums(tmp_path)), "--no-prepare"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("shopsim: error: ") and f"{out / where}: a symlink" in line
    assert outside.read_bytes() == b"keep me" and not (tmp_path / "created-outside").exists()


def test_o_nofollow_refuses_a_link_planted_after_the_check(mirror: str, tmp_path: Path) -> None:
    """The write itself refuses a link (O_NOFOLLOW / O_EXCL), not only the check before the request."""
    from shopsim.simsite.fetch_local import open_part

    outside = tmp_path / "outside"
    outside.write_bytes(b"keep me")
    part = tmp_path / f"{NAME}.part"
    part.symlink_to(outside)
    with pytest.raises(FetchError, match="cannot write"):
        open_part(_record(), part, append=True)
    with open_part(_record(), part, append=False) as fresh:  # a fresh part replaces the link, not its target
        fresh.write(b"new")
    assert outside.read_bytes() == b"keep me" and not part.is_symlink() and part.read_bytes() == b"new"


@pytest.mark.slow
def test_cli_stalled_single_source_is_one_line(mirror: str, tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "shopsim.cli", "data", "fetch", "--set", "small", "--out",
                        str(tmp_path / "d"), "--base-url", f"{mirror}/drip", "--checksums", str(_sums(tmp_path)),
                        "--read-timeout", "1", "--min-rate", "100", "--no-prepare"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("shopsim: error: items_shuffle_1000.json: ")
    assert "stalled" in r.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("flag", ["--read-timeout", "--connect-timeout", "--max-time", "--min-rate"])
def test_bad_limits_are_refused(tmp_path: Path, flag: str) -> None:
    from shopsim.cli import build_parser
    from shopsim.cli.data_fetch import cmd_fetch

    args = build_parser().parse_args(["data", "fetch", "--set", "small", "--out", str(tmp_path), flag, "-1"])
    with pytest.raises(ConfigError, match=f"^{flag} -1: must"):
        cmd_fetch(args)
    assert list(tmp_path.iterdir()) == []  # refused before anything was created or fetched


def _sums(tmp: Path) -> Path:
    path = tmp / "SUMS"
    path.write_text("".join(f"{hashlib.sha256(DATA).hexdigest()}  {n}\n"
                            for n in ("items_shuffle_1000.json", NAME, "items_human_ins.json")))
    return path
