"""A corpus: loading and validating ``corpus.json``, the table of its sections, its fixtures, and
git-backed fixtures with their read-only revision snapshots.

``load_corpus`` returns a ``Corpus`` or raises one ``CorpusError`` line; ``validate_corpus`` lists
every problem. ``materialize(open_repo(path), rev)`` is the read-only tree of a revision. Git is
only ever read.
"""

from __future__ import annotations

from .load import Corpus, case_fixtures, load_corpus, validate_corpus
from .model import DEFAULT_K
from .sections import Section, case_sections, register_section, section_of, sections

__all__ = [
    "DEFAULT_K",
    "Corpus",
    "Section",
    "case_fixtures",
    "case_sections",
    "load_corpus",
    "register_section",
    "section_of",
    "sections",
    "validate_corpus",
]
