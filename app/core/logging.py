"""Structured request logs: one JSON line per request, never a header or a body (no secrets)."""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger("nocturne.request")
REQUEST_ID_HEADER = b"x-request-id"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {"level": record.levelname, "logger": record.name}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            payload.update(fields)
        else:
            payload["message"] = record.getMessage()
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        # orjson: a line for every request (issue 23); a value JSON lacks is written as text.
        try:
            return orjson.dumps(payload, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:  # what orjson refuses (a lone surrogate, an integer past 64 bits)
            return json.dumps(payload, ensure_ascii=False, default=str)


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger("nocturne")
    root.handlers = [handler]
    root.setLevel(level.upper())
    root.propagate = False


def _valid_request_id(raw: bytes) -> str | None:
    text = raw.decode("latin-1")
    if 0 < len(text) <= 64 and all(c.isalnum() or c in "-_." for c in text):
        return text
    return None


class RequestLogMiddleware:
    """Logs method, path, status, duration and request id; echoes X-Request-ID."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope.get("headers") or []).get(REQUEST_ID_HEADER, b"")
        request_id = _valid_request_id(incoming) or uuid.uuid4().hex
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((REQUEST_ID_HEADER, request_id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            logger.info(
                "request",
                extra={
                    "fields": {
                        "event": "request",
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": status,
                        "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                        "request_id": request_id,
                    }
                },
            )
