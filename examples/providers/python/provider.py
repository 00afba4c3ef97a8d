#!/usr/bin/env python3
"""An example Typeplane provider in Python, standard library only.

It serves the type Example::Python::Note (note.json, next to this file) over the provider protocol
(docs/provider-protocol.md): Typeplane POSTs a HandlerRequest as JSON, the provider answers a
ProgressEvent as JSON. Notes are kept in one JSON file in the folder given with --data-dir.

It keeps the handler contract:
  - CREATE of an existing Title fails with AlreadyExists; READ/UPDATE/DELETE of a missing one with
    NotFound;
  - a repeated clientRequestToken is the same request: answered as the first time was (Typeplane
    re-invokes a handler with the same token after a restart or a lost answer);
  - CREATE takes two steps: it reserves the note and answers IN_PROGRESS with a callbackContext, and
    finishes when invoked again with that context (the shape of any create that has to wait for
    something);
  - READ and LIST answer at once; LIST pages with nextToken;
  - the write-only Secret is stored but never returned (the handler contract: Typeplane keeps the
    desired value itself for later updates and never shows it to users). It is never logged.

    python3 provider.py --data-dir /tmp/notes --port 8080
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import signal
import sys
import tempfile
import threading
import traceback
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TYPE_NAME = "Example::Python::Note"
MAX_REQUEST_BYTES = 10 * 1024 * 1024
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
TOKENS_KEPT = 10_000
IDLE_SECONDS = 60

Event = dict[str, Any]


WRITE_ONLY = ("Secret",)


def shown(model: dict[str, Any]) -> dict[str, Any]:
    """A model as answered: write-only values are kept here but never returned, by any handler."""
    return {k: v for k, v in model.items() if k not in WRITE_ONLY}


def success(model: dict[str, Any] | None = None) -> Event:
    if model is None:
        return {"status": "SUCCESS"}
    return {"status": "SUCCESS", "resourceModel": shown(model)}


def failed(code: str, message: str) -> Event:
    return {"status": "FAILED", "errorCode": code, "message": message}


def in_progress(model: dict[str, Any], context: dict[str, Any], delay: float, message: str) -> Event:
    # Every IN_PROGRESS answer carries the model so far, with its identifier (Title).
    return {
        "status": "IN_PROGRESS",
        "resourceModel": shown(model),
        "callbackContext": context,
        "callbackDelaySeconds": delay,
        "message": message,
    }


class NoteStore:
    """Notes by Title, plus the tokens of finished deletes, in one JSON file; one lock for all."""

    def __init__(self, data_dir: str, callback_delay: float) -> None:
        os.makedirs(data_dir, exist_ok=True)
        self.path = os.path.join(data_dir, "notes.json")
        self.callback_delay = callback_delay
        self.lock = threading.Lock()
        self.notes: dict[str, dict[str, Any]] = {}
        self.deleted: dict[str, str] = {}  # clientRequestToken -> Title, for repeated deletes
        if os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as f:
                saved = json.load(f)
            self.notes = saved.get("notes", {})
            self.deleted = saved.get("deleted", {})

    def save(self) -> None:
        """Write the whole file to a temporary one, then rename: a crash never leaves half a file."""
        while len(self.deleted) > TOKENS_KEPT:
            del self.deleted[next(iter(self.deleted))]
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(self.path), prefix=".notes-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"notes": self.notes, "deleted": self.deleted}, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    # ---- handlers: each takes the request message and answers a ProgressEvent ------------------

    def create(self, req: dict[str, Any]) -> Event:
        props = req["requestData"]["resourceProperties"]
        title = props.get("Title")
        if not isinstance(title, str) or title == "":
            return failed("InvalidRequest", "Title is required")
        token = req["clientRequestToken"]
        context = req.get("callbackContext")
        with self.lock:
            note = self.notes.get(title)
            if context is None:
                # First step: reserve the title.
                if note is not None and note["createdBy"] == token:
                    # Our own earlier work, re-invoked because the answer was lost: answer the same.
                    if note["state"] == "READY":
                        return success(note["model"])
                    return in_progress(note["model"], {"stage": "reserved"}, self.callback_delay, "note reserved")
                if note is not None and note["state"] == "READY":
                    return failed("AlreadyExists", f"note {title!r} already exists")
                # Free, or reserved by a create that never finished: Typeplane runs one operation per
                # resource at a time, so that one is over and its reservation can be taken over.
                model = {
                    "Title": title,
                    "Body": props.get("Body", ""),
                    "CreatedAt": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
                if "Secret" in props:
                    model["Secret"] = props["Secret"]
                self.notes[title] = {"model": model, "state": "CREATING", "createdBy": token}
                self.save()
                return in_progress(model, {"stage": "reserved"}, self.callback_delay, "note reserved")
            # Second step: Typeplane handed our context back.
            if context.get("stage") != "reserved":
                return failed("InvalidRequest", "unknown callbackContext")
            if note is None or note["createdBy"] != token:
                return failed("GeneralServiceException", f"the reservation of note {title!r} was lost")
            if note["state"] != "READY":
                note["state"] = "READY"
                self.save()
            return success(note["model"])

    def read(self, req: dict[str, Any]) -> Event:
        title = req["requestData"]["resourceProperties"].get("Title")
        with self.lock:
            note = self._ready(title)
            return success(note["model"]) if note else failed("NotFound", f"note {title!r} does not exist")

    def update(self, req: dict[str, Any]) -> Event:
        props = req["requestData"]["resourceProperties"]
        title = props.get("Title")
        token = req["clientRequestToken"]
        with self.lock:
            note = self._ready(title)
            if note is None:
                return failed("NotFound", f"note {title!r} does not exist")
            if note.get("updatedBy") == token:
                return success(note["model"])  # a repeat of the update that made this version
            model = {"Title": title, "Body": props.get("Body", ""), "CreatedAt": note["model"]["CreatedAt"]}
            if "Secret" in props:  # absent from the desired state: removed
                model["Secret"] = props["Secret"]
            note["model"] = model
            note["updatedBy"] = token
            self.save()
            return success(model)

    def delete(self, req: dict[str, Any]) -> Event:
        title = req["requestData"]["resourceProperties"].get("Title")
        token = req["clientRequestToken"]
        with self.lock:
            if self._ready(title) is None:
                if self.deleted.get(token) == title:
                    return success()  # a repeat of the delete that removed it
                return failed("NotFound", f"note {title!r} does not exist")
            del self.notes[title]
            self.deleted[token] = title
            self.save()
            return success()  # no resourceModel: the resource is gone

    def list(self, req: dict[str, Any]) -> Event:
        size = min(req.get("maxResults") or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        after = None
        if req.get("nextToken") is not None:
            after = decode_token(req["nextToken"])
            if after is None:
                return failed("InvalidRequest", "nextToken is not one this provider gave out")
        with self.lock:
            titles = sorted(t for t, n in self.notes.items() if n["state"] == "READY")
            if after is not None:
                titles = [t for t in titles if t > after]  # keyset: later pages do not shift
            page = titles[:size]
            more = len(titles) > size
            return {
                "status": "SUCCESS",
                "resourceModels": [shown(self.notes[t]["model"]) for t in page],
                "nextToken": encode_token(page[-1]) if more else None,
            }

    def _ready(self, title: Any) -> dict[str, Any] | None:
        note = self.notes.get(title) if isinstance(title, str) else None
        # A note still being created does not exist yet.
        return note if note is not None and note["state"] == "READY" else None


def encode_token(title: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"after": title}).encode()).decode()


def decode_token(token: Any) -> str | None:
    try:
        value = json.loads(base64.urlsafe_b64decode(str(token).encode()))
    except (binascii.Error, ValueError):
        return None
    after = value.get("after") if isinstance(value, dict) else None
    return after if isinstance(after, str) else None


ACTIONS = ("CREATE", "READ", "UPDATE", "DELETE", "LIST")


def handle(store: NoteStore, req: Any) -> Event:
    """One HandlerRequest to one ProgressEvent."""
    if not isinstance(req, dict) or req.get("action") not in ACTIONS:
        return failed("InvalidRequest", "not a HandlerRequest")
    if req.get("typeName") != TYPE_NAME:
        return failed("InvalidRequest", f"this provider serves {TYPE_NAME}, not {req.get('typeName')}")
    data = req.get("requestData")
    if not isinstance(data, dict) or not isinstance(data.get("resourceProperties"), dict):
        return failed("InvalidRequest", "requestData.resourceProperties must be an object")
    return getattr(store, req["action"].lower())(req)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: Typeplane reuses connections
    disable_nagle_algorithm = True  # headers and body go out as separate writes: do not delay the second
    timeout = IDLE_SECONDS  # an idle connection is closed after this (announced in Keep-Alive)
    server_version = "example-python-provider"
    store: NoteStore
    quiet = False

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            self.close_connection = True
            return self.reply(413, {"message": "request too large"})
        try:
            req = json.loads(self.rfile.read(length))
        except ValueError:
            return self.reply(400, {"message": "the body is not JSON"})
        try:
            event = handle(self.store, req)
        except Exception as e:  # noqa: BLE001 - any bug becomes a FAILED event, with the trace in the log
            traceback.print_exc(file=sys.stderr)
            event = failed("InternalFailure", f"the provider failed: {type(e).__name__}")
        self.reply(200, event)

    def do_GET(self) -> None:
        # Not part of the protocol: a health check for people and process managers.
        self.reply(200, {"status": "ok", "typeName": TYPE_NAME})

    def reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Keep-Alive", f"timeout={IDLE_SECONDS}")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        # Request lines only (method, path, status): bodies carry write-only values.
        if not self.quiet:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")


def stop(*_: Any) -> None:
    """SIGTERM stops the server the way Ctrl-C does; every change is already on disk."""
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=f"Example Typeplane provider serving {TYPE_NAME}.")
    parser.add_argument("--data-dir", required=True, help="folder for notes.json (created if missing)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on; 0 picks a free one")
    parser.add_argument(
        "--callback-delay",
        type=float,
        default=1.0,
        help="seconds Typeplane waits between the two steps of a create (default 1)",
    )
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args()

    Handler.store = NoteStore(args.data_dir, args.callback_delay)
    Handler.quiet = args.quiet
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    signal.signal(signal.SIGTERM, stop)
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
