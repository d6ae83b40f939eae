"""Every code example in README.md and docs/*.md runs as written, so no doc can drift from the code.

Each ```python block runs in its own process (a block that defines ``test_...`` functions runs under
pytest, with the shopsim plugin serving the shop and Chromium for pytest-playwright), and each
command of a ```bash or ```console block runs in bash. The working folder is a temporary stand-in
for the repository root (a doc's paths are relative to the root, wherever the doc lives): ``.venv`` (this interpreter's environment, also first on ``PATH``) and
``fixtures`` are linked in, ``../shared`` points at the shared data when it exists, and nothing is
written into the checkout. An HTML comment right before a block adjusts it, visibly in the doc:

* ``<!-- readme-test: skip (reason) -->``: not run (long, or a server that runs until stopped);
* ``<!-- readme-test: file NAME = PATH -->``: copy PATH (relative to the repository root, as the
  docs' own paths are) to NAME first, for examples that name a file of the reader's own.

Examples that use ``../shared`` are skipped with a reason when that folder is absent.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED

README = ROOT / "README.md"
#: The documents whose examples run: the README and every page of docs/ (not the generated docs/api/).
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
RUN_LANGS = {"python": "python", "bash": "bash", "sh": "bash", "shell": "bash", "console": "console"}
MARKER = re.compile(r"^<!--\s*readme-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^```\s*([\w+-]*)")
SKIP = re.compile(r"^skip \((.+)\)$")
FILE = re.compile(r"^file (\S+) = (\S+)$")
#: A hang guard, not a speed check: an example that runs this long needs a skip marker.
HANG_S = 300
#: The plugins a user of the example needs; the suite's own heavy ones only slow the start.
PYTEST_ARGS = ["-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:schemathesis"]


@dataclass(frozen=True)
class Example:
    """One runnable unit of a doc: a python block, or one command of a shell block."""

    doc: str  # the document, relative to the repository root
    lang: str  # python | bash | console (console only for a skipped block; else its commands run in bash)
    line: int  # doc line of the command (shell), else of the block's first code line
    code: str
    skip: str | None
    files: tuple[tuple[str, str], ...]

    @property
    def id(self) -> str:
        return f"{self.doc}-{self.lang}-L{self.line}"

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def _commands(lang: str, lines: list[str], first: int) -> list[tuple[int, str]]:
    """The commands of a shell block with their doc lines (``\\`` continues a line)."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = first
    for i, raw in enumerate(lines, first):
        text = raw
        if not pending:
            if lang == "console":
                if not raw.startswith("$ "):
                    continue  # output shown in the block
                text = raw[2:]
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            start = i
        pending.append(text)
        if not text.rstrip().endswith("\\"):
            out.append((start, "\n".join(pending)))
            pending = []
    if pending:
        out.append((start, "\n".join(pending)))
    return out


def parse_readme(text: str, doc: str = "README.md") -> tuple[list[Example], list[str]]:
    """A doc's runnable examples, and what is wrong with its markers (one line each)."""
    examples: list[Example] = []
    problems: list[str] = []
    lines = text.splitlines()
    markers: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line)
        if marker:
            markers.append((i + 1, marker.group(1)))
            i += 1
            continue
        fence = FENCE.match(line)
        if not fence:
            problems += [f"{doc}:{n}: a readme-test marker must be right before a code block" for n, _ in markers]
            markers = []
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
        body, first = lines[i + 1:end], i + 2
        skip: str | None = None
        files: list[tuple[str, str]] = []
        for n, spec in markers:
            if m := SKIP.match(spec):
                skip = m.group(1)
            elif m := FILE.match(spec):
                files.append((m.group(1), m.group(2)))
            else:
                problems.append(f"{doc}:{n}: unknown readme-test marker {spec!r} "
                                "(use 'skip (reason)' or 'file NAME = PATH')")
        markers = []
        lang = RUN_LANGS.get(fence.group(1).lower())
        if lang == "python" or (lang is not None and skip is not None):  # a skipped block is one case
            examples.append(Example(doc, lang, first, "\n".join(body) + "\n", skip, tuple(files)))
        elif lang is not None:
            examples += [Example(doc, "bash", n, cmd, skip, tuple(files)) for n, cmd in _commands(lang, body, first)]
        i = end + 1
    problems += [f"{doc}:{n}: a readme-test marker must be right before a code block" for n, _ in markers]
    return examples, problems


