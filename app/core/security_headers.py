"""Headers every response carries: no MIME sniffing, no referrer, no framing, a content
policy, and no caching of API answers (they are per caller, and some carry secrets: an API
key, an invitation code, a hidden entry's key)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

API_POLICY = b"default-src 'none'; frame-ancestors 'none'"
# The interactive docs load Swagger UI and ReDoc from their CDN and run inline scripts.
DOCS_POLICY = (
    b"default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    b"style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    b"font-src https://fonts.gstatic.com; img-src 'self' data: https://fastapi.tiangolo.com "
    b"https://cdn.redoc.ly; worker-src blob:; frame-ancestors 'none'"
)
# The web page (app/web) loads nothing from elsewhere and runs no inline script or style.
WEB_POLICY = (
    b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    b"connect-src 'self'; frame-ancestors 'none'"
)
WEB_PREFIX = "/app"
COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, api_prefix: str) -> None:
        self.app = app
        self.api_prefix = api_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        is_api = path.startswith(self.api_prefix)
        policy = API_POLICY if is_api else WEB_POLICY if _is_web(path) else DOCS_POLICY

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                added = [h for h in COMMON if h[0] not in present]
                if b"content-security-policy" not in present:
                    added.append((b"content-security-policy", policy))
                if is_api and b"cache-control" not in present:
                    added.append((b"cache-control", b"no-store"))
                message["headers"] = headers + added
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _is_web(path: str) -> bool:
    return path == WEB_PREFIX or path.startswith(WEB_PREFIX + "/")
