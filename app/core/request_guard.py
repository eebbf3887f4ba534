"""Refuse, before any handler runs, what no handler should see: a body past the size limit
(413, counted while it is read), JSON nested past the depth limit, and NUL characters in
JSON strings, the query string or the path (PostgreSQL text and JSONB cannot store them)."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.problems import problem_response

VALIDATION = "urn:nocturne:problem:validation-error"


def _contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains_nul(item) for item in value)
    return False


def json_depth_exceeds(body: bytes, limit: int) -> bool:
    """Whether JSON text nests arrays and objects deeper than `limit`, read as bytes before
    any parser recurses into it (brackets inside strings do not count)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False  # too few brackets to nest that deep: no scan
    depth = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return False


class RequestGuardMiddleware:
    """The guard in front of the API: limits are settings (MAX_BODY_BYTES, MAX_JSON_DEPTH)."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, max_json_depth: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_json_depth = max_json_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query: bytes = scope.get("query_string", b"")
        if b"%00" in query or b"\x00" in query:
            await self._refuse(
                scope,
                receive,
                send,
                422,
                "query parameters must not contain the NUL character (%00)",
            )
            return
        if "\x00" in scope.get("path", ""):  # decoded: %00 in the URL (an invitation code)
            detail = "the path must not contain the NUL character (%00)"
            await self._refuse(scope, receive, send, 422, detail)
            return
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                # The client went away: hand the disconnect through.
                await self.app(scope, _replay([message]), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await self._too_large(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if json_depth_exceeds(body, self.max_json_depth):
            detail = f"JSON nested deeper than {self.max_json_depth} arrays and objects"
            await self._refuse(scope, receive, send, 422, detail)
            return
        # A NUL can only appear in JSON as the escape \u0000; parse only when one might.
        if b"\\u0000" in body:
            try:
                has_nul = _contains_nul(json.loads(body))
            except ValueError:
                has_nul = False  # malformed JSON: the framework reports it
            if has_nul:
                detail = "text fields must not contain the NUL character (\\u0000)"
                await self._refuse(scope, receive, send, 422, detail)
                return
        await self.app(scope, _replay([{"type": "http.request", "body": body}]), send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = f"the request body is larger than {self.max_body_bytes} bytes"
        response = problem_response(
            413, "Content Too Large", detail, headers={"Connection": "close"}
        )
        await response(scope, receive, send)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, detail: str
    ) -> None:
        response: Response = problem_response(
            status, "Unprocessable Content", detail, type_=VALIDATION
        )
        await response(scope, receive, send)


def _replay(messages: list[Message]) -> Receive:
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        return {"type": "http.disconnect"}

    return receive
