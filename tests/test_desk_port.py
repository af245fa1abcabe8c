"""`make demo` on a busy port says what to do instead of Streamlit's bare refusal (issue 34)."""

from __future__ import annotations

import socket

from memory.ui.port import advice, busy, main


def test_a_busy_port_is_answered_with_what_to_do(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert busy(port)
        assert main([str(port)]) == 1
        said = capsys.readouterr().err
        assert said == advice(port) + "\n" and f"make demo PORT={port + 1}" in said
    assert not busy(port) and main([str(port)]) == 0
    assert main(["eighty"]) == 2
