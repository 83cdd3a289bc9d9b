"""Regenerate (or check) the sample outputs shown in README.md from the code.

Each sample in README.md sits between two markers naming the command that prints it::

    <!-- sample: workbench pack "refund a payment" --repo fixtures/shop-api -->
    ```
    ...the command's standard output...
    ```
    <!-- /sample -->

``python tools/readme_samples.py`` runs every command (``workbench ...`` as ``python -m workbench``
from the repository root; a ``run`` writes its run directory to a temp dir shown as
``reports/runs``) and rewrites the blocks; ``--check`` rewrites nothing and exits 1 naming each
block whose shown output no longer matches. What differs from run to run is normalized before
comparing: run-id timestamps, the temp dir, the sandbox kind and engine latency. tests/test_readme_samples.py runs
the check.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SAMPLE = re.compile(r"<!-- sample: (?P<command>.+?) -->\n```\n(?P<body>.*?)```\n<!-- /sample -->", re.DOTALL)
RUNS_SHOWN = "reports/runs"
_STAMP = re.compile(r"\b\d{8}T\d{6}Z\b")
_SANDBOX = re.compile(r"^sandbox: .*$", re.MULTILINE)
_LATENCY = re.compile(r"latency: [0-9.e+-]+ s/case")

Runner = Callable[[str], str]


@dataclass(frozen=True)
class Sample:
    """One marked block of README.md: the command, the output shown, where the output sits."""

    command: str
    body: str
    start: int  # offset of the body in the README text
    end: int


def find_samples(text: str) -> list[Sample]:
    """Every marked sample block of ``text``, in order."""
    return [Sample(m["command"], m["body"], m.start("body"), m.end("body")) for m in SAMPLE.finditer(text)]


def normalize(output: str) -> str:
    """``output`` without what changes from run to run: timestamps, the sandbox kind, engine
    latency, trailing spaces."""
    text = _LATENCY.sub("latency: <s> s/case", _STAMP.sub("YYYYMMDDTHHMMSSZ", output))
    text = _SANDBOX.sub("sandbox: <kind>", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"


def run_command(command: str) -> str:
    """The standard output of ``command`` (``workbench ...``) run from the repository root."""
    args = shlex.split(command)
    if not args or args[0] != "workbench":
        raise SystemExit(f"README sample {command!r}: only `workbench ...` commands are run")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    with tempfile.TemporaryDirectory(prefix="readme-sample-") as temp:
        extra = ["--out", temp] if args[1:2] == ["run"] and "--out" not in args else []
        done = subprocess.run(
            [sys.executable, "-m", "workbench", *args[1:], *extra],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        if done.returncode not in (0, 1):
            raise SystemExit(f"README sample {command!r} exited {done.returncode}: {done.stderr.strip()[-500:]}")
        return done.stdout.replace(temp, RUNS_SHOWN)


def stale(text: str, runner: Runner = run_command) -> list[str]:
    """The commands of the samples in ``text`` whose shown output differs from what they print now."""
    return [s.command for s in find_samples(text) if normalize(s.body) != normalize(runner(s.command))]


def regenerate(text: str, runner: Runner = run_command) -> str:
    """``text`` with every sample block replaced by what its command prints now."""
    pieces, at = [], 0
    for sample in find_samples(text):
        pieces += [text[at : sample.start], runner(sample.command).rstrip("\n") + "\n"]
        at = sample.end
    return "".join(pieces) + text[at:]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = README.read_text(encoding="utf-8")
    if not find_samples(text):
        print(f"{README}: no sample blocks", file=sys.stderr)
        return 1
    if "--check" in args:
        drifted = stale(text)
        for command in drifted:
            print(f"README.md: the sample of `{command}` no longer matches its output", file=sys.stderr)
        return 1 if drifted else 0
    new = regenerate(text)
    if new != text:
        README.write_text(new, encoding="utf-8")
    print(f"README.md: {len(find_samples(text))} sample(s) regenerated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
