"""The desk's HTTP front (memory/desk_http.py, issue 34): every HTML page Streamlit's server
returns names the server's base URL before Streamlit's own script, so the browser connects
without probing `/<page>/_stcore/health`; everything else passes through unchanged. Driven
through Streamlit's real static handler (the one that serves the desk's pages); the browser
side is tests/test_browser_smoke.py, which fails on any such probe."""

from pathlib import Path

import pytest
import streamlit
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount
from starlette.testclient import TestClient
from streamlit.web.server.starlette.starlette_static_routes import (
    create_streamlit_static_handler,
)

from memory.desk_http import BackendBase, base_script, inject

STATIC = Path(streamlit.__file__).parent / "static"
HTML = {"accept": "text/html,application/xhtml+xml", "accept-encoding": "gzip, br"}


@pytest.fixture
def client():
    # Mounted at the root as Streamlit mounts it, the desk's middleware outside it as st.App puts
    # user middleware.
    return TestClient(Starlette(
        routes=[Mount("/", app=create_streamlit_static_handler(str(STATIC), None))],
        middleware=[Middleware(BackendBase)]))


def test_a_page_names_the_base_before_streamlits_script(client):
    for path in ("/", "/facts", "/review?user=queue"):
        got = client.get(path, headers=HTML)
        assert got.status_code == 200
        page = got.content
        assert int(got.headers["content-length"]) == len(page)
        tag = base_script("")
        assert page.count(tag) == 1
        assert page.index(tag) < page.index(b'<script type="module"')
        assert page.replace(tag, b"") == (STATIC / "index.html").read_bytes()


def test_what_is_not_a_page_passes_unchanged(client):
    assert client.get("/facts/_stcore/health", headers=HTML).status_code == 404
    icon = client.get("/favicon.png", headers=HTML)
    assert icon.status_code == 200 and icon.content == (STATIC / "favicon.png").read_bytes()
    # A fetch that does not ask for HTML (the page script's own requests) is left alone.
    plain = client.get("/facts", headers={"accept": "*/*"})
    assert base_script("") not in plain.content


def test_the_base_follows_base_url_path_and_stays_text():
    assert b'location.origin + "/"' in base_script("")
    assert b'location.origin + "/desk/"' in base_script("/desk/")
    assert b'location.origin + "/a/b/"' in base_script("a//b")
    hostile = base_script('x"</script><script>alert(1)</script>')
    assert hostile.count(b"</script>") == 1  # the configured path is a JSON string, not markup
    assert inject(b"<html>no script</html>", b"<t>") == b"<html>no script</html>"


def test_the_desk_watches_no_source_files():
    """Issue 34: Streamlit's reload-on-edit starts a watcher per desk file for every new browser
    session, on the server's event loop, and each page's last messages waited behind it; the
    desk's server config turns it off (a developer passes --server.fileWatcherType auto)."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    cfg = tomllib.loads((root / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["fileWatcherType"] == "none"
