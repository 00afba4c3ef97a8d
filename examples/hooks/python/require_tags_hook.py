#!/usr/bin/env python3
"""An example Typeplane hook in Python, standard library only.

It serves the hook Example::Policy::RequireTags (require-tags.json, next to this file) over the
provider protocol's hook actions (docs/provider-protocol.md, "Hooks"): before a change begins,
Typeplane POSTs a HookRequest as JSON and the hook answers a HookProgressEvent as JSON.

What it checks:
  - PRE_CREATE, PRE_UPDATE: the resource carries the tag its configuration names (Properties.Tag,
    "costCenter" by default) in `Tags`, either CloudFormation's list of {"Key", "Value"} or a map;
  - PRE_DELETE: a resource tagged protected=true may not be deleted.
It answers SUCCESS, or FAILED with errorCode NonCompliant and a message saying what to fix. The
message names tags and the resource's identifier only: never a property's value, so no secret can
leave through it. It is stateless (a hook only judges) and logs no request body.

    python3 require_tags_hook.py --port 9000
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOOK_TYPE_NAME = "Example::Policy::RequireTags"
MAX_REQUEST_BYTES = 10 * 1024 * 1024
ACTIONS = ("PRE_CREATE", "PRE_UPDATE", "PRE_DELETE")
IDLE_SECONDS = 60

Event = dict[str, Any]


def success() -> Event:
    return {"status": "SUCCESS"}


def non_compliant(message: str) -> Event:
    return {"status": "FAILED", "errorCode": "NonCompliant", "message": message}


def tags_of(properties: dict[str, Any]) -> dict[str, str]:
    """The resource's tags as a map, from CloudFormation's list of {Key, Value} or from a map."""
    tags = properties.get("Tags")
    if isinstance(tags, list):
        return {
            str(t["Key"]): str(t.get("Value", ""))
            for t in tags
            if isinstance(t, dict) and isinstance(t.get("Key"), str)
        }
    if isinstance(tags, dict):
        return {str(k): str(v) for k, v in tags.items()}
    return {}


def judge(request: dict[str, Any]) -> Event:
    action = request.get("action")
    if request.get("hookTypeName") != HOOK_TYPE_NAME:
        return {"status": "FAILED", "errorCode": "InvalidRequest", "message": "not a hook served here"}
    data = request.get("requestData") or {}
    target = f"{data.get('targetName')} {data.get('targetLogicalId') or '(new)'}"
    properties = (data.get("targetModel") or {}).get("resourceProperties") or {}
    tags = tags_of(properties)
    if action == "PRE_DELETE":
        if tags.get("protected") == "true":
            return non_compliant(f"{target} is protected: remove its protected tag before deleting it")
        return success()
    required = ((request.get("hookConfiguration") or {}).get("Tag")) or "costCenter"
    if required not in tags:
        return non_compliant(f"{target} lacks the tag {required}: add it to Tags")
    return success()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body leave in separate writes: without this, every answer after the first on a
    # kept-alive connection waits for the client's delayed ACK (about 40 ms).
    disable_nagle_algorithm = True
    timeout = IDLE_SECONDS  # an idle connection is closed after this (announced in Keep-Alive)

    def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            self.answer(413, {"message": "request too large"})
            return
        try:
            request = json.loads(self.rfile.read(length))
        except (ValueError, UnicodeDecodeError):
            self.answer(400, {"message": "the body is not JSON"})
            return
        if not isinstance(request, dict) or request.get("action") not in ACTIONS:
            # Not a hook action: a provider's CREATE, READ … sent here by mistake.
            self.answer(200, {"status": "FAILED", "errorCode": "InvalidRequest", "message": "not a hook action"})
            return
        self.answer(200, judge(request))

    def answer(self, status: int, body: Event) -> None:
        payload = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Keep-Alive", f"timeout={IDLE_SECONDS}")
        self.end_headers()
        self.wfile.write(payload)

    quiet = False

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        # The request line only: bodies may hold write-only values a hook was granted.
        if not self.quiet:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000, help="0 picks a free port")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    options = parser.parse_args()
    Handler.quiet = options.quiet
    server = ThreadingHTTPServer((options.host, options.port), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}/", flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
