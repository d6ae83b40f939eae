"""``PageSnapshotter`` when Chromium cannot start: each capture says so in one line (a ShopsimError, which
the MCP server shows as the tool error), and a later capture tries again instead of failing with
Playwright's "Sync API inside the asyncio loop" (the first failed start had left its Playwright running).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright", reason="playwright is not installed: pip install -e '.[test]'")

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.page_snapshot import PageSnapshotter
from shopsim.errors import SourceError


def test_a_browser_that_does_not_start_is_one_line_every_time(bundled_shop: Any) -> None:
    env = ShopEnv(bundled_shop)
    env.reset(seed=0, options={"goal": 3})
    snapshots = PageSnapshotter("/bin/true")  # an executable that is no browser
    try:
        for _ in range(2):
            with pytest.raises(SourceError) as failed:
                snapshots.submit(env.state).result(timeout=60)
            message = str(failed.value)
            assert message.startswith("headless Chromium did not start: ") and "\n" not in message, message
    finally:
        snapshots.close()
