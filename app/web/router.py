"""Serves the page at /app and its files under /app/static; / leads to the page.

Plain Starlette routes, not API operations: they read no database and are not part of the
OpenAPI document."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.routing import Route

STATIC = Path(__file__).resolve().parent / "static"
PAGE_PATH = "/app"


async def home(request: Request) -> RedirectResponse:
    return RedirectResponse(PAGE_PATH, status_code=307)


async def page(request: Request) -> FileResponse:
    # The page is small and changes with each release: browsers revalidate it every time.
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


def mount(app: FastAPI) -> None:
    """The page's routes and its static files."""
    app.router.routes.append(Route("/", home, methods=["GET", "HEAD"]))
    app.router.routes.append(Route(PAGE_PATH, page, methods=["GET", "HEAD"]))
    app.mount(f"{PAGE_PATH}/static", StaticFiles(directory=STATIC), name="web-static")
