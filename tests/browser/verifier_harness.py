"""What the browser verifier's tests need: app/web/static served over HTTP (ES modules do not
load from file://) and a headless Chromium to run app/web/static/verify.js in.

Debian's `chromium` and `chromium-driver` packages provide the browser and its driver
(`apt-get install -y chromium chromium-driver`).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

STATIC = Path(__file__).resolve().parents[2] / "app" / "web" / "static"
CHROMIUM = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
# The origin's one page: empty, so nothing but the module under test runs in it.
BLANK_PAGE = b"<!doctype html><meta charset=utf-8><title>verify.js</title>"


class StaticFiles(SimpleHTTPRequestHandler):
    """app/web/static, with `/` as a blank page; JavaScript served as a module may be."""

    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
    }

    def do_GET(self) -> None:
        if self.path != "/":
            super().do_GET()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(BLANK_PAGE)))
        self.end_headers()
        self.wfile.write(BLANK_PAGE)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def static_server() -> Iterator[str]:
    """The base URL of app/web/static on a free port of 127.0.0.1 (a secure context, so
    WebCrypto is there)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(StaticFiles, directory=str(STATIC)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture(scope="session")
def chromium() -> Iterator[WebDriver]:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.fail(f"{path} is missing: apt-get install -y chromium chromium-driver")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_script_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


class Verifier:
    """Runs JavaScript against verify.js's exports in the browser."""

    def __init__(self, driver: WebDriver) -> None:
        self.driver = driver

    def run(self, body: str, *args: Any) -> Any:
        """Await `body`, an async function body that sees the module as `v` and the JSON
        arguments as `args`, and return what it returns (JSON); a JavaScript error raises."""
        script = (
            "const done = arguments[arguments.length - 1];"
            "const args = Array.from(arguments).slice(0, -1);"
            'import("/verify.js")'
            f".then(async (v) => {{ {body} }})"
            ".then((value) => done({ value: value === undefined ? null : value }),"
            " (error) => done({ error: String((error && error.stack) || error) }));"
        )
        outcome = self.driver.execute_async_script(script, *args)
        if "error" in outcome:
            raise JavaScriptError(outcome["error"])
        return outcome["value"]

    def verify(self, ndjson: str, **options: Any) -> dict[str, Any]:
        """verifyExport's report on an export's text, with the given options."""
        return dict(self.run("return await v.verifyExport(args[0], args[1]);", ndjson, options))


class JavaScriptError(AssertionError):
    pass


@pytest.fixture(scope="session")
def verifier(chromium: WebDriver, static_server: str) -> Verifier:
    chromium.get(f"{static_server}/")
    return Verifier(chromium)


def ndjson(entries: list[dict[str, Any]]) -> str:
    """An export's text, as GET .../log/export writes it."""
    return "".join(
        json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n" for entry in entries
    )
