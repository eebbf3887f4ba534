"""Serves the page at /app and its files under /app/static; / leads to the page."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parent / "static"
PAGE_PATH = "/app"

router = APIRouter(include_in_schema=False)


@router.api_route("/", methods=["GET", "HEAD"])
def home() -> RedirectResponse:
    return RedirectResponse(PAGE_PATH, status_code=307)


@router.api_route(PAGE_PATH, methods=["GET", "HEAD"])
def page() -> FileResponse:
    # The page is small and changes with each release: browsers revalidate it every time.
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


def mount(app: FastAPI) -> None:
    """The page's routes and its static files."""
    app.include_router(router)
    app.mount(f"{PAGE_PATH}/static", StaticFiles(directory=STATIC), name="web-static")
