"""Every desk page in headless Chromium, twice: over the demo store (`memdesk seed`) and over an
empty store (issue 34). Each visit waits for the script run to end, takes a screenshot under
test-artifacts/browser/pages/, and fails on a Python exception shown on the page, an empty main
area (nothing drawn but the title), a console error or a failed request. Two desk processes,
one browser: the suite's time matters (issue 33)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.test_browser_smoke import ARTIFACTS, CHROMIUM, ROOT, Walk, running_desk

playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (dev extra)")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed "
                       "(`apt-get install chromium`; .ci/run installs it)"),
]
SHOTS = ARTIFACTS / "pages"
DEMO_USER = "maya-smart-home"
LOCAL_BANNER = "Local mode — no login"
# (page, path, text that shows its content was drawn): every page of app.py's PAGES.
DEMO = [
    ("users", "/?user={u}", "Recent activity"),
    ("chat", "/chat?user={u}", "Chatting as"),
    ("facts", "/facts?user={u}", "Supersession chain"),
    ("review", "/review?user={u}", "Item 1 of"),
    ("consolidate", "/consolidate?user={u}", "Plan (dry run)"),
    ("recall", "/recall?user={u}&q=home+wifi", "Candidates per leg"),
    ("evals", "/evals?user={u}", "Review decisions as labels"),
    ("tokens", "/tokens?user={u}", "No tokens yet"),
    ("audit", "/audit?user={u}", "By who"),
]
# Over an empty store every page says what to do instead (seed, or chat as someone new).
EMPTY = [
    ("users", "/", "memdesk seed"),
    ("chat", "/chat", "Start a new user"),
    ("facts", "/facts", "memdesk seed"),
    ("review", "/review", "memdesk seed"),
    ("consolidate", "/consolidate", "memdesk seed"),
    ("recall", "/recall", "memdesk seed"),
    ("evals", "/evals", "memdesk seed"),
    ("tokens", "/tokens", "No tokens yet"),
    ("audit", "/audit", "memdesk seed"),
]


def drawn_problems(page, name: str) -> list[str]:
    """What a screenshot must not show: a Python exception box, or a main area with nothing
    but the page's title (and the local-mode banner)."""
    problems = []
    boxes = page.locator("[data-testid='stException']")
    if boxes.count():
        problems.append(f"{name}: exception shown: {boxes.first.inner_text()[:300]}")
    # The main column's block (a chat page scrolls it inside another container than stMain).
    main = page.locator("[data-testid='stMainBlockContainer']")
    text = main.inner_text() if main.count() else ""
    title = main.locator("h1")
    heading = title.first.inner_text() if title.count() else ""
    rest = [line for line in text.splitlines()
            if line.strip() and line.strip() != heading.strip() and LOCAL_BANNER not in line]
    if not rest:
        problems.append(f"{name}: empty main area")
    return problems


@pytest.fixture(scope="module")
def desks(tmp_path_factory):
    """The desk over the demo store and over an empty one, started once for this module."""
    base = tmp_path_factory.mktemp("pages")
    demo = base / "demo.db"
    env = {**os.environ, "MEMDESK_STORE": f"embedded:{demo}", "MEMDESK_EMBEDDER": "hash"}
    subprocess.run([sys.executable, "-m", "memory", "seed", "--if-empty"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    with running_desk(f"embedded:{demo}", base / "demo.log") as demo_url, \
            running_desk(f"embedded:{base / 'empty.db'}", base / "empty.log") as empty_url:
        yield {"demo": (demo_url, base / "demo.log"), "empty": (empty_url, base / "empty.log")}


def visit_all(walk: Walk, url: str, store: str, pages: list, user: str = "") -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, path, expect in pages:
        walk.open(url + path.format(u=user), expect)
        walk.problems += drawn_problems(walk.page, f"{store}/{name}")
        # The screenshot, then: an exception box, payloads, console and HTTP errors.
        walk.check(f"{SHOTS.name}/{store}-{name}")


def test_every_page_over_the_demo_store_and_an_empty_store(desks):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        walk = Walk(pw, "")
        try:
            visit_all(walk, desks["demo"][0], "demo", DEMO, DEMO_USER)
            visit_all(walk, desks["empty"][0], "empty", EMPTY)
        finally:
            walk.close()
    for _url, log in desks.values():
        assert "Traceback" not in log.read_text(errors="replace")


def test_the_screenshot_check_sees_an_exception_and_an_empty_page():
    """The check above can fail: an exception box, and a main area with only its title."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser_smoke import FLAGS

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page()
            page.set_content(f"<div data-testid='stMainBlockContainer'><div>{LOCAL_BANNER}, bound to "
                             "127.0.0.1.</div><h1>Facts</h1></div>")
            assert drawn_problems(page, "p") == ["p: empty main area"]
            page.set_content("<div data-testid='stMainBlockContainer'><h1>Facts</h1><div data-testid="
                             "'stException'>NameError: x</div></div>")
            assert drawn_problems(page, "p") == ["p: exception shown: NameError: x"]
            page.set_content("<div data-testid='stMainBlockContainer'><h1>Facts</h1><p>3 facts</p></div>")
            assert drawn_problems(page, "p") == []
        finally:
            browser.close()
