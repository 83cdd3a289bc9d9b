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
    mixed = prose.blended(index, task, engine, factors)
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
