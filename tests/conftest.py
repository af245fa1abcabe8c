"""Shared fixtures: real stores on throwaway storage; only the paid LLM is ever replaced."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import pytest

from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.service import MemoryService
from memory.stores import open_store

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def pytest_addoption(parser):
    parser.addoption("--live-llm", action="store_true",
                     help="run tests/live against the configured model endpoint (costs money "
                          "on a paid API; `make test-llm`)")


@pytest.fixture(autouse=True)
def _offline_model(monkeypatch):
    """Only the paid model is ever replaced: no test may reach the Anthropic API, even on a
    machine whose environment holds a key (model tests reach a local server speaking its API, tests/llm_server.py)."""
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MEMDESK_LLM", "offline")


# Issue 33: the Elasticsearch variant of every backend-parametrised test (and tests/es/test_live.py)
# is collected only when MEMDESK_ES_URL names a cluster (`make test-es`); without one the run says
# so once at the end instead of reporting hundreds of skips.
ES_SKIP_REASON = ("live Elasticsearch variant: MEMDESK_ES_URL is not set (start a cluster with "
                  "`docker compose up -d elasticsearch`, README: Running Elasticsearch; then "
                  "`make test-es`)")


def pytest_sessionstart(session):
    """Invariant 29 for the test run: with MEMDESK_ES_URL set to a cluster nobody answers at,
    the run stops at once with one line naming the URL (credentials redacted) and how to start
    a cluster, exit code 6 like the CLI, instead of a connection traceback in every ES test."""
    url = os.environ.get("MEMDESK_ES_URL")
    if not url:
        return
    import socket
    from urllib.parse import urlsplit

    from memory.stores.elasticsearch.store import redact

    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 9200)
        if parts.scheme not in ("http", "https") or not host:
            raise ValueError("expected http(s)://HOST[:PORT]")
        socket.create_connection((host, port), timeout=5).close()
    except (OSError, ValueError) as exc:
        pytest.exit(f"MEMDESK_ES_URL={redact(url)}: cannot reach Elasticsearch ({exc}); start one "
                    "with `docker compose up -d elasticsearch` (README: Running Elasticsearch) "
                    "or unset MEMDESK_ES_URL to skip the live variants", returncode=6)


def pytest_terminal_summary(terminalreporter):
    if not os.environ.get("MEMDESK_ES_URL"):
        terminalreporter.write_line("live Elasticsearch variants not collected: MEMDESK_ES_URL "
                                    "is not set (README: Running Elasticsearch; `make test-es`)")


def pytest_ignore_collect(collection_path, config):
    """tests/es/test_live.py is nothing but live-cluster tests: not collected without one."""
    if collection_path.name == "test_live.py" and collection_path.parent.name == "es":
        return not os.environ.get("MEMDESK_ES_URL") or None
    return None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects and xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """A test on the real MiniLM is `slow` (the inner loop leaves it out), however it reaches
    the model. Under xdist's `--dist loadgroup` the browser suites share one worker: each starts
    a Streamlit server and Chromium, and two at once on two cores starve each other."""
    for item in items:
        if "minilm" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("browser") and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group("browser"))


def _backends() -> list:
    """Every store a backend-parametrised test runs on: embedded always, Elasticsearch only
    with a cluster to run on (see above)."""
    return ["embedded", "elasticsearch"] if os.environ.get("MEMDESK_ES_URL") else ["embedded"]


@pytest.fixture(scope="session")
def hash_embedder():
    """Deterministic hashing embedder: fast unit tests only (chosen explicitly)."""
    return get_embedder("hash")


@pytest.fixture(scope="session")
def minilm():
    """The real default embedder (numpy MiniLM from the shipped weights)."""
    return get_embedder("minilm")


def make_store(backend: str, tmp_path, embedder, request=None):
    if backend == "embedded":
        return open_store(f"embedded:{tmp_path / 'store.db'}", embedder)
    if not os.environ.get("MEMDESK_ES_URL"):
        pytest.skip(ES_SKIP_REASON)
    from memory.stores.elasticsearch import ElasticsearchStore

    prefix = f"memdesk-test-{os.getpid()}-{abs(hash(str(tmp_path))) % 10**8}"
    store = ElasticsearchStore(os.environ["MEMDESK_ES_URL"], embedder, prefix=prefix)
    if request is not None:
        request.addfinalizer(store.drop_indices)
    return store


@pytest.fixture(params=_backends())
def store(request, tmp_path, hash_embedder):
    """A real store of each available backend (embedded always; ES when MEMDESK_ES_URL is set)."""
    s = make_store(request.param, tmp_path, hash_embedder, request)
    yield s
    s.close()


def advancing_clock(start: datetime):
    """(now, advance): a service clock that stands still until a test moves it
    (`advance(minutes=5)`), for orderings that depend on record time."""
    state = {"now": start}

    def now() -> datetime:
        return state["now"]

    def advance(**kw) -> None:
        state["now"] = state["now"] + timedelta(**kw)
    return now, advance


@pytest.fixture
def embedded_store(tmp_path, hash_embedder):
    """One embedded store on the hashing embedder, for tests of what only it does."""
    s = open_store(f"embedded:{tmp_path / 'embedded.db'}", hash_embedder)
    yield s
    s.close()


@pytest.fixture
def service(store):
    return MemoryService(store, clock=fixed_clock(NOW))


@pytest.fixture(params=_backends())
def minilm_service(request, tmp_path, minilm):
    s = make_store(request.param, tmp_path, minilm, request)
    yield MemoryService(s, clock=fixed_clock(NOW))
    s.close()
