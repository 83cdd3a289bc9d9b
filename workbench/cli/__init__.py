"""The ``workbench`` command: a thin click layer over the library.

``main.py`` holds the group and adds every command to it; each command module (``evaluate``,
``compare``, ``mining``, ``online``, ``tools``) defines its commands, which parse their options into
the options value of ``workbench/options.py``, call one public function and format its result;
``shared.py`` holds what they share. Exit codes: 0 ok; 1 thresholds not met or a gate/regression
verdict failed; 2 usage error; 3 a WorkbenchError (one line, no traceback); 4 an internal error.
"""

from __future__ import annotations

import sys

from .main import cli, main
from .shared import EXIT_ERROR, EXIT_FAILED, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, split_values

__all__ = [
    "EXIT_ERROR",
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "cli",
    "main",
    "split_values",
]

if __name__ == "__main__":
    sys.exit(main())
