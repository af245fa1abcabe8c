"""Demo personas and the shared catalog (issue 4).

Hand-written persona content (maya.py, ravi.py, lena.py, catalog.py) -> build.py, a
deterministic generator -> data/*.jsonl (committed) -> loader.seed(store), which `memdesk seed`
runs. check.py verifies the committed data; overlap.py measures how far the evaluation
questions in data/questions.json are from their gold documents' wording.
"""

from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"

QUESTIONS_FILE = DATA_DIR / "questions.json"

__all__ = ["DATA_DIR", "QUESTIONS_FILE"]
