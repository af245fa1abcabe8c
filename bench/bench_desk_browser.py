"""Desk pages as a person sees them (issue 34): `streamlit run app.py`, headless Chromium, the
time from navigation to the page's content drawn (its marker visible, the script run over),
each page in a fresh browser context (a new session), same run for every page.

    nice -n 10 .venv/bin/python bench/bench_desk_browser.py                 # demo + 5,000 facts
    nice -n 10 .venv/bin/python bench/bench_desk_browser.py --runs 5 --only big
    .venv/bin/python bench/bench_desk_browser.py --against /tmp/before   # before/after, alternating

Stores: `demo` (the demo personas, `memdesk seed`) and `big` (bench/bench_desk.py's store:
user `big` with 5,000 facts, `queue` with 1,000 pending), built once under --dir. The hash
embedder keeps the build short; page rendering does not embed except where a page searches.
Each visit is a new tab (a new desk session) in one browser context, so the desk's scripts come
from the HTTP cache as they do for a person browsing; --cold uses a fresh context per visit.
Prints per page: p50, min and max milliseconds over --runs, the p50 of the browser's main-thread
long tasks (ms of >50 ms tasks: the page's own drawing work, less sensitive to other processes
than the wall time, though a loaded machine stretches it too), after one warm-up visit each, and
first the floor: a bare Streamlit page (a title and a line) timed the same way, on this machine
at this load, which no desk page can beat; then, per store, that floor again, visited after each
page's visits ("bare page, same rounds"), so it meets the same load as the pages beside it. The
load average is printed before each store.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_browser_smoke import CHROMIUM, FLAGS, free_port, wait_healthy  # noqa: E402

DONE = "!document.querySelector('[data-testid=\"stStatusWidget\"]')"
LONG_TASKS = ("window.__lt = 0; new PerformanceObserver(l => { for (const e of l.getEntries()) "
              "window.__lt += e.duration; }).observe({type: 'longtask', buffered: true});")
# (name, path, selector of the content drawn); {u} is the store's main user.
TABLE = "[data-testid='stMain'] [data-testid='stDataFrame']"
ALERT = "[data-testid='stMain'] [data-testid='stAlert']"
PAGES = [
    ("users", "/?user={u}", "text=Recent activity"),
    ("chat", "/chat?user={u}", "[data-testid='stChatInput']"),
    ("facts", "/facts?user={u}", ".tl"),
    ("facts deep link", "/facts?user={u}&fact={f}", ".tl"),
    ("review", "/review?user={q}", f".rv-card, {ALERT}"),
    ("consolidate", "/consolidate?user={u}", "text=Plan (dry run)"),
    ("recall", "/recall?user={u}&q=home+wifi", f"{TABLE}, .rc-hits, {ALERT}"),
    ("evals", "/evals?user={u}", "text=Review decisions as labels"),
    ("tokens", "/tokens?user={u}", f"{TABLE}, {ALERT}"),
    ("audit", "/audit?user={u}", f".audit-list, {TABLE}, {ALERT}"),
]
BARE = ("import streamlit as st\nst.set_page_config(layout='wide')\nst.title('Bare')\n"
        "st.write('A bare page')\n")


def build_demo(path: Path) -> None:
    if path.exists():
        return
    env = {**os.environ, "MEMDESK_STORE": f"embedded:{path}", "MEMDESK_EMBEDDER": "hash"}
    subprocess.run([sys.executable, "-m", "memory", "seed", "--if-empty"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)


def build_stores(d: Path, only: str | None) -> list[tuple[str, Path, str, str]]:
    """(label, store, user for the pages, user for the review queue) of each store asked for."""
    stores = []
    if only in (None, "demo"):
        build_demo(d / "demo.db")
        stores.append(("demo", d / "demo.db", "maya-smart-home", "maya-smart-home"))
    if only in (None, "big"):
        build_big(d / "big.db")
        stores.append(("5,000 facts / 1,000 pending", d / "big.db", "big", "queue"))
    return stores


def build_big(path: Path) -> None:
    from bench.bench_desk import build

    marker = path.with_suffix(".done")
    if marker.exists():
        return
    path.unlink(missing_ok=True)
    build(path, 5000, 1000, 50, "hash")
    marker.touch()


def some_fact(db: Path, user: str) -> str:
    from memory.embeddings import get_embedder
    from memory.models import FactState
    from memory.stores import open_store

    store = open_store(f"embedded:{db}", get_embedder("hash"))
    try:
        facts = store.list_facts(user, states={FactState.ACTIVE})
        chained = [f for f in facts if f.supersedes] or facts
        return chained[len(chained) // 2].id
    finally:
        store.close()


Times = dict[str, list[tuple[float, float]]]  # page -> (wall ms, long-task ms) per visit
FLOOR = "bare page, same rounds"  # the floor, visited between the desk's pages


def serve(root: Path, script: str, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=root, env={**env, "PYTHONPATH": str(root)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}"


def visit(browser, shared, target: str, marker: str, name: str) -> tuple[float, float] | None:
    """One visit in a new tab (a new desk session); --cold (shared None): a fresh context."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    ctx = shared or browser.new_context(viewport={"width": 1400, "height": 1000})
    if ctx is not shared:
        ctx.add_init_script(LONG_TASKS)
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    t0 = time.perf_counter()
    try:
        page.goto(target)
        page.locator(marker).first.wait_for()
        page.wait_for_function(DONE)
        took = ((time.perf_counter() - t0) * 1000, page.evaluate("window.__lt"))
    except PlaywrightTimeout:  # said, and the visit left out
        print(f"  {name}: not drawn within 120 s ({target})", flush=True)
        took = None
    page.close()
    if ctx is not shared:
        ctx.close()
    return took


