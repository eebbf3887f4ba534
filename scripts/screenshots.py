"""Screenshots of the web page for the README: the timeline (with an entry's detail open) and
the fairness panel after a verification in the browser.

    .venv/bin/python -m scripts.screenshots   # writes docs/screenshots/*.png

It does what the browser tests do (tests/browser/conftest.py): a real server on a fresh
SQLite file, the same table of campaigns, Debian's headless Chromium.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import httpx
from selenium.webdriver.common.by import By

from tests.browser.conftest import chromium, serve
from tests.browser.page import entry, open_campaign, open_tab, sign_in, visible
from tests.browser.table import build_table
from tests.db.servers import stop

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as directory:
        base_url, process = serve(Path(directory))
        driver = None
        try:
            with httpx.Client(base_url=base_url, timeout=30.0) as http:
                table = build_table(http)
            jdr = table.campaigns["jdr-express-dracula"]
            driver = chromium(width=1280, height=1200)
            sign_in(driver, base_url, table.player_key, language="en")
            open_campaign(driver, jdr.name)
            entry(driver, jdr.seqs["action"]).find_element(By.CSS_SELECTOR, "button.open").click()
            visible(driver, "#detail .odds-row.happened")
            # The page scrolled to the log, where the detail sticks to the top of the window.
            driver.execute_script(
                "window.scrollTo(0, document.querySelector('.log-layout').offsetTop - 8)"
            )
            # The detail's hashes, luck and odds in view, beside the timeline's first entries.
            driver.execute_script(
                "const detail = document.getElementById('detail');"
                "const hashes = detail.querySelector('.detail-hashes');"
                "detail.scrollTop += hashes.getBoundingClientRect().top"
                " - detail.getBoundingClientRect().top - 12;"
            )
            driver.save_screenshot(str(OUT / "timeline.png"))

            driver.set_window_size(1280, 1250)
            open_tab(driver, "fairness")
            visible(driver, "#verify").click()
            visible(driver, "#verify-report .verdict")
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(str(OUT / "fairness.png"))
        finally:
            if driver is not None:
                driver.quit()
            stop(process)  # type: ignore[arg-type]
    for name in ("timeline.png", "fairness.png"):
        print(OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