def _parse_all() -> tuple[list[Example], list[str]]:
    """Every doc's examples and marker problems, in DOCS order."""
    examples: list[Example] = []
    problems: list[str] = []
    for path in DOCS:
        found, wrong = parse_readme(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
        examples += found
        problems += wrong
    return examples, problems


EXAMPLES, PROBLEMS = _parse_all()


def test_readme_markers_are_well_formed_and_examples_exist() -> None:
    assert PROBLEMS == []
    assert len(DOCS) > 1, "docs/*.md are read too"
    assert any(e.doc == "README.md" and e.skip is None for e in EXAMPLES), "the README has runnable examples"
    assert {e.lang for e in EXAMPLES if e.skip is None} == {"python", "bash"}
    assert all(e.skip.strip() for e in EXAMPLES if e.skip is not None), "every skip gives its reason"


def _uses_shared(example: Example) -> bool:
    return "../shared" in example.code or any(src.startswith("../shared") for _, src in example.files)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A stand-in for the repository root, so the docs' relative paths work and write nowhere real."""
    root = tmp_path / "main"
    root.mkdir()
    (root / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    (root / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    if SHARED.is_dir():
        (tmp_path / "shared").symlink_to(SHARED, target_is_directory=True)
    return root


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTEST_ADDOPTS", None)
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str], example: Example) -> None:
    try:
        proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{example.where} ran over {HANG_S} s; give it a "
                    "'<!-- readme-test: skip (reason) -->' marker if it is meant to be long")
    where = f"{example.where}: {example.code.strip()[:200]}"
    assert proc.returncode == 0, f"{where}\nexit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "Traceback (most recent call last)" not in proc.stderr, f"{where}\n{proc.stderr[-3000:]}"


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_readme_example_runs(example: Example, workspace: Path, request: pytest.FixtureRequest) -> None:
    if example.skip is not None:
        pytest.skip(f"{example.where}: {example.skip}")
    if _uses_shared(example) and not SHARED.is_dir():
        pytest.skip(f"{example.where} uses ../shared, which is not at {SHARED}")
    for name, src in example.files:
        source = (ROOT / src).resolve()
        assert source.is_file(), f"{example.where}: the marker's file {src} does not exist"
        shutil.copyfile(source, workspace / name)
    env = _env()
    if example.lang == "bash":
        _run(["bash", "-c", f"set -euo pipefail\n{example.code}"], workspace, env, example)
    elif re.search(r"^def test_", example.code, re.MULTILINE):
        if "playwright" in example.code:  # pytest-playwright's page: the Chromium the suite uses
            chromium = request.getfixturevalue("chromium_path")
            if chromium:
                env["SHOPSIM_CHROMIUM"] = chromium
        (workspace / "test_readme_example.py").write_text(example.code, encoding="utf-8")
        _run([sys.executable, "-m", "pytest", *PYTEST_ARGS, "test_readme_example.py"], workspace, env, example)
    else:
        (workspace / "example.py").write_text(example.code, encoding="utf-8")
        _run([sys.executable, "example.py"], workspace, env, example)


def test_markers_and_shell_blocks_are_read_as_documented() -> None:
    text = "\n".join([
        "<!-- readme-test: file a.json = ../shared/x.json -->",
        "```console",
        "$ shopsim run \\",
        "    --goals 0:2",
        "score 1.0",
        "```",
        "<!-- readme-test: skip (slow) -->",
        "```bash",
        "shopsim serve",
        "```",
        "<!-- readme-test: skip (stray) -->",
        "",
        "<!-- readme-test: skipp (typo) -->",
        "```python",
        "print(1)",
        "```",
    ])
    examples, problems = parse_readme(text)
    assert {e.doc for e in examples} == {"README.md"}
    assert [(e.lang, e.line, e.code, e.skip, e.files) for e in examples] == [
        ("bash", 3, "shopsim run \\\n    --goals 0:2", None, (("a.json", "../shared/x.json"),)),
        ("bash", 9, "shopsim serve\n", "slow", ()),
        ("python", 15, "print(1)\n", None, ()),
    ]
    assert problems == ["README.md:11: a readme-test marker must be right before a code block",
                        "README.md:13: unknown readme-test marker 'skipp (typo)' (use 'skip (reason)' or 'file NAME = PATH')"]


def test_examples_and_problems_name_their_doc() -> None:
    examples, problems = parse_readme("```python\nprint(1)\n```\n<!-- readme-test: skip (stray) -->\n", "docs/x.md")
    assert [(e.doc, e.id, e.where) for e in examples] == [("docs/x.md", "docs/x.md-python-L2", "docs/x.md:2")]
    assert problems == ["docs/x.md:4: a readme-test marker must be right before a code block"]