def time_pages(db: Path | None, user: str, queue_user: str, runs: int,
               only: list[str] | None = None, cold: bool = False,
               roots: tuple[Path, ...] = (ROOT,), script: str = "app.py",
               floor: str | None = None) -> list[Times]:
    """Times each page of PAGES on a desk started from each checkout in `roots` (this one, and
    --against ones), visit for visit in alternation, so every checkout meets the same machine
    load; with db None, the bare page `script` (the floor). With `floor` (the bare page's
    script), the floor is also visited after each page's visits, so it meets the same load
    (out[0][FLOOR]). One result per root."""
    from playwright.sync_api import sync_playwright

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    env.update(MEMDESK_STORE=f"embedded:{db}", MEMDESK_EMBEDDER="hash", MEMDESK_LLM="offline")
    servers = [serve(root, script, env) for root in roots]
    bare = serve(ROOT, floor, env) if floor and db else None
    fact = some_fact(db, user) if db else ""
    pages = PAGES if db else [("bare Streamlit page", "/", "text=A bare page")]
    out: list[Times] = [{} for _ in roots]
    try:
        for proc, url in [*servers, *([bare] if bare else [])]:
            wait_healthy(url, proc)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            shared = None if cold else browser.new_context(viewport={"width": 1400, "height": 1000})
            if shared:
                shared.add_init_script(LONG_TASKS)
            for n in range(runs + 1):  # the first round warms the servers up, untimed
                for name, path, marker in pages:
                    if only and db and name.split()[0] not in only:
                        continue
                    for i, (_, url) in enumerate(servers):
                        got = visit(browser, shared, url + path.format(u=user, q=queue_user,
                                                                       f=fact), marker, name)
                        if n and got:
                            out[i].setdefault(name, []).append(got)
                    if bare and (got := visit(browser, shared, bare[1] + "/", "text=A bare page",
                                              FLOOR)) and n:
                        out[0].setdefault(FLOOR, []).append(got)
            browser.close()
    finally:
        for proc, _ in [*servers, *([bare] if bare else [])]:
            proc.terminate()  # only the servers this script started
            proc.wait(timeout=30)
    return out


def show(results: list[Times], labels: list[str]) -> None:
    for name in sorted(results[0], key=lambda n: n != FLOOR):  # the floor first
        for label, times in zip(labels, results, strict=True):
            got = times.get(name)
            if not got:
                continue
            ms = [w for w, _ in got]
            busy = statistics.median(b for _, b in got)
            print(f"  {name:<20}{label:>8}  p50 {statistics.median(ms):6.0f}   min "
                  f"{min(ms):6.0f}   max {max(ms):6.0f}   long tasks p50 {busy:5.0f}",
                  flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=str(ROOT / ".memdesk" / "bench-browser"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", choices=["demo", "big"])
    ap.add_argument("--pages", nargs="*", help="page names (users, facts, review, …)")
    ap.add_argument("--against", nargs="*", default=[], type=Path,
                    help="other checkouts (e.g. `git worktree add /tmp/before main`) timed "
                         "visit for visit in alternation with this one")
    ap.add_argument("--cold", action="store_true",
                    help="a fresh browser context per visit (empty HTTP cache); default: one "
                         "context, a new tab (a new session) per visit, as a person browses")
    args = ap.parse_args()
    if CHROMIUM is None or shutil.which("streamlit") is None and not CHROMIUM:
        sys.exit("Chromium is not installed (apt-get install chromium)")
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    stores = build_stores(d, args.only)
    (d / "bare.py").write_text(BARE)
    roots = (ROOT, *(p.resolve() for p in args.against))
    labels = ["this", *(p.name for p in args.against)] if args.against else [""]
    print(f"{os.cpu_count()} cores; ms from navigation to content drawn, {args.runs} runs"
          + (f"; checkouts: {', '.join(f'{lb} = {r}' for lb, r in zip(labels, roots, strict=True))}"
             if args.against else ""))
    print(f"\nfloor (load average {os.getloadavg()[0]:.2f})")
    show(time_pages(None, "", "", args.runs, None, args.cold, roots=(ROOT,),
                    script=str(d / "bare.py")), labels[:1])
    for label, db, user, queue_user in stores:
        load = os.getloadavg()[0]
        times = time_pages(db, user, queue_user, args.runs, args.pages, args.cold, roots=roots,
                           floor=str(d / "bare.py"))
        print(f"\n{label} (user {user}; review as {queue_user}; load average {load:.2f} at "
              f"start, {os.getloadavg()[0]:.2f} at end)", flush=True)
        show(times, labels)


if __name__ == "__main__":
    main()
