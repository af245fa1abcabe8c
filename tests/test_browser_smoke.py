"""Smoke test in a real browser: `streamlit run app.py` on localhost, loaded by headless Chromium."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect  # a dependency of streamlit itself

from tests.test_pages import seed

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium")
                                        else None)
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed "
                       "(`apt-get install chromium`; .ci/run installs it)"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"streamlit exited early with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError("streamlit did not become healthy in time")


class Browser:
    """Headless Chromium driven over the DevTools protocol on a loopback port.

    The app renders over a websocket after the page loads, so a one-shot --dump-dom races the
    first script run; here we wait (bounded) until the expected text is on the page."""

    FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
             "--window-size=1400,1200")

    def __init__(self, profile: Path):
        profile.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([CHROMIUM, *self.FLAGS, f"--user-data-dir={profile}",
                                      "about:blank"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        port_file, deadline = profile / "DevToolsActivePort", time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            assert time.monotonic() < deadline and self.proc.poll() is None, "chromium did not start"
            time.sleep(0.2)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        self._conn = connect(page["webSocketDebuggerUrl"], max_size=None)
        self.ws = self._conn.__enter__()
        self.seq = 0

    def call(self, method: str, **params):
        self.seq += 1
        self.ws.send(json.dumps({"id": self.seq, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == self.seq:
                assert "error" not in msg, msg
                return msg["result"]

    def text_when(self, url: str, expect: list[str], seconds: float = 180) -> str:
        self.call("Page.navigate", url=url)
        deadline, text = time.monotonic() + seconds, ""
        while time.monotonic() < deadline:
            text = self.text()
            if all(e in text for e in expect):
                break
            time.sleep(0.5)
        time.sleep(0.5)  # let the last script run finish painting
        return self.text()

    def text(self) -> str:
        # A dataframe paints on a canvas and keeps its cells in an off-screen table, which
        # innerText skips: add the cells, one " | " between each.
        js = ("document.body.innerText + '\\n| ' + [...document.querySelectorAll('td, th')]"
              ".map(c => c.textContent.trim()).join(' | ') + ' |'")
        return self.call("Runtime.evaluate", expression=js,
                         returnByValue=True)["result"].get("value", "")

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot")["data"]))

    def close(self) -> None:
        self._conn.__exit__(None, None, None)
        self.proc.terminate()  # only the browser this test started
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def desk_server(tmp_path):
    db = tmp_path / "desk.db"
    seed(db)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    env.update(MEMDESK_STORE=f"embedded:{db}", MEMDESK_EMBEDDER="hash", MEMDESK_LLM="offline")
    env.pop("ANTHROPIC_API_KEY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url, db
    finally:
        proc.terminate()  # only the server this fixture started
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_desk_renders_in_a_real_browser(desk_server, tmp_path):
    url, db = desk_server
    browser = Browser(tmp_path / "chromium")
    try:
        # A deep link first, on a fresh server: the page must still run inside app.py's shell
        # (a folder named pages/ would otherwise be served as a legacy multipage app).
        facts = browser.text_when(url + "/facts?user=ana", ["Supersession chain", "Operator",
                                                                  "| Lives in Edinburgh |"])
        browser.screenshot(tmp_path / "facts.png")
        text = browser.text_when(url + "/", ["Recent activity", "| bob |"])
        browser.screenshot(tmp_path / "users.png")
    finally:
        browser.close()
    assert "Supersession chain (2 versions)" in facts and "| Lives in Edinburgh |" in facts
    assert "Operator" in facts and "Recall debugger" in facts  # sidebar from app.py
    assert "Traceback" not in facts and (tmp_path / "facts.png").stat().st_size > 10_000
    assert "Memdesk" in text and "Recent activity" in text  # the users page ran to its end
    assert "| ana | 2 |" in text and "| bob | 1 |" in text  # user table rows: user, episodes
    assert f"Store: embedded:{db}" in text and "LLM: offline" in text  # sidebar status
    assert "Traceback" not in text and "Error" not in text
