"""A local OpenAI-compatible server for the tests, run in a subprocess
(``python -m tests.support.fake_openai``; it prints its port on the first line).

``POST /v1/chat/completions`` answers from the prompt's own content, so a test decides what
the "model" says by what it puts in the documents:

- ``ANSWER=<text>`` in the first user message: the reply is ``{"grade": <text>}`` (a number,
  or a label name when not numeric); without it, ``{"grade": 1}``; ``ANSWER=3|1|1``: the
  n-th request with this prompt gets the n-th choice (cycling), for several samples;
- ``MODE=429:<n>`` / ``MODE=500:<n>``: the first n requests with this prompt get that status
  (429 with ``Retry-After: 0``); ``MODE=400``: always 400;
- ``MODE=slow:<seconds>``: sleeps first; ``MODE=malformed``: always an unreadable reply;
  ``MODE=malformed:<n>``: the first n requests are unreadable;
- a reminder after an unreadable answer (a conversation of 4 messages) is answered from the
  first user message.

With ``--key K`` a request without ``Authorization: Bearer K`` gets 401. ``GET /log``
returns every request seen: ``[{"t": monotonic seconds, "status": code, "prompt": hash}]``;
``POST /reset`` forgets the log and the per-prompt counters. ``POST /delay`` with
``{"seconds": s}`` makes every completion sleep s first, until set again (``MODE=slow`` is in
the prompt, so it is part of what a cache keeps; this is not, and a test can end it midway).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SEEN: dict[str, int] = {}
LOG: list[dict] = []
KEY: str | None = None
DELAY = 0.0


def _user_text(messages: list[dict]) -> str:
    users = [m.get("content", "") for m in messages if m.get("role") == "user"]
    return users[0] if users else ""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, body: dict, headers: dict | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/log":
            with LOCK:
                self._send(200, {"log": list(LOG)})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path == "/delay":
            global DELAY
            DELAY = float(json.loads(body)["seconds"])
            self._send(200, {})
            return
        if self.path == "/reset":
            with LOCK:
                SEEN.clear()
                LOG.clear()
            self._send(200, {})
            return
        if self.path != "/v1/chat/completions":
            self._send(404, {"error": {"message": "not found"}})
            return
        self._complete(json.loads(body))

    def _complete(self, request: dict) -> None:
        time.sleep(DELAY)
        messages = request.get("messages", [])
        text = _user_text(messages)
        digest = hashlib.sha256(json.dumps(messages).encode()).hexdigest()[:16]
        first = hashlib.sha256(text.encode()).hexdigest()[:16]
        with LOCK:
            SEEN[first] = SEEN.get(first, 0) + 1
            count = SEEN[first]
        status, headers, reply = self._decide(text, count)
        with LOCK:
            LOG.append({"t": time.monotonic(), "status": status, "prompt": digest,
                        "first": first, "model": request.get("model")})  # fmt: skip
        if status != 200:
            self._send(status, {"error": {"message": f"fake error {status}"}}, headers)
            return
        self._send(200, {
            "id": f"chatcmpl-{digest}", "object": "chat.completion", "created": 0,
            "model": request.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": len(text.split()), "completion_tokens": len(reply.split()),
                      "total_tokens": len(text.split()) + len(reply.split())},
        })  # fmt: skip

    def _decide(self, text: str, count: int) -> tuple[int, dict, str]:
        if KEY is not None and self.headers.get("Authorization") != f"Bearer {KEY}":
            return 401, {}, ""
        for mode in re.findall(r"MODE=(\w+)(?::([\d.]+))?", text):
            name, arg = mode
            if name in ("429", "500") and count <= int(arg or 1):
                return int(name), {"Retry-After": "0"} if name == "429" else {}, ""
            if name == "400":
                return 400, {}, ""
            if name == "slow":
                time.sleep(float(arg))
            if name == "malformed" and (not arg or count <= int(arg)):
                return 200, {}, "I think it is quite relevant, maybe a 2 or a 3."
        answer = re.search(r"ANSWER=(\S+)", text)
        choices = (answer.group(1) if answer else "1").split("|")
        value = choices[(count - 1) % len(choices)]
        try:
            grade = json.dumps(float(value) if "." in value else int(value))
        except ValueError:
            grade = json.dumps(value)
        return 200, {}, '{"M": 2, "T": 1, "grade": ' + grade + "}"


def main() -> None:
    global KEY
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key")
    args = parser.parse_args()
    KEY = args.key
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
