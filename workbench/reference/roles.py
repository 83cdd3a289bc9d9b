"""What a task says about the kind of file it wants, and the words that only frame a question.

Role words (``controller``, ``handler``, ``service``, ``template``, ``component``, ...)
name the kind of file an agent would open, not a term it contains: they weigh little
as terms and lift files of that kind instead. In a question, its scaffolding (``where is
... implemented``, ``how is ... computed``) carries no topic and weighs little.
"""

from __future__ import annotations

import re

# A role word -> the file kinds (see ``kinds.RULES``) it asks for.
ROLES: dict[str, frozenset[str]] = {}
for _kinds, _words in (
    ("controller route", "controller controllers handler handlers handled endpoint endpoints"),
    ("route", "route routes router routing"),
    ("service", "service services"),
    ("template", "template templates view views markup partial partials layout"),
    ("component", "component components screen screens page pages widget widgets"),
    ("api client", "client clients"),
    ("schema", "model models schema schemas entity entities dto"),
    ("test", "test tests spec specs"),
    ("migration", "migration migrations"),
    ("config", "config configuration"),
):
    for _word in _words.split():
        ROLES[_word] = frozenset(_kinds.split())
SCAFFOLDING = frozenset(
    """
implemented implement implements implementation located location defined definition declared
computed compute computes calculated calculate calculates determined determine decided decide
happen happens happening live lives living code logic file files function functions method methods
responsible responsibility place places part parts work works working somewhere piece part
show tell explain understand know
""".split()
)
ROLE_WEIGHT = 0.5  # a role word still matches as a term, at half weight
SCAFFOLD_WEIGHT = 0.2
_QUESTION = re.compile(
    r"^\s*(?:where|how|which|what|who|why|when|is there|are there|can you|could you|show me|"
    r"find)\b|\?\s*$",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """Whether a task is phrased as a question (``where is the refund computed?``): only
    then do words like ``implemented`` or ``computed`` frame it rather than name a topic."""
    return _QUESTION.search(text) is not None


def word_weight(word: str, question: bool) -> float:
    """The weight of one plain (lower-case) task word as a retrieval term."""
    if question and word in SCAFFOLDING:
        return SCAFFOLD_WEIGHT
    return ROLE_WEIGHT if word in ROLES else 1.0


def wanted_kinds(words: list[str]) -> frozenset[str]:
    """The file kinds the role words of a task ask for."""
    return frozenset(kind for w in words for kind in ROLES.get(w, ()))
