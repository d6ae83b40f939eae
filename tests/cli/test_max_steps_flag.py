"""``--max-steps`` below 1 is one line and exit 2 on run and eval, before anything loads."""

from __future__ import annotations

import pytest

from shopsim.cli import main


@pytest.mark.parametrize("command", ["run", "eval"])
@pytest.mark.parametrize("steps", ["0", "-1"])
def test_max_steps_below_one_is_refused(command: str, steps: str, tmp_path, capsys) -> None:
    """``--max-steps 0`` quietly played the profile's 15 steps, ``-1`` played episodes of no step at all."""
    argv = [command, "--agent", "rule", "--goals", "0:1", "--max-steps", steps]
    assert main([*argv, *(["--out", str(tmp_path / "run")] if command == "eval" else [])]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"shopsim: error: --max-steps {steps}: an episode needs at least 1 step"
