# Every target bootstraps .venv itself; the stamp makes that a no-op when pyproject.toml is unchanged.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TARGETS ?= --target builtin --target bm25 --target random
# Cases run at once by `make mine` (forked workers for the built-in targets): one per core.
JOBS ?= $(shell python3 -c 'import os; print(os.cpu_count() or 1)')

.PHONY: setup test report baseline mine lab bench dist clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,ray]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (workbench)" >/dev/null
	touch $(STAMP)

# Lint and format check, types, then every test (CI runs exactly this), on WORKERS processes
# (pytest-xdist: each test file on one worker, the longest handed out first; auto = one per core plus
# one for the Ray file, which mostly waits: tests/conftest.py).
# Bytecode is cached under .venv (even where PYTHONDONTWRITEBYTECODE is set), so the many
# `python -m workbench` subprocesses the tests start do not compile the package anew each time.
WORKERS ?= auto
test: $(STAMP)
	$(BIN)/ruff check workbench tests bench tools examples
	$(BIN)/ruff format --check workbench tests bench tools examples
	$(BIN)/mypy
	PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache \
	  $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadfile --no-loadscope-reorder

# Thresholds not met (exit 1) still render a report; a bad corpus or engine (exit 2/3/4) stops here.
report: $(STAMP)
	$(BIN)/workbench run $(TARGETS) || test $$? -eq 1
	$(BIN)/workbench report $$(test -f corpus/baselines/builtin.json && echo --baseline builtin)

# Re-record the committed baseline, the corpus floors and EVALS.md's table from a fresh builtin run
# (after an intended change; tests/test_committed_baseline.py says when one is due). Review, commit all three.
baseline: $(STAMP)
	$(BIN)/python tools/rerecord_baseline.py

# Cases mined from this project's own git history (read-only), run with builtin, bm25 and random, reported.
MINED := reports/mine/corpus.json
mine: $(STAMP)
	rm -f $(MINED)
	$(BIN)/workbench mine . --out $(MINED) --max-cases 200
	$(BIN)/workbench validate --corpus $(MINED)
	$(BIN)/workbench run --corpus $(MINED) $(TARGETS) --suite retrieval --jobs $(JOBS) || test $$? -eq 1
	$(BIN)/workbench report

# Extra JupyterLab flags: make lab ARGS="--no-browser --port 8890" (as root, --allow-root is added).
lab: $(STAMP)
	$(BIN)/workbench lab $(ARGS)

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,ray,bench]'
	$(BIN)/python bench/metrics.py --n 100000
	$(BIN)/python bench/stats.py
	$(BIN)/python bench/reference.py
	$(BIN)/python bench/engine_real.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/search_real.py
	$(BIN)/python bench/large_repo.py
	$(BIN)/python bench/bm25_control.py
	$(BIN)/python bench/risk_tokens.py
	$(BIN)/python bench/harness_gate.py
	$(BIN)/python bench/report.py
	$(BIN)/python bench/mining.py
	$(BIN)/python bench/commands.py
	$(BIN)/python bench/calibrate.py
	$(BIN)/python bench/scale.py

# A wheel and an sdist of context-workbench in dist/, built offline with the dev extra's setuptools;
# the wheel carries the report notebooks and schemas (install it anywhere: README, "Use it in your repository").
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist .
	@ls dist

clean:
	rm -rf reports .pytest_cache dist build
