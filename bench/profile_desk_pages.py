"""Where a desk page's time goes as the browser sees it (issue 34): for each page of
bench_desk_browser.PAGES, one desk per checkout, headless Chromium, a new tab per visit, and per
visit the moments (ms from navigation) of: the websocket's first message from the server (the
script started), the page's title drawn (its first own element), the content marker drawn, the
server's last message (the script ended) and the status widget gone (done); with the number of
messages and their bytes, the elements drawn (main area and sidebar, by kind), and the
main-thread long tasks.

    nice -n 10 .venv/bin/python bench/profile_desk_pages.py --only demo --pages recall facts
    .venv/bin/python bench/profile_desk_pages.py --only big --runs 3

Prints medians over --runs after one warm-up visit. The script's own time is "last msg" minus
"first msg" (less the time the browser took to answer widget registrations, which is nil here);
what follows it is the browser drawing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_desk_browser import (  # noqa: E402
    DONE,
    LONG_TASKS,
    PAGES,
    build_stores,
    some_fact,
)
from tests.test_browser_smoke import CHROMIUM, FLAGS, free_port, wait_healthy  # noqa: E402

# The page's title (every desk page starts with one): its first own element drawn; Streamlit's
# placeholder skeletons before it do not count.
FIRST_DRAWN = ("window.__first = null; new MutationObserver((_, o) => { if (document.querySelector("
               "\"[data-testid='stMain'] [data-testid='stHeading']\")) "
               "{ window.__first = performance.now(); o.disconnect(); } })"
               ".observe(document, {subtree: true, childList: true});")
WS_TIMES = ("window.__ws = []; const _WS = window.WebSocket; window.WebSocket = function(...a) {"
            " const s = new _WS(...a); s.addEventListener('message', e => window.__ws.push("
            "[performance.now(), e.data.byteLength || e.data.size || 0])); return s; };"
            " window.WebSocket.prototype = _WS.prototype; Object.assign(window.WebSocket, _WS);")
KINDS = """() => { const c = {}; for (const where of ['stMain', 'stSidebar']) {
  for (const e of document.querySelectorAll(`[data-testid='${where}'] `
      + "[data-testid='stElementContainer']")) {
    const inner = e.querySelector('[data-testid]');
    const k = where.slice(2) + ':' + (inner ? inner.dataset.testid : '?');
    c[k] = (c[k] || 0) + 1; } } return c; }"""


def profile(db: Path, user: str, queue_user: str, runs: int, pages: list[str] | None,
            root: Path) -> None:
    from playwright.sync_api import sync_playwright

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    env.update(MEMDESK_STORE=f"embedded:{db}", MEMDESK_EMBEDDER="hash", MEMDESK_LLM="offline",
               PYTHONPATH=str(root))
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    fact = some_fact(db, user)
    try:
        wait_healthy(url, proc)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            ctx.add_init_script(LONG_TASKS + FIRST_DRAWN + WS_TIMES)
            for name, path, marker in PAGES:
                if pages and name.split()[0] not in pages:
                    continue
                rows: list[dict] = []
                kinds: Counter = Counter()
                for n in range(runs + 1):
                    page = ctx.new_page()
                    page.set_default_timeout(120_000)
                    t0 = time.perf_counter()
                    page.goto(url + path.format(u=user, q=queue_user, f=fact))
                    page.locator(marker).first.wait_for()
                    t_marker = time.perf_counter()
                    page.wait_for_function(DONE)
                    t_done = time.perf_counter()
                    if n:
                        # In the page's clock (ms since navigation), but for the marker and
                        # done, seen from here (Playwright's own delay included).
                        frames = page.evaluate("window.__ws")
                        first = page.evaluate("window.__first")
                        rows.append({
                            "first msg": frames[0][0] if frames else 0,
                            "title drawn": first if first is not None else float("nan"),
                            "last msg": frames[-1][0] if frames else 0,
                            "marker": (t_marker - t0) * 1000,
                            "done": (t_done - t0) * 1000,
                            "msgs": len(frames), "kB": sum(b for _, b in frames) / 1000,
                            "long tasks": page.evaluate("window.__lt")})
                        kinds = Counter(page.evaluate(KINDS))
                    page.close()
                med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
                print(f"  {name:<16}" + "  ".join(
                    f"{k} {v:6.0f}" if k not in ("kB",) else f"{k} {v:5.1f}"
                    for k, v in med.items()), flush=True)
                print("  " + " " * 16 + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
                      flush=True)
            browser.close()
    finally:
        proc.terminate()  # only the server this script started
        proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=str(ROOT / ".memdesk" / "bench-browser"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=["demo", "big"])
    ap.add_argument("--pages", nargs="*")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose desk is profiled")
    args = ap.parse_args()
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    stores = build_stores(d, args.only)
    for label, db, user, queue_user in stores:
        print(f"\n{label} ({args.root}; load average {os.getloadavg()[0]:.2f}); ms from "
              "navigation, medians", flush=True)
        profile(db, user, queue_user, args.runs, args.pages, args.root.resolve())


if __name__ == "__main__":
    main()
