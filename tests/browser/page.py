"""What a person does on the page, as the browser tests and the screenshot script do it:
explicit waits on what the page shows, never sleeps."""

from __future__ import annotations

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as seen
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT_SECONDS = 20


def wait(driver: WebDriver, seconds: float = WAIT_SECONDS) -> WebDriverWait[WebDriver]:
    # The page re-renders a list when it changes: an element found on one poll can be
    # replaced before its text is read. The next poll finds the new one.
    return WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException,))


def visible(driver: WebDriver, css: str) -> WebElement:
    element: WebElement = wait(driver).until(
        seen.visibility_of_element_located((By.CSS_SELECTOR, css))
    )
    return element


def sign_in(driver: WebDriver, base_url: str, api_key: str, language: str | None = None) -> None:
    driver.get(f"{base_url}/app")
    if language is not None:
        Select(visible(driver, "#language")).select_by_value(language)
    visible(driver, "#api-key").send_keys(api_key)
    driver.find_element(By.CSS_SELECTOR, "#signin-form button[type=submit]").click()
    visible(driver, "#campaign-list li")


def open_campaign(driver: WebDriver, name: str) -> None:
    wait(driver).until(seen.element_to_be_clickable((By.LINK_TEXT, name))).click()
    wait(driver).until(lambda d: d.find_element(By.ID, "campaign-name").text == name)
    visible(driver, "#timeline li.entry")


def entry(driver: WebDriver, seq: int) -> WebElement:
    return visible(driver, f'#timeline li.entry[data-seq="{seq}"]')


def timeline_seqs(driver: WebDriver) -> list[int]:
    return [
        int(item.get_attribute("data-seq") or 0)
        for item in driver.find_elements(By.CSS_SELECTOR, "#timeline li.entry")
    ]


def open_tab(driver: WebDriver, tab: str) -> WebElement:
    driver.find_element(By.CSS_SELECTOR, f'.tabs [data-tab="{tab}"]').click()
    return visible(driver, f"#tab-{tab}")


def severe_console_errors(driver: WebDriver) -> list[str]:
    """What the page logged as errors (a script that failed, a policy that refused)."""
    return [str(line["message"]) for line in driver.get_log("browser") if line["level"] == "SEVERE"]
