"""Long tasks (issue 39): the title frames them, counted-BM25 legs and tested code join the file ranking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.contract import Repo
from workbench.reference import prose
from workbench.reference.index import load_index
from workbench.reference.pack import rank_files
from workbench.reference.query import analyse, is_long, title
from workbench.reference.search import search
from workbench.reference.text import terms

FILLER = "the change keeps behaviour the same for every other caller and adds a note to the changelog".split()


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "prose-cache"))


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A package whose big central module mentions everything once, a small module about retries,
    and a test of the small one that talks about retries at length."""
    central = "\n".join(f"def handle_{i}(request, response, header, timeout):\n    return {i}\n" for i in range(60))
    return _write(
        tmp_path / "pkg",
        {
            "pkg/core.py": "from pkg import retry\n\n" + central,
            "pkg/retry.py": "def backoff(attempt):\n    '''Delay before a retry.'''\n    return 2 ** attempt\n",
            "pkg/other.py": "from pkg import core\n\ndef render(page):\n    return page\n",
            "tests/test_retry.py": "from pkg.retry import backoff\n\n"
            + "\n".join(f"def test_retry_backoff_{i}():\n    assert backoff({i}) >= 1  # retry\n" for i in range(8)),
        },
    )


def test_long_means_more_than_the_threshold_and_the_title_is_its_first_line() -> None:
    short = "fix tests for the retry backoff"
    long = "Retry with exponential backoff\n\n" + " ".join(FILLER * 2) + " and add tests"
    assert not is_long(short) and title(short) == short
    assert is_long(long) and title(long) == "Retry with exponential backoff"
    assert "test" in analyse(short).intents
    assert "test" not in analyse(long).intents  # a body listing "add tests" does not lift the tests
    short_with_body = "Fix tab issue\n\nAdd a test for it."
    assert title(short_with_body) == "Fix tab issue" and "test" not in analyse(short_with_body).intents


def test_term_counts_count_repeats_and_skip_unknown_words() -> None:
    counts = prose.term_counts("retry the retry; Retry once, never panic", {"retry": 0, "once": 1})
    assert counts == {"retry": 3, "once": 1}


def test_best_per_file_sums_the_best_three_chunks_of_each_file() -> None:
    scores = np.array([1.0, 5.0, 2.0, 3.0, 4.0, 0.5], dtype=np.float32)
    owner = np.array([0, 0, 0, 0, 1, 2])
    assert prose.best_per_file(scores, owner, 4).tolist() == [10.0, 4.0, 0.5, 0.0]


def test_a_test_file_credits_the_code_it_is_named_after(repo: Path) -> None:
    index = load_index(repo)
    pairs = {(index.files[t], index.files[c]) for t, c in prose.tested_code(index)}
    assert pairs == {("tests/test_retry.py", "pkg/retry.py")}


def test_blended_stays_on_the_engine_scale_and_lifts_the_dense_file(repo: Path) -> None:
    index = load_index(repo)
    engine = np.array([2.0 if path == "pkg/core.py" else 0.5 for path in index.files], dtype=np.float32)
    factors = np.ones(len(index.files), dtype=np.float32)
    task = "Retry backoff is too short\n\n" + " ".join(FILLER) + " retry retry backoff retry"
    mixed = prose.blended(index, analyse(task), engine, factors)
    assert 0 < mixed.max() <= 2.0 + 1e-6  # on the engine's scale: a file best in all three would keep 2.0
    retry = index.files.index("pkg/retry.py")
    assert mixed[retry] > engine[retry]


def test_a_long_task_ranks_the_code_its_text_keeps_returning_to(repo: Path) -> None:
    task = (
        "Retry backoff grows too fast\n\n"
        + " ".join(FILLER)
        + " The retry delay doubles with every retry attempt; the backoff should cap the retry delay, "
        "and the request handler must see the timeout header of the response."
    )
    files = [path for _, path in rank_files(task, [Repo("pkg", repo)], 5)]
    assert files[0] == "pkg/retry.py"
    assert search(task, repo, 3)[0].symbol == "backoff"


def test_posting_scores_equal_the_rankers_own_bm25(repo: Path) -> None:
    index = load_index(repo)
    ids = [index.ranker.vocab[t] for t in terms("retry backoff")]
    weights = np.array([2.0, 1.0], dtype=np.float32)
    expected, _, _ = index.ranker.score(ids, weights)
    assert np.allclose(prose.posting_scores(index.ranker, ids, weights), expected, atol=1e-5)


def test_the_legs_are_kept_per_task_and_kind_factors(repo: Path) -> None:
    index = load_index(repo)
    q = analyse("retry backoff")
    ones = np.ones(len(index.files), dtype=np.float32)
    first = prose.prose_legs(index, q, ones)
    assert prose.prose_legs(index, q, ones) is first  # the pack and its symbol search share them
    other = prose.prose_legs(index, q, ones * 0.5)
    assert other is not first  # other factors (a demotion changed) are other legs


def test_a_file_matching_outside_its_definitions_keeps_its_whole_text_in_the_chunk_leg(tmp_path: Path) -> None:
    """A module docstring lies in no definition's chunk; the file's whole-text leg stands in."""
    root = _write(
        tmp_path / "pkg",
        {
            "pkg/pump.py": '"""Retry failed uploads with exponential backoff."""\n\ndef run(job):\n    return job\n',
            "pkg/misc.py": "def noop():\n    return None\n",
        },
    )
    index = load_index(root)
    _, chunks, files = prose.prose_legs(index, analyse("retry uploads"), np.ones(len(index.files), dtype=np.float32))
    pump = index.files.index("pkg/pump.py")
    assert chunks[pump] == files[pump] == 1.0


@pytest.mark.parametrize(
    ("fixture", "task", "first"),
    [
        ("py-billing", "POST /invoices/<id>/pay marks an invoice paid twice", "billing/api/routes.py"),
        ("i18n-storefront", "fix the German translation of the place order button", "src/locales/de.json"),
    ],
)
def test_a_short_tasks_own_evidence_counts_after_the_blend(fixture: str, task: str, first: str) -> None:
    """The textbook legs join every task's ranking; a short task's evidence (a route, a named
    language) counts in full after the blend, so a file that only says the words more often
    does not pass the one the task points at."""
    root = Path(__file__).resolve().parents[2] / "fixtures" / fixture
    assert [path for _, path in rank_files(task, [Repo(fixture, root)], 3)][0] == first
