"""Browser tests: a real server on a fresh SQLite file, driven by a headless Chromium.

`live_server` (the server's base URL) and `browser` (a Selenium driver, its storage cleared
for each test) are shared with every test under tests/browser. Chromium and its driver are
Debian's `chromium` and `chromium-driver` packages (`make browser` installs them).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from alembic import command
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

from app.core.database import create_db_engine
from tests.browser.table import Table, build_table
from tests.conftest import alembic_config
from tests.db.servers import free_port, start_server, stop, wait_healthy

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SERVER_SETTINGS = {
    "RATE_LIMITS_ENABLED": "false",
    "WEBHOOK_DELIVERY_ENABLED": "false",
    "FEED_HEARTBEAT_SECONDS": "2",
}


def serve(directory: Path) -> tuple[str, object]:
    """A migrated SQLite file in `directory` and a uvicorn process serving it."""
    url = f"sqlite:///{directory / 'nocturne.db'}"
    engine = create_db_engine(url)
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
    engine.dispose()
    port = free_port()
    log = directory / "server.log"
    process = start_server(port, url, log, SERVER_SETTINGS)
    base_url = f"http://127.0.0.1:{port}"
    wait_healthy(base_url, process, log)
    return base_url, process


def chromium(width: int = 1280, height: int = 900, language: str = "en-US") -> WebDriver:
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing and not (shutil.which("chromium") and shutil.which("chromedriver")):
        raise RuntimeError(
            f"the browser tests need Debian's chromium and chromium-driver ({', '.join(missing)} "
            "missing): run `make browser` (as root) or apt-get install -y chromium chromium-driver"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM if CHROMIUM.exists() else shutil.which("chromium"))
    for argument in (
        "--headless=new",
        "--no-sandbox",  # as root in a container
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
        f"--lang={language}",
    ):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver_path = CHROMEDRIVER if CHROMEDRIVER.exists() else Path(str(shutil.which("chromedriver")))
    return webdriver.Chrome(service=Service(executable_path=str(driver_path)), options=options)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base_url, process = serve(tmp_path_factory.mktemp("browser-server"))
    try:
        yield base_url
    finally:
        stop(process)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def table(live_server: str) -> Table:
    """A GM, a player and a campaign per ruleset with their rolls, made once per run."""
    with httpx.Client(base_url=live_server, timeout=30.0) as http:
        return build_table(http)


@pytest.fixture(scope="session")
def chromium_driver() -> Iterator[WebDriver]:
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(chromium_driver: WebDriver, live_server: str) -> Iterator[WebDriver]:
    """The session's Chromium on the page, with no key or language left by another test."""
    chromium_driver.get(f"{live_server}/app")
    chromium_driver.execute_script("sessionStorage.clear(); localStorage.clear();")
    chromium_driver.get_log("browser")  # what earlier tests logged is theirs
    yield chromium_driver
    chromium_driver.execute_script("sessionStorage.clear(); localStorage.clear();")
