"""The web page as a GM and players read it at the table (the play-test of issue 22): no
stray "null", a dropped die struck in the sentence, the odds of generic dice, the French page
without the English it had, a tab bar and detail that fit a phone, and a Fabulae initiative
read as its cards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from tests.browser.page import (
    entry,
    open_campaign,
    open_tab,
    severe_console_errors,
    sign_in,
    visible,
    wait,
)
from tests.browser.table import FABULAE_SHEET, Api, Table
from tests.browser.test_page import DRACULA, api_get

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}


@contextmanager
def phone(driver: WebDriver) -> Iterator[None]:
    """A 390-px phone screen (headless Chromium keeps a window at least 500 px wide)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_generic_dice_strike_the_dropped_die_and_show_their_odds_without_null(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    jdr = table.campaigns[DRACULA]
    seq = jdr.seqs["dice"]  # 4d6dl1: the API's sentence marks the dropped die ~~n~~
    logged = api_get(live_server, table.player_key, f"/campaigns/{jdr.id}/rolls/{seq}")
    assert "~~" in logged["summary"]
    dropped = next(r["face"] for r in logged["result"]["groups"][0]["rolls"] if r.get("dropped"))
    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, jdr.name)
    summary = entry(browser, seq).find_element(By.CSS_SELECTOR, ".summary")
    assert "~~" not in summary.text
    assert [s.text for s in summary.find_elements(By.CSS_SELECTOR, "s")] == [str(dropped)]
    assert summary.text == logged["summary"].replace("~~", "")

    entry(browser, seq).find_element(By.CSS_SELECTOR, "button.open").click()
    detail = visible(browser, "#detail")
    # The odds of generic dice are the distribution of totals: this roll's total is marked.
    happened = visible(browser, "#detail .odds-row.happened")
    assert happened.find_element(By.CSS_SELECTOR, ".odds-code").text == str(
        logged["result"]["total"]
    )
    lines = [line.strip() for line in detail.text.splitlines()]
    assert "null" not in lines and "~~" not in detail.text
    assert severe_console_errors(browser) == []


def test_the_french_page_names_kinds_and_charts_without_english(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    jdr = table.campaigns[DRACULA]
    system = api_get(live_server, table.player_key, f"/systems/{DRACULA}")
    english = {kind["title"] for kind in system["kinds"]}
    sign_in(browser, live_server, table.player_key, language="fr")
    open_campaign(browser, jdr.name)
    kinds = Select(browser.find_element(By.ID, "filter-kind")).options
    labels = [option.text for option in kinds[1:]]
    assert labels and not english.intersection(labels)
    assert "client seed set" not in labels and "Graine client fixée" in labels
    assert "Dés génériques" in labels
    open_tab(browser, "stats")
    visible(browser, "#tab-stats .kind-stats h5")
    titles = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#tab-stats .kind-stats h5")]
    assert titles and not any(title.split(" — ")[0] in english for title in titles)
    assert severe_console_errors(browser) == []


def test_a_refused_key_is_said_in_french(browser: WebDriver, live_server: str) -> None:
    browser.get(f"{live_server}/app")
    Select(visible(browser, "#language")).select_by_value("fr")
    visible(browser, "#api-key").send_keys("noc_not-a-key")
    browser.find_element(By.CSS_SELECTOR, "#signin-form button[type=submit]").click()
    refused = visible(browser, "#signin-error").text
    assert refused.startswith("Cette clé est refusée") and "unknown API key" not in refused
    browser.get_log("browser")  # the refused key's 401, expected


def test_on_a_phone_the_tabs_fit_and_fields_stack(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    jdr = table.campaigns[DRACULA]
    with phone(browser):
        sign_in(browser, live_server, table.player_key, language="fr")
        open_campaign(browser, jdr.name)
        tabs = browser.find_element(By.CSS_SELECTOR, ".tabs")
        assert browser.execute_script("return innerWidth") == PHONE["width"]
        fits = "return arguments[0].scrollWidth <= arguments[0].clientWidth"
        assert browser.execute_script(fits, tabs)
        for button in tabs.find_elements(By.CSS_SELECTOR, "button"):
            assert button.is_displayed()
            assert button.rect["x"] + button.rect["width"] <= PHONE["width"]
        entry(browser, jdr.seqs["dice"]).find_element(By.CSS_SELECTOR, "button.open").click()
        visible(browser, "#detail .detail-result")
        # A field's name sits above its value, so a long dotted name leaves the value the width.
        name = browser.find_element(By.CSS_SELECTOR, "#detail .detail-result dt")
        value = browser.find_element(By.CSS_SELECTOR, "#detail .detail-result dd")
        assert abs(value.rect["x"] - name.rect["x"]) < 1 and value.rect["y"] > name.rect["y"]
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0
    wait(browser).until(lambda d: d.execute_script("return innerWidth") != PHONE["width"])


def test_a_fabulae_initiative_shows_its_cards_in_turn_order(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    # A campaign of its own: an encounter adds entries the other tests would count.
    player_id = api_get(live_server, table.player_key, "/users/me")["id"]
    with httpx.Client(base_url=live_server, timeout=30.0) as http:
        api = Api(http)
        campaign = api.campaign(table.gm_key, "Whitechapel", "fabulae-tenebris", player_id)
        ada = api.character(campaign, table.player_key, "Ada", FABULAE_SHEET)
        jack = api.character(campaign, table.gm_key, "Jack", FABULAE_SHEET, kind="npc")
        encounter = api.call(
            "POST",
            f"/campaigns/{campaign.id}/encounters",
            table.gm_key,
            {
                "name": "Miller's Court",
                "combatants": [
                    {"character_id": ada, "side": "pcs"},
                    {"character_id": jack, "side": "foes"},
                ],
            },
        )
        api.call("POST", f"/encounters/{encounter['id']}/initiative", table.gm_key)
    log = api_get(live_server, table.player_key, f"/campaigns/{campaign.id}/log", limit=50)
    rolled = next(e for e in log["data"] if e["kind"] == "fabulae.initiative")
    order = sorted(rolled["result"]["order"], key=lambda row: row["rank"])
    # FAB initiative by cards: the player reads Ada's card; Jack's is committed, shown as "?".
    expected = [
        (row["name"], str(row["card"]) if isinstance(row["card"], int) else "?") for row in order
    ]
    assert ("Jack", "?") in expected

    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, "Whitechapel")
    card = entry(browser, rolled["seq"])
    shown = [
        (
            item.text.removesuffix(item.find_element(By.CSS_SELECTOR, ".card-value").text),
            item.find_element(By.CSS_SELECTOR, ".card-value").text,
        )
        for item in card.find_elements(By.CSS_SELECTOR, ".init-cards li")
    ]
    assert shown == expected
    assert not card.find_elements(By.CSS_SELECTOR, ".dice svg.die")  # deck positions, not cards

    open_tab(browser, "encounters")
    visible(browser, "#tab-encounters .encounter")
    ada_row = browser.find_element(By.CSS_SELECTOR, f'#tab-encounters tr[data-character="{ada}"]')
    ada_card = next(row["card"] for row in order if row["name"] == "Ada")
    assert f"card {ada_card}" in ada_row.text
    jack_row = browser.find_element(By.CSS_SELECTOR, f'#tab-encounters tr[data-character="{jack}"]')
    assert "card" not in jack_row.text  # an NPC's initiative stays the GM's
    assert severe_console_errors(browser) == []
