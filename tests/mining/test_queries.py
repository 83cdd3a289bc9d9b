"""The cleaning of a subject skips its prefix and reference patterns when the subject carries none
of the marks every one of them needs (``queries._marked``): checked here pattern by pattern, on
subjects built from the pieces those patterns look for. The dangling-query filter searches only a
query's end, and finds what a search of the whole query finds."""

from __future__ import annotations

import random

from workbench.mining import queries

PATTERNS = [
    queries._GITMOJI,
    queries._TAG,
    queries._CONVENTIONAL,
    queries._LEADING_REF,
    queries._CLOSES,
    queries._REFS,
    queries._EMPTY_BRACKETS,
]
PIECES = [
    "fix", "Fixes", "feat", "docs", "closes", "see", "refs", "PR", "pr", "pull request", "issue", "GH", "gh", "Gh",
    "-", "#", "12", "7", ":", "(", ")", "[", "]", "http", "HTTPS", "s://x.org/a/pull/3", "/issues/4", "bug", ",",
    ".", " ", "\t", "and", "ſ", "K", "İ", "ǅ", "(PR 5)", "( pr#6 )", "[#8]", "cf. #9",
]  # fmt: skip


def test_no_cleaning_pattern_matches_a_subject_without_their_marks() -> None:
    rng = random.Random(11)
    plain = 0
    for _ in range(20_000):
        subject = "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 9)))
        if queries._marked(subject):
            assert any(mark in subject.lower() for mark in (":", "#", "[", "(", "gh-", "http"))
            continue
        plain += 1
        assert [p.pattern for p in PATTERNS if p.search(subject)] == [], subject
    assert plain > 2_000  # the check ran on many unmarked subjects, near misses included


def test_each_cut_of_tidy_is_skipped_only_where_its_pattern_cannot_match() -> None:
    rng = random.Random(12)
    skipped = {"closes": 0, "refs": 0, "brackets": 0}
    for _ in range(20_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 9)))
        lowered = text.lower()
        if not queries._may_close(text, lowered):
            skipped["closes"] += 1
            assert queries._CLOSES.search(text) is None, text
        if not queries._may_refer(text, lowered):
            skipped["refs"] += 1
            assert queries._REFS.search(text) is None, text
        if "(" not in text and "[" not in text:
            skipped["brackets"] += 1
            assert queries._EMPTY_BRACKETS.search(text) is None, text
    assert min(skipped.values()) > 2_000  # every guard skipped many texts, near misses included


def test_marked_subjects_are_cleaned_and_plain_ones_only_spaced() -> None:
    assert queries.clean_subject("fix(core): Handle  empty input (#12).") == "Handle empty input"
    assert queries.clean_subject("GH-4: handle empty input") == "handle empty input"
    assert queries.clean_subject("  Handle \t empty input , please.") == "Handle empty input, please"


def test_the_dangling_check_searches_only_the_end_and_finds_what_a_full_search_finds() -> None:
    from workbench.mining.messages import DANGLING, dangles

    rng = random.Random(2)
    pieces = ["for", "of", "into", "About", "x", "foo", "#12", " ", "\t", ".", "!", "İf", "_", "9", "\u3000", "-"]
    found = 0
    for _ in range(20_000):
        query = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 7)))
        full = DANGLING.search(query.rstrip(" .:;,!?")) is not None
        assert dangles(query) == full, query
        found += full
    assert 2_000 < found < 18_000


GUARD_PIECES = [
    "release", "Releasing", "prepare", "for", "the", "version", "bump", "Bumped", "new", "tag", "start", "back",
    "to", "dev", "development", "chore", "build", "(", ")", "v", "1", ".2", "3", "-rc", "this is", "update", "go",
    "set", "cycle", "next", "final", "is out", "ver.", "deps", "deps-dev", "dependencies", "from", "upgrade", "pin",
    "lock files", "requirements", "docs", "ci", "style", "tests", ":", "!", "[", "]", "pre-commit", "changelog",
    "README", "copyright", "typos", "misspelled", "spelling", "whitespace", "indentation", "trailing spaces",
    "formatting", "reformatted", "linting", "eslint", "flake8", "isort", "prettier", "gofmt", "go fmt", "goimports",
    "ruff", "mypy", "black", "code", "s/", "/", "reorder", "sort", "organize", "tidy", "clean up", "remove unused",
    "imports", "order", "fix", "comments", "docstring", "godoc", "jsdoc", "doc", "x", " ", "  ", "\t", "_", "ſ", "K",
    "İ", "ǅ", "\u3000",
]  # fmt: skip


def test_a_guarded_subject_pattern_is_skipped_only_where_it_cannot_match() -> None:
    from workbench.mining import messages

    guarded = [messages.RELEASE_SUBJECT, messages.DEPENDENCY_SUBJECT, messages.CHORE_SUBJECT, messages.STYLE_SUBJECT]
    rng = random.Random(5)
    skipped = matched = 0
    for _ in range(20_000):
        subject = "".join(rng.choice(GUARD_PIECES) for _ in range(rng.randrange(1, 7)))
        for each in guarded:
            found = each.pattern.search(subject) is not None
            assert each.search(subject) == found, (each.pattern.pattern[:40], subject)
            skipped += subject.isascii() and each._guard.search(subject.lower()) is None
            matched += found
    assert skipped > 20_000 and matched > 1_500  # both sides of every guard were exercised
