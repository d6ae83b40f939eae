"""``shopsim record`` against the local sim (real server thread, real Chromium) writes a bundle that replays."""

from __future__ import annotations

import json

import pytest
from _bundles import recorded_observations, replayed_observations

from shopsim.adapters.browser_replay import BrowserReplaySource
from shopsim.adapters.bundle import Bundle, sha256_hex
from shopsim.adapters.replay import ReplaySource
from shopsim.cli import main
from shopsim.errors import ConfigError, SourceError

pytestmark = pytest.mark.browser


def _record(tmp_path, web_server, chromium_path, *extra: str) -> Bundle:
    out = tmp_path / "bundle"
    args = ["record", "--start-url", f"{web_server.base_url}/fixed_5", "--site", "simsite", "--out", str(out),
            *extra]
    if chromium_path:
        args += ["--browser", chromium_path]
    assert main(args) == 0
    return Bundle.load(out)


@pytest.mark.slow
def test_record_rule_agent_then_replay(tmp_path, web_server, chromium_path, browser_shutdown, capsys):
    bundle = _record(tmp_path, web_server, chromium_path, "--agent", "rule", "--har", "--json")
    result = json.loads(capsys.readouterr().out)
    assert result["purchased"] and result["pages"] == 3 and result["har"]
    m = bundle.manifest
    assert m.site == "simsite" and m.instruction and m.har == "session.har"
    assert [s.kind for s in m.steps] == ["load", "load", "load", "purchase"]
    assert m.steps[1].action == f"search[{m.instruction}]"
    for step in bundle.load_steps():  # every page's hash matches the file
        assert step.page is not None and sha256_hex((bundle.root / step.page).read_bytes()) == step.sha256
        assert step.normalized_url and step.normalized_url.startswith(web_server.base_url)
    src = ReplaySource(bundle)
    assert replayed_observations(bundle, src) == recorded_observations(bundle, src)
    # the HAR replays the same session in Chromium, with nothing else reachable
    har_src = BrowserReplaySource(bundle, executable_path=chromium_path)
    try:
        assert har_src.use_har
        got = [har_src.reset().page_type]
        for step in m.steps[1:]:
            got.append(har_src.step(step.action or "")[0].page_type)
        assert got == ["search", "results", "item", "done"]
    finally:
        har_src.close()


@pytest.mark.slow
def test_record_actions_file_with_options(tmp_path, web_server, chromium_path, browser_shutdown):
    actions = tmp_path / "actions.txt"
    probe = ReplaySource(_record(tmp_path / "probe", web_server, chromium_path, "--agent", "rule"))
    probe.reset()
    results, *_ = probe.step(f"search[{probe.instruction}]")
    product = next(c.arg for c in results.clickables if c.kind == "product")
    item, *_ = probe.step(f"click[{product}]")
    option = next((c.arg for c in item.clickables if c.kind == "option"), None)
    lines = ["# a comment", f"search[{probe.instruction}]", "", f"click[{product}]"]
    lines += [f"click[{option}]"] if option else []
    lines += ["click[no such button]", "click[features]", "click[< prev]", "click[buy now]"]
    actions.write_text("\n".join(lines) + "\n")
    bundle = _record(tmp_path, web_server, chromium_path, "--actions", str(actions))
    kinds = [s.kind for s in bundle.manifest.steps]
    assert "refused" in kinds and kinds[-1] == "purchase"
    src = ReplaySource(bundle)
    assert replayed_observations(bundle, src) == recorded_observations(bundle, src)


def test_record_argument_errors(tmp_path):
    with pytest.raises(ConfigError, match="exactly one of"):
        from shopsim.adapters.record import record_session

        record_session("http://127.0.0.1:9/", tmp_path / "x", site="simsite")
    assert main(["record", "--out", str(tmp_path / "y"), "--agent", "rule"]) == 2
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "manifest.json").write_text("{}")
    with pytest.raises(SourceError, match="already holds a bundle"):
        from shopsim.adapters.bundle import BundleWriter

        BundleWriter(tmp_path / "z", site="simsite", start_url="http://127.0.0.1/")


def test_record_actions_must_be_a_regular_file(tmp_path, capsys):
    """A FIFO as --actions blocked `record` for ever; a device or folder is refused the same way, in one line."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "actions.fifo"
    os.mkfifo(fifo)
    r = subprocess.run([sys.executable, "-m", "shopsim.cli", "record", "--actions", str(fifo), "--out",
                        str(tmp_path / "b"), "--start-url", "http://127.0.0.1:9/", "--site", "simsite"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.strip() == \
        f"shopsim: error: cannot read the actions file {fifo}: a FIFO (named pipe), not a regular file", r.stderr
    for path, kind in (("/dev/zero", "a character device"), (str(tmp_path), "a folder")):
        assert main(["record", "--actions", path, "--out", str(tmp_path / "c"), "--serve"]) == 2
        assert capsys.readouterr().err.strip() == \
            f"shopsim: error: cannot read the actions file {path}: {kind}, not a regular file"
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()
