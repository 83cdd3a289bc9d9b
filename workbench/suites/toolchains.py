"""Which toolchain a fixture command needs, and whether this machine has it.

A harness case whose expected commands need a program that is not installed (``npm``, ``go``,
``yarn``, a Python test runner) cannot pass on this machine whatever the engine infers, so it is
skipped with that reason instead of failing: the run says what was not measured, and why.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys

from ..errors import SuiteError
from ..sandbox import allowed_argv, safe_env

# The toolchain each program belongs to, for the README's table and the skip reasons.
TOOLCHAINS = {"npm": "Node.js (npm)", "pnpm": "Node.js (pnpm)", "yarn": "Node.js (yarn)", "bun": "Bun", "go": "Go"}


def missing_tool(command: str) -> str | None:
    """Why ``command`` cannot run here (its program or Python module is missing), or None.

    A command the allowlist refuses is not a missing toolchain: it fails as a refused command.
    """
    try:
        argv = allowed_argv(command)
    except SuiteError:
        return None
    if argv[0] == sys.executable and argv[1:2] == ["-m"]:
        module = argv[2]
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed for {sys.executable}"
        return None
    if shutil.which(argv[0], path=safe_env().get("PATH")) is None:
        return f"{argv[0]} not found on PATH" + (f" (needs {TOOLCHAINS[argv[0]]})" if argv[0] in TOOLCHAINS else "")
    return None
