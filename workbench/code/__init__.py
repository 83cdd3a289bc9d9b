"""How workbench reads source code: file kinds, outlines, symbols, definition ranges, walking a
tree, worker processes.

The reference engine, the controls, mining and the suites all read code through this package, so
they agree on what a file is and where a definition starts and ends. It imports nothing of workbench
above the base modules; tree-sitter is imported inside the functions that parse.
"""

from __future__ import annotations

from .collector import collector_paused
from .enclosing import definition_ranges, enclosing, python_ranges
from .forking import fork_is_safe, workers
from .kinds import CODE_EXTENSIONS, LIFTED_BY, TEMPLATE_EXTENSIONS, extension, file_kind, is_code
from .outline import MAJOR_KINDS, Import, Outline
from .pysymbols import outline_from_tree, python_outline
from .tsranges import Range, tree_ranges
from .tssymbols import GRAMMARS, outline_from_root, toolkit, tree_outline
from .walk import SKIP_DIRS, list_directories, list_files, list_files_cached, read_head, read_text

__all__ = [
    "CODE_EXTENSIONS",
    "GRAMMARS",
    "LIFTED_BY",
    "MAJOR_KINDS",
    "SKIP_DIRS",
    "TEMPLATE_EXTENSIONS",
    "Import",
    "Outline",
    "Range",
    "collector_paused",
    "definition_ranges",
    "enclosing",
    "extension",
    "file_kind",
    "fork_is_safe",
    "is_code",
    "list_directories",
    "list_files",
    "list_files_cached",
    "outline_from_root",
    "outline_from_tree",
    "python_outline",
    "python_ranges",
    "read_head",
    "read_text",
    "toolkit",
    "tree_outline",
    "tree_ranges",
    "workers",
]
