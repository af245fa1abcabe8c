"""Local HTTP servers speaking the Anthropic Messages API and the OpenAI chat-completions API
(issue 29): scripted responses, recorded requests. The real SDKs reach them over real HTTP
through their base-URL settings; only the paid API is replaced."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A scripted answer: a JSON body (200), (status, body) or (status, body, headers), or a callable
# given the request body that returns one of those.
Answer = Any


class Recorded:
    def __init__(self, method: str, path: str, headers: dict[str, str], body: Any):
        self.method, self.path, self.headers, self.body = method, path, headers, body


class ScriptedServer:
    """POSTs pop the next scripted answer; GETs of the models list (the adapters' check before a
    turn) answer from `models` unless `models_answer` is set. Every request is recorded."""

    def __init__(self, answers: list[Answer] | None = None, *, models: list[str] | None = None):
        self.answers = list(answers or [])
        self.models = models if models is not None else ["claude-test", "local-model"]
        self.models_answer: Answer | None = None
        self.requests: list[Recorded] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _reply(self, answer: Answer, body: Any) -> None:
                if callable(answer):
                    answer = answer(body)
                status, payload, headers = 200, answer, {}
                if isinstance(answer, tuple):
                    status, payload, *rest = answer
                    headers = rest[0] if rest else {}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", f"req_{len(server.requests)}")
                self.send_header("x-request-id", f"req_{len(server.requests)}")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _record(self, body: Any) -> None:
                server.requests.append(Recorded(self.command, self.path,
                                                {k.lower(): v for k, v in self.headers.items()},
                                                body))

            def do_GET(self):  # noqa: N802 - http.server's name
                self._record(None)
                if server.models_answer is not None:
                    return self._reply(server.models_answer, None)
                if self.path.startswith("/v1/models/"):  # Anthropic: one model
                    mid = self.path.rsplit("/", 1)[1]
                    if mid not in server.models:
                        return self._reply((404, {"type": "error", "error": {
                            "type": "not_found_error", "message": f"model: {mid}"}}), None)
                    return self._reply({"type": "model", "id": mid, "display_name": mid,
                                        "created_at": "2025-01-01T00:00:00Z"}, None)
                return self._reply({"object": "list", "data": [
                    {"id": m, "object": "model", "created": 0, "owned_by": "local"}
                    for m in server.models]}, None)

            def do_POST(self):  # noqa: N802
                n = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(n) or b"null")
                self._record(body)
                if not server.answers:
                    return self._reply((500, {"error": {"message": "script exhausted"}}), body)
                self._reply(server.answers.pop(0), body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # shutdown() waits for the serving loop to look up: poll often, not every 0.5 s
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def posts(self) -> list[Any]:
        """The bodies of the model calls, in order."""
        return [r.body for r in self.requests if r.method == "POST"]

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --- Messages API bodies ---------------------------------------------------------------------
def message(content: list[dict], stop: str = "tool_use", usage: tuple[int, int] = (200, 30),
            cache: tuple[int, int] = (0, 0)) -> dict:
    return {"id": "msg", "type": "message", "role": "assistant", "model": "claude-test",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1],
                      "cache_creation_input_tokens": cache[0],
                      "cache_read_input_tokens": cache[1]}}


def tool_use(id_: str, name: str, args: dict) -> dict:
    return {"type": "tool_use", "id": id_, "name": name, "input": args}


def text(t: str, stop: str = "end_turn", cache: tuple[int, int] = (0, 0)) -> dict:
    return message([{"type": "text", "text": t}], stop=stop, usage=(300, 20), cache=cache)


def api_error(status: int, kind: str, msg: str = "", headers: dict | None = None) -> tuple:
    return (status, {"type": "error", "error": {"type": kind, "message": msg or kind}},
            headers or {})


# --- chat-completions bodies -----------------------------------------------------------------
def completion(content: str | None = None, calls: list[tuple[str, str, str]] | None = None,
               finish: str = "stop", usage: tuple[int, int] = (150, 25), cached: int = 0) -> dict:
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        msg["tool_calls"] = [{"id": i, "type": "function",
                              "function": {"name": n, "arguments": a}} for i, n, a in calls]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "local-model",
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                      "total_tokens": sum(usage),
                      "prompt_tokens_details": {"cached_tokens": cached}}}


def oai_error(status: int, msg: str, headers: dict | None = None) -> tuple:
    return (status, {"error": {"message": msg, "type": "invalid_request_error"}}, headers or {})


FAST_RETRY = {"retry-after-ms": "1"}  # the SDK waits what the server asks: keep tests quick

