"""A small corpus for executor, repeat and cache tests: twelve retrieval cases over one fixture,
each query ending with the file it names (what the engines in tests/engines/flaky_engine.py
answer), so the builtin engine and the test engines both have real work to do."""

from __future__ import annotations

from pathlib import Path

from .conftest import write_corpus, write_tree

FILES = {
    f"src/{name}.ts": f"// {name}\nexport function {name}Handler() {{ return '{name}'; }}\n"
    for name in ("orders", "users", "billing", "refunds", "search", "login", "cart", "invoice")
}


def scale_corpus(root: Path, cases: int = 12, floor: float = 0.5, extra: list[dict] | None = None) -> Path:
    """Write the fixture and corpus under ``root``; returns the corpus path."""
    write_tree(root / "fixtures" / "app", FILES)
    names = sorted(FILES)
    paths = [names[i % len(names)] for i in range(cases)]
    retrieval = [
        {
            "name": f"case-{i:02d}",
            "query": f"{Path(path).stem} handler {i} {path}",
            "repoFixture": "app",
            "expectedPrimary": [path],
        }
        for i, path in enumerate(paths)
    ]
    return write_corpus(
        root,
        {
            "k": 5,
            "thresholds": {"retrieval": {"precisionAtK": floor, "recallAtK": floor}},
            "fixtureRoots": {"app": "fixtures/app"},
            "retrieval": retrieval + (extra or []),
        },
    )
