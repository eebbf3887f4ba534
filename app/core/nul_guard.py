"""Refuse JSON bodies carrying NUL characters: PostgreSQL text and JSONB cannot store them."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.problems import problem_response


def _contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains_nul(item) for item in value)
    return False


class RejectNulMiddleware:
    """A 422 for any request body whose JSON strings hold U+0000, before a handler runs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                # The client went away: hand the disconnect through.
                await self.app(scope, _replay([message]), send)
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        # A NUL can only appear in JSON as the escape \u0000; parse only when one might.
        if b"\\u0000" in body:
            try:
                has_nul = _contains_nul(json.loads(body))
            except ValueError:
                has_nul = False  # malformed JSON: the framework reports it
            if has_nul:
                response = problem_response(
                    422,
                    "Unprocessable Content",
                    "text fields must not contain the NUL character (\\u0000)",
                    type_="urn:nocturne:problem:validation-error",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, _replay([{"type": "http.request", "body": body}]), send)


def _replay(messages: list[Message]) -> Receive:
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        return {"type": "http.disconnect"}

    return receive
