"""`python -m memory.ui.port PORT`: before `make demo` starts the desk, say what to do when its
port is taken (Streamlit itself only says "Port 8501 is not available") (issue 34)."""

from __future__ import annotations

import socket
import sys


def busy(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something already listens on host:port."""
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def advice(port: int) -> str:
    return (f"Port {port} is already in use (another desk, or another program). Stop it, or "
            f"start the desk on another port: make demo PORT={port + 1} (or `streamlit run "
            f"app.py --server.port {port + 1}`; the default is in .streamlit/config.toml).")


def main(argv: list[str]) -> int:
    try:
        port = int(argv[0]) if argv else 8501
    except ValueError:
        print(f"not a port number: {argv[0]!r}", file=sys.stderr)
        return 2
    if busy(port):
        print(advice(port), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
