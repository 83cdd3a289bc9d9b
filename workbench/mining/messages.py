"""What a commit message says about the commit: the patterns the mining filters read.

Releases and version bumps, reverts, bots, dependency updates, docs/CI/chore work, style-only
changes (formatting, import order, comments, typos), vague subjects, and queries left dangling
(ending in a preposition once a reference is cut, or a subject the author wrapped mid-sentence).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .history import Commit

BOT = re.compile(
    r"\[bot\]|\bbot@|^(?:dependabot|renovate|greenkeeper|snyk|github-actions|pre-commit-ci|"
    r"allcontributors|semantic-release|mergify|imgbot|pyup)",
    re.IGNORECASE,
)
REVERT = re.compile(r"^\s*(?:revert|reverts|reverted|un-?revert)\b", re.IGNORECASE)
VERSION = r"v?\d+(?:\.\d+)+(?:[-.+]?\w+)*"
RELEASE = re.compile(
    r"^\s*(?:release|releasing|prepare(?:d)?\s+(?:for\s+)?(?:the\s+)?release|version\s+bump|new\s+version|"
    r"tag(?:ged)?\s+v?\d|start\s+(?:version\s+)?v?\d|back\s+to\s+dev)\b|"
    r"^\s*(?:chore|build)\(release\)|"
    r"^\s*v?\d+\.\d+(?:\.\d+)?(?:[-.+]?\w+)*\s*$|"
    r"\bbump(?:ed|s)?\s+(?:the\s+)?(?:package\s+)?version\b|\b(?:set|update|change)\s+version\s+(?:to|number)\b|"
    r"\bbump(?:ed|s)?\s+(?:to\s+)?(?:the\s+)?(?:next\s+)?(?:dev|development)(?:\s+version)?\s*$|\b(?:dev|development)\s+version\b|"
    r"\brelease\s+v?\d+\.\d+|^\s*(?:update|bump)\s+(?:to\s+)?v?\d+\.\d+(?:\.\d+)?\s*$|"
    # "This is 3.2-dev", "Bump to 4.2-dev", "Prepare 26.1.0", "Start new release cycle", "4.2.dev0"
    rf"^\s*this\s+is\s+{VERSION}\s*$|^\s*(?:bump|update|go|move|set)\s+(?:the\s+)?(?:version\s+)?to\s+{VERSION}\s*$|"
    r"^\s*prepare\s+(?:for\s+)?v?\d+\.\d+|^\s*start\s+(?:the\s+)?(?:new|next)\s+(?:release\s+|development\s+|dev\s+)?cycle\b|"
    r"\bv?\d+\.\d+(?:\.\d+)*[-.]?dev\d*\b|"
    # "Version 4.1", "v4.1: changelog", "4.1.0 release", "Released 2.0"
    rf"^\s*(?:version|ver\.?|released?)\s*:?\s*{VERSION}\b|^\s*{VERSION}\s+(?:release[sd]?|final|is out)\b",
    re.IGNORECASE,
)
# A query left ending in a preposition, article or conjunction ("Correct fix for" once "#123" is cut).
DANGLING = re.compile(
    r"\b(?:for|of|to|in|on|at|by|with|from|into|onto|about|via|per|than|as|the|a|an|and|or|when|if)\s*$",
    re.IGNORECASE,
)
DEPENDENCY = re.compile(
    r"^\s*(?:\w+)\((?:deps|deps-dev|dependencies|dev-deps)\)|^\s*deps?(?:-dev)?\s*:|"
    r"\bbump\s+\S+\s+from\s+\S+\s+to\s+\S+|"
    r"\b(?:update|upgrade|bump|pin|unpin)\s+(?:\w+\s+)?(?:dependenc\w*|deps|dev-?dependenc\w*|lock\s*files?|"
    r"requirements)\b",
    re.IGNORECASE,
)
CHORE_TYPES = ("docs", "doc", "ci", "style", "test", "tests", "chore", "build")
CHORE = re.compile(
    rf"^\s*(?:{'|'.join(CHORE_TYPES)})(?:\([^)]*\))?!?\s*:|^\s*\[(?:{'|'.join(CHORE_TYPES)})\]|"
    r"\b(?:pre-commit|changelog|readme|copyright)\b",
    re.IGNORECASE,
)
# A change to how code looks or is spelled, not to what it does.
STYLE = re.compile(
    r"\b(?:typos?|misspell\w*|spelling|whitespace|indentation|trailing\s+spaces?|formatting|reformat(?:ted|s)?|"
    r"lint(?:ing|er|s)?|flake8|isort|prettier|gofmt|go\s+fmt|goimports|ruff|mypy|black|eslint|code\s+style)\b|"
    r"^\s*s/[^/\s]+/[^/]*/?\s*$|"  # s/currect/current
    r"\b(?:reorder|re-order|sort|organi[sz]e|group|tidy|clean\s*up|cleanup|remove\s+unused)\s+(?:the\s+)?"
    r"(?:[\w./-]+\s+)?imports?\b|\bimports?\s+(?:order|ordering|sorting|grouping)\b|"
    r"^\s*(?:fix|update|improve|correct|clarify|tweak|reword|add|remove)\s+(?:a\s+|the\s+|some\s+|more\s+)?"
    r"(?:code\s+)?(?:comments?|docstrings?|godoc|jsdoc|doc\s+comments?)\s*$",
    re.IGNORECASE,
)
# The first words of a sentence, left alone at the end of a subject the author wrapped ("... import. This").
SENTENCE_START = frozenset(
    "this that these those it its the a an we i you they he she there when if but and so also now then "
    "previously otherwise currently before after since as because which".split()
)
VAGUE = re.compile(
    r"^(?:wip|minor|small|misc\w*|various|some|more|tiny)?\s*(?:fix(?:es)?|changes?|cleanups?|"
    r"clean\s*up|tweaks?|improvements?|updates?|refactor(?:ing)?|stuff|wip)$",
    re.IGNORECASE,
)


class Guarded:
    """A subject pattern searched only where it may match. Every branch of the pattern needs one of a
    few plain marks (a word, a digit, a ``:``); an ASCII subject whose lower-case form holds none
    of them cannot match, so it is never searched (a non-ASCII one always is: under
    ``re.IGNORECASE``, ``ſ`` matches ``s`` and ``K`` matches ``k``). Most subjects hold none of
    them, and the patterns are much of what filtering a long history costs.
    ``tests/mining/test_queries.py`` checks each guard against its pattern."""

    __slots__ = ("_guard", "pattern")

    def __init__(self, pattern: re.Pattern[str], marks: str) -> None:
        self.pattern = pattern
        self._guard = re.compile(marks)

    def search(self, text: str) -> bool:
        """Whether ``pattern`` is found in ``text``."""
        if text.isascii() and self._guard.search(text.lower()) is None:
            return False
        return self.pattern.search(text) is not None


# The marks each pattern's every branch needs (a branch's word, or a version number's digits around a
# dot; only "tag 2" and "start 3" need a digit alone).
RELEASE_SUBJECT = Guarded(RELEASE, r"releas|version|dev|cycle|tag|start|[0-9]\.[0-9]")
DEPENDENCY_SUBJECT = Guarded(DEPENDENCY, r"dep|bump|lock|requirements")
CHORE_SUBJECT = Guarded(CHORE, r"doc|ci|style|test|chore|build|pre-commit|changelog|readme|copyright")
STYLE_SUBJECT = Guarded(
    STYLE,
    r"typo|misspell|spelling|whitespace|indentation|trailing|formatting|reformat|lint|flake8|isort|prettier|"
    r"fmt|import|ruff|mypy|black|style|/|comment|doc",
)


@lru_cache(maxsize=4096)
def is_bot(ident: str) -> bool:
    """Whether an author name or e-mail address is a bot's (``BOT``), worked out once per identity:
    a history has far fewer authors than commits."""
    return BOT.search(ident) is not None


def dangles(query: str) -> bool:
    """Whether ``query`` ends in one of ``DANGLING``'s words (before trailing punctuation). The
    pattern is anchored at the end and its longest word has five letters, so only the last five
    characters before the trailing spaces are searched (``\\b`` still sees the one before)."""
    text = query.rstrip(" .:;,!?")
    return DANGLING.search(text, max(0, len(text.rstrip()) - 5)) is not None


WRAPPED = 55  # a first line this long may have been wrapped by its author (git wraps near 72)
CONTINUED = re.compile(r"[a-z]+(?=[\s,;]|\.\s|\.?$)")  # a plain lower-case word, not an identifier or path


def cut_off(commit: Commit) -> bool:
    """Whether the subject stops mid-sentence: it ends in a sentence's first word or two after a full
    stop ("Fix bad import. This"), or the author wrapped a long first line: it ends in a comma, or it
    runs to ``WRAPPED`` characters without closing punctuation and the body goes on with a plain
    lower-case word ("... accepts now objects that" / "implement the interface")."""
    subject = commit.subject.rstrip()
    head, stop, last = subject.rpartition(". ")
    if stop and head and not last.endswith((".", "!", "?", ")")):
        words = last.split()
        if len(words) <= 2 and words and words[0].lower() in SENTENCE_START:
            return True
    if subject.endswith(","):
        return True
    if len(subject) < WRAPPED or subject.endswith((".", "!", "?", ":", ")", "]", "`", '"')):
        return False
    return CONTINUED.match(commit.body.lstrip()) is not None
