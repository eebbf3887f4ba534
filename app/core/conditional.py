"""Cheap polling (issue 20): every JSON answer to a GET under the API carries an ETag, and
a request whose If-None-Match names it is answered 304 with no body. The tag is the
digest of the body the caller would get, so it differs between callers who see
different things; a route that knows its version sets its own ETag (an encounter's)."""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

JSON = b"application/json"


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    return next((value for key, value in headers if key.lower() == name), None)


def matches(if_none_match: bytes, etag: bytes) -> bool:
    """If-None-Match: `*`, or one of the listed tags (weak or strong) is the ETag."""
    wanted = etag.removeprefix(b"W/")
    tags = [tag.strip().removeprefix(b"W/") for tag in if_none_match.split(b",")]
    return any(tag in (b"*", wanted) for tag in tags)


class ConditionalGetMiddleware:
    def __init__(self, app: ASGIApp, api_prefix: str) -> None:
        self.app = app
        self.api_prefix = api_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] not in ("GET", "HEAD")
            or not scope["path"].startswith(self.api_prefix)
        ):
            await self.app(scope, receive, send)
            return
        asked = _header(list(scope.get("headers", [])), b"if-none-match")
        start: Message | None = None
        chunks: list[bytes] = []

        async def buffered(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                content_type = _header(headers, b"content-type") or b""
                if message["status"] != 200 or not content_type.startswith(JSON):
                    start = None  # a stream, an error: passed through as it is
                    await send(message)
                    return
                start = message
                return
            if start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            await finish(b"".join(chunks))

        async def finish(body: bytes) -> None:
            assert start is not None
            headers = [
                (k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"
            ]
            etag = _header(headers, b"etag")
            if etag is None:
                etag = b'"' + hashlib.sha256(body).hexdigest()[:32].encode() + b'"'
                headers.append((b"etag", etag))
            if asked is not None and matches(asked, etag):
                kept = [(k, v) for k, v in headers if k.lower() != b"content-type"]
                await send({"type": "http.response.start", "status": 304, "headers": kept})
                await send({"type": "http.response.body", "body": b""})
                return
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, buffered)


NOT_MODIFIED = {
    "description": "Not Modified: the `If-None-Match` ETag names this representation still; no body"
}
ETAG_HEADER = {
    "description": "the representation's validator: send it back as `If-None-Match`",
    "schema": {"type": "string"},
}
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "an ETag this caller got before: 304 with no body while it still matches",
    "schema": {"type": "string", "maxLength": 1000},
}


def document_conditional_gets(schema: dict[str, Any], api_prefix: str) -> None:
    """Every GET under the API that answers JSON takes If-None-Match and may answer 304
    (this middleware's doing, so FastAPI cannot see it)."""
    for path, operations in schema.get("paths", {}).items():
        get = operations.get("get")
        if not path.startswith(api_prefix) or get is None:
            continue
        ok = get.get("responses", {}).get("200", {})
        if "application/json" not in ok.get("content", {}):
            continue
        ok.setdefault("headers", {}).setdefault("ETag", ETAG_HEADER)
        get["responses"].setdefault("304", NOT_MODIFIED)
        parameters = get.setdefault("parameters", [])
        if not any(p.get("name", "").lower() == "if-none-match" for p in parameters):
            parameters.append(IF_NONE_MATCH)
