"""``data prepare`` refuses an ``--out`` that holds its own input (both profiles), before writing a byte.

The v8 case is the one that lost data: an archive prepared into its own folder was overwritten by the
prepared ``products.json.gz`` (300 -> 293 products). Real archive (the shared v8 sample), real CLI.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

import pytest

from shopsim.cli import main
from shopsim.errors import ConfigError
from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.store.prepare import prepare_store

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "data" / "shopsim-sample" / "products.json"


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.skipif(not SAMPLE.is_file(), reason="the v8 sample (../shared/data/shopsim-sample) is not here")
def test_v8_archive_in_its_own_out_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "products.json.gz").write_bytes(gzip.compress(SAMPLE.read_bytes(), mtime=0))
    before = _digests(folder)
    for out in (folder, tmp_path):  # the archive's folder, and a folder above it
        code = main(["data", "prepare", "--profile", "shopsim-v8", "--archive", str(folder / "products.json.gz"),
                     "--out", str(out), "--no-verify"])
        err = capsys.readouterr().err.strip()
        assert code == 2 and err.startswith(f"shopsim: error: --out {out} holds the input --archive ") and "\n" not in err
        assert _digests(folder) == before
    assert main(["data", "prepare", "--profile", "shopsim-v8", "--archive", str(folder / "products.json.gz"),
                 "--out", str(folder / "prepared"), "--no-verify"]) == 0  # a folder below the input is fine
    assert (folder / "prepared" / "products.json.gz").is_file()
    assert hashlib.sha256((folder / "products.json.gz").read_bytes()).hexdigest() == before["products.json.gz"]


def test_webshop_data_in_its_own_out_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(default_catalog_dir(), data)
    before = _digests(data)
    for out in (data, tmp_path, data / "."):
        with pytest.raises(ConfigError, match=r"holds the input --data"):
            prepare_store(data, out, workers=1)
    assert _digests(data) == before
