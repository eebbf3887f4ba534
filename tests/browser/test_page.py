"""The web page in a real headless Chromium (issue 22): sign in, the timeline of every
ruleset, filters, an entry's detail, the fairness panel and its verification in the browser,
live updates, statistics, encounters, and the language switch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
    timeline_seqs,
    visible,
    wait,
)
from tests.browser.table import API, Table

DRACULA, FABULAE, VAMPIRE = "jdr-express-dracula", "fabulae-tenebris", "vampire"


def api_get(base_url: str, key: str, path: str, language: str = "en", **params: Any) -> Any:
    headers = {"Authorization": f"Bearer {key}", "Accept-Language": language}
    response = httpx.get(f"{base_url}{API}{path}", headers=headers, params=params, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def log_of(base_url: str, key: str, campaign_id: str, language: str = "en") -> list[Any]:
    page = api_get(base_url, key, f"/campaigns/{campaign_id}/log", language, limit=200)
    return list(page["data"])


def faces(card: Any) -> list[int]:
    dice = card.find_elements(By.CSS_SELECTOR, ":scope > .dice svg.die")
    return [int(die.get_attribute("data-face")) for die in dice]


def test_sign_in_keeps_the_key_in_the_tab_and_lists_the_campaigns(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    browser.get(f"{live_server}/app")
    visible(browser, "#api-key").send_keys("noc_not-a-key")
    browser.find_element(By.CSS_SELECTOR, "#signin-form button[type=submit]").click()
    assert "refused" in visible(browser, "#signin-error").text
    browser.get_log("browser")  # the refused key's 401, expected
    sign_in(browser, live_server, table.player_key)
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#campaign-list a")]
    assert sorted(names) == sorted(c.name for c in table.campaigns.values())
    assert browser.find_element(By.ID, "whoami").text == f"Signed in as {table.player_name}"
    stored = browser.execute_script("return sessionStorage.getItem('nocturne.apiKey')")
    assert stored == table.player_key
    assert table.player_key not in browser.execute_script("return JSON.stringify(localStorage)")
    assert table.player_key not in browser.current_url
    # A reload in the same tab stays signed in; signing out forgets the key.
    browser.refresh()
    visible(browser, "#campaign-list li")
    browser.find_element(By.ID, "signout").click()
    visible(browser, "#api-key")
    assert browser.execute_script("return sessionStorage.getItem('nocturne.apiKey')") is None
    assert severe_console_errors(browser) == []


def test_the_timeline_draws_each_ruleset_as_the_log_records_it(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    sign_in(browser, live_server, table.player_key)
    jdr = table.campaigns[DRACULA]
    open_campaign(browser, jdr.name)
    logged = {e["seq"]: e for e in log_of(live_server, table.player_key, jdr.id)}
    assert sorted(timeline_seqs(browser)) == sorted(logged)

    action_seq = jdr.seqs["action"]
    action = entry(browser, action_seq)
    assert action.find_element(By.CSS_SELECTOR, ".summary").text == logged[action_seq]["summary"]
    assert faces(action) == [d["face"] for d in logged[jdr.seqs["action"]]["draws"]]
    # The Joker that rerolled the action sits under it, and the action shows where it ended.
    joker = action.find_element(By.CSS_SELECTOR, f'.follow-ups li[data-seq="{jdr.seqs["joker"]}"]')
    assert faces(joker) == [d["face"] for d in logged[jdr.seqs["joker"]]["draws"]]
    final = logged[jdr.seqs["action"]]["final"]
    assert final["label"] in action.find_element(By.CSS_SELECTOR, ".final").text

    # 4d6dl1: the dropped die is drawn dropped, the kept ones are not.
    dice_entry = logged[jdr.seqs["dice"]]
    rolls = dice_entry["result"]["groups"][0]["rolls"]
    card = entry(browser, jdr.seqs["dice"])
    drawn = card.find_elements(By.CSS_SELECTOR, ".dice svg.die")
    assert ["dropped" in (die.get_attribute("class") or "") for die in drawn] == [
        bool(roll.get("dropped")) for roll in rolls
    ]
    # The GM's hidden roll is shown as hidden, with nothing of its content.
    hidden = entry(browser, jdr.seqs["hidden"])
    assert "redacted" in (hidden.get_attribute("class") or "")
    assert "Hidden entry" in hidden.text and not hidden.find_elements(By.CSS_SELECTOR, ".die")

    # Fabulae: sixes count; Vampire: a die at the difficulty or above counts.
    for system in (FABULAE, VAMPIRE):
        campaign = table.campaigns[system]
        browser.find_element(By.ID, "back").click()
        open_campaign(browser, campaign.name)
        roll = next(
            e
            for e in log_of(live_server, table.player_key, campaign.id)
            if e["seq"] == campaign.seqs["action"]
        )
        card = entry(browser, roll["seq"])
        assert card.find_element(By.CSS_SELECTOR, ".summary").text == roll["summary"]
        assert faces(card) == [d["face"] for d in roll["draws"]]
        counted = len(card.find_elements(By.CSS_SELECTOR, ".dice svg.die.hit"))
        assert counted == roll["result"]["sixes" if system == FABULAE else "successes"]
    assert severe_console_errors(browser) == []


def test_the_page_fits_a_phone(browser: WebDriver, live_server: str, table: Table) -> None:
    size = browser.get_window_size()
    browser.set_window_size(390, 844)
    try:
        sign_in(browser, live_server, table.player_key)
        open_campaign(browser, table.campaigns[DRACULA].name)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0
        entry(browser, table.campaigns[DRACULA].seqs["action"]).find_element(
            By.CSS_SELECTOR, "button.open"
        ).click()
        visible(browser, "#detail .detail-hashes")
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0
    finally:
        browser.set_window_size(size["width"], size["height"])


def test_filters_ask_the_log_for_what_they_name(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    jdr = table.campaigns[DRACULA]
    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, jdr.name)
    Select(browser.find_element(By.ID, "filter-kind")).select_by_value("dice")
    browser.find_element(By.ID, "filter-apply").click()
    wait(browser).until(lambda d: timeline_seqs(d) == [jdr.seqs["dice"]])

    browser.find_element(By.ID, "filter-clear").click()
    Select(browser.find_element(By.ID, "filter-character")).select_by_visible_text("Mihail")
    browser.find_element(By.ID, "filter-apply").click()
    expected = sorted(
        e["seq"]
        for e in log_of(live_server, table.player_key, jdr.id)
        if e.get("character_id") == jdr.characters["Mihail"]
    )
    assert expected == [jdr.seqs["action"], jdr.seqs["joker"], jdr.seqs["dice"]]
    wait(browser).until(lambda d: sorted(timeline_seqs(d)) == expected)

    # A filtered listing leaves out what the player may not see, so "GM only" would show a
    # player nothing while the timeline shows those entries hidden: the option is disabled.
    browser.find_element(By.ID, "filter-clear").click()
    gm_only = browser.find_element(By.CSS_SELECTOR, '#filter-visibility option[value="gm"]')
    assert gm_only.get_attribute("disabled") is not None
    assert "hidden from you" in gm_only.text

    # The GM filters on it and reads the hidden roll.
    browser.find_element(By.ID, "signout").click()
    sign_in(browser, live_server, table.gm_key)
    open_campaign(browser, jdr.name)
    Select(browser.find_element(By.ID, "filter-visibility")).select_by_value("gm")
    browser.find_element(By.ID, "filter-apply").click()
    wait(browser).until(lambda d: timeline_seqs(d) == [jdr.seqs["hidden"]])


def test_an_entry_shows_its_inputs_hashes_luck_and_odds(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    jdr = table.campaigns[DRACULA]
    seq = jdr.seqs["action"]
    logged = api_get(
        live_server, table.player_key, f"/campaigns/{jdr.id}/rolls/{seq}", with_odds=True
    )
    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, jdr.name)
    entry(browser, seq).find_element(By.CSS_SELECTOR, "button.open").click()
    detail = visible(browser, "#detail")
    assert detail.find_element(By.CSS_SELECTOR, "h3").text == f"Entry #{seq}"
    hashes = [dd.text for dd in detail.find_elements(By.CSS_SELECTOR, ".detail-hashes dd")]
    assert hashes == [logged["prev_hash"], logged["content_hash"], logged["hash"]]
    inputs = detail.find_element(By.CSS_SELECTOR, ".detail-inputs").text
    assert "trait" in inputs and "physique" in inputs
    percentile = round(logged["luck"]["percentile"])
    assert f"Percentile {percentile}" in detail.find_element(By.CSS_SELECTOR, ".luck-text").text
    # The odds, asked of POST /odds: the row of the outcome this roll had is marked.
    happened = visible(browser, "#detail .odds-row.happened")
    assert "this roll" in happened.text
    rows = detail.find_elements(By.CSS_SELECTOR, ".odds-row")
    assert len(rows) == 5  # JDR-11's five tiers
    detail.find_element(By.CSS_SELECTOR, "button.close").click()
    wait(browser).until(lambda d: not d.find_element(By.ID, "detail").is_displayed())
    assert severe_console_errors(browser) == []


def test_fairness_panel_and_the_verification_in_the_browser_of_a_good_export(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    jdr = table.campaigns[DRACULA]
    fairness = api_get(live_server, table.player_key, f"/campaigns/{jdr.id}/fairness")
    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, jdr.name)
    panel = open_tab(browser, "fairness")
    closed = visible(browser, '#tab-fairness .epoch.closed[data-epoch="1"]')
    assert fairness["past"][0]["server_seed"] in closed.text
    assert fairness["past"][0]["commitment"] in closed.text
    current = panel.find_element(By.CSS_SELECTOR, ".epoch.current")
    assert fairness["current"]["commitment"] in current.text
    # A player may not rotate; the GM may.
    assert not browser.find_elements(By.ID, "rotate")

    entries = len(log_of(live_server, table.player_key, jdr.id))
    browser.find_element(By.ID, "verify").click()
    verdict = visible(browser, "#verify-report .verdict")
    assert "ok" in (verdict.get_attribute("class") or "").split()
    assert verdict.text == f"Verified: {entries} entries, no failure."
    report = browser.find_element(By.ID, "verify-report").text
    assert "draws re-derived from the revealed seeds" in report
    assert "nocturne-verify" in report
    assert severe_console_errors(browser) == []


def test_a_tampered_export_file_fails_at_the_entry_that_was_changed(
    browser: WebDriver, live_server: str, table: Table, tmp_path: Path
) -> None:
    jdr = table.campaigns[DRACULA]
    export = httpx.get(
        f"{live_server}{API}/campaigns/{jdr.id}/log/export",
        headers={"Authorization": f"Bearer {table.player_key}"},
        timeout=30,
    )
    assert export.status_code == 200, export.text
    lines = export.text.splitlines()
    target = jdr.seqs["dice"]
    tampered = []
    for line in lines:
        item = json.loads(line)
        if item["seq"] == target:  # a die that showed 3 now shows 6: its content hash breaks
            item["draws"][1]["face"] = 6 if item["draws"][1]["face"] != 6 else 5
            line = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        tampered.append(line)
    path = tmp_path / "tampered.ndjson"
    path.write_text("\n".join(tampered) + "\n", encoding="utf-8")

    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, jdr.name)
    open_tab(browser, "fairness")
    visible(browser, "#verify")
    browser.find_element(By.ID, "verify-file").send_keys(str(path))
    verdict = visible(browser, "#verify-report .verdict")
    assert "failed" in (verdict.get_attribute("class") or "").split()
    assert verdict.text.startswith(f"Verification failed at entry #{target} ")
    # The untouched export still passes, from a file as from the server.
    good = tmp_path / "good.ndjson"
    good.write_text(export.text, encoding="utf-8")
    browser.find_element(By.ID, "verify-file").send_keys(str(good))
    wait(browser).until(
        lambda d: (
            "ok"
            in (
                d.find_element(By.CSS_SELECTOR, "#verify-report .verdict").get_attribute("class")
                or ""
            ).split()
        )
    )


def test_a_member_sets_the_client_seed_and_the_gm_rotates(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    # A campaign of its own: setting a seed and rotating change what the other tests read.
    gm = {"Authorization": f"Bearer {table.gm_key}"}
    made = httpx.post(
        f"{live_server}{API}/campaigns",
        json={"name": "Innsmouth", "system": "jdr-express-cthulhu"},
        headers=gm,
        timeout=30,
    )
    assert made.status_code == 201, made.text
    campaign_id = made.json()["id"]
    sign_in(browser, live_server, table.gm_key)
    browser.get(f"{live_server}/app#/campaigns/{campaign_id}/fairness")
    seed = visible(browser, "#client-seed")
    seed.clear()
    seed.send_keys("paul-and-gabrielle")
    browser.find_element(By.CSS_SELECTOR, "#client-seed-form button").click()
    wait(browser).until(
        lambda d: "paul-and-gabrielle" in d.find_element(By.CSS_SELECTOR, ".epoch.current").text
    )
    fairness = api_get(live_server, table.gm_key, f"/campaigns/{campaign_id}/fairness")
    assert fairness["current"]["client_seed"] == "paul-and-gabrielle"

    # Rotating reveals the seed for good: the page asks first, and Cancel changes nothing.
    visible(browser, "#rotate").click()
    visible(browser, "#rotate-confirm")
    browser.find_element(By.ID, "rotate-cancel").click()
    visible(browser, "#rotate")
    fairness = api_get(live_server, table.gm_key, f"/campaigns/{campaign_id}/fairness")
    assert fairness["current"]["epoch"] == 1 and not fairness["past"]
    browser.find_element(By.ID, "rotate").click()
    visible(browser, "#rotate-yes").click()
    closed = visible(browser, '#tab-fairness .epoch.closed[data-epoch="1"]')
    fairness = api_get(live_server, table.gm_key, f"/campaigns/{campaign_id}/fairness")
    assert fairness["current"]["epoch"] == 2
    assert fairness["past"][0]["server_seed"] in closed.text
    assert severe_console_errors(browser) == []


def test_new_entries_arrive_live(browser: WebDriver, live_server: str, table: Table) -> None:
    fabulae = table.campaigns[FABULAE]
    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, fabulae.name)
    wait(browser).until(
        lambda d: d.find_element(By.ID, "live-status").get_attribute("data-status") == "stream"
    )
    before = set(timeline_seqs(browser))
    rolled = httpx.post(
        f"{live_server}{API}/campaigns/{fabulae.id}/rolls",
        json={"kind": "dice", "notation": "2d6", "label": "Chance"},
        headers={"Authorization": f"Bearer {table.gm_key}", "Accept-Language": "en"},
        timeout=30,
    )
    assert rolled.status_code == 201, rolled.text
    seq = rolled.json()["seq"]
    assert seq not in before
    card = entry(browser, seq)
    assert card.find_element(By.CSS_SELECTOR, ".summary").text == rolled.json()["summary"]


def test_without_an_event_stream_the_page_polls_the_log_head(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    vampire = table.campaigns[VAMPIRE]
    # A browser without EventSource (or a proxy that buffers streams) polls Log-Head instead.
    script = browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.EventSource;"}
    )
    try:
        sign_in(browser, live_server, table.player_key)
        open_campaign(browser, vampire.name)
        status = browser.find_element(By.ID, "live-status")
        wait(browser).until(lambda d: status.get_attribute("data-status") == "polling")
        rolled = httpx.post(
            f"{live_server}{API}/campaigns/{vampire.id}/rolls",
            json={"kind": "dice", "notation": "1d10", "label": "Poll"},
            headers={"Authorization": f"Bearer {table.gm_key}", "Accept-Language": "en"},
            timeout=30,
        )
        assert rolled.status_code == 201, rolled.text
        card = entry(browser, rolled.json()["seq"])
        assert card.find_element(By.CSS_SELECTOR, ".summary").text == rolled.json()["summary"]
    finally:
        browser.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]}
        )


def test_statistics_and_encounters(browser: WebDriver, live_server: str, table: Table) -> None:
    vampire = table.campaigns[VAMPIRE]
    stats = api_get(
        live_server, table.player_key, f"/campaigns/{vampire.id}/stats", group_by="actor"
    )
    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, vampire.name)
    open_tab(browser, "stats")
    visible(browser, "#tab-stats .player-stats")
    sections = browser.find_elements(By.CSS_SELECTOR, "#tab-stats .player-stats")
    groups = stats["groups"]
    assert [section.get_attribute("data-actor") for section in sections] == [
        group["key"] for group in groups
    ]
    player_id = api_get(live_server, table.player_key, "/users/me")["id"]
    index = next(i for i, group in enumerate(groups) if group["key"] == player_id)
    player, group = sections[index], groups[index]
    assert player.find_element(By.CSS_SELECTOR, "h4").text == table.player_name
    kinds = player.find_elements(By.CSS_SELECTOR, ".kind-stats")
    with_outcomes = [k for k in group["kinds"] if k["outcomes"]]
    assert [k.get_attribute("data-kind") for k in kinds] == [k["kind"] for k in with_outcomes]
    bars = kinds[0].find_elements(By.CSS_SELECTOR, ".chart .pair")
    assert len(bars) == len(with_outcomes[0]["outcomes"])
    dice = browser.find_element(By.CSS_SELECTOR, '#tab-stats .die-stats[data-sides="10"]')
    assert len(dice.find_elements(By.CSS_SELECTOR, ".chart .pair")) == 10

    open_tab(browser, "encounters")
    encounter = visible(browser, "#tab-encounters .encounter")
    listed = api_get(live_server, table.player_key, f"/campaigns/{vampire.id}/encounters")
    shown = listed["data"][0]
    assert encounter.find_element(By.CSS_SELECTOR, "h4").text == shown["name"]
    assert f"Round {shown['round']}" in encounter.text
    current = encounter.find_element(By.CSS_SELECTOR, "tr.current")
    assert current.get_attribute("data-character") == shown["current"]["character_id"]
    rows = encounter.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert [row.get_attribute("data-character") for row in rows] == [
        c["character_id"] for c in shown["combatants"]
    ]
    assert severe_console_errors(browser) == []


def test_the_language_switches_and_is_remembered(
    browser: WebDriver, live_server: str, table: Table
) -> None:
    jdr = table.campaigns[DRACULA]
    sign_in(browser, live_server, table.player_key)
    open_campaign(browser, jdr.name)
    assert browser.find_element(By.CSS_SELECTOR, '[data-tab="log"]').text == "Log"
    Select(browser.find_element(By.ID, "language")).select_by_value("fr")
    french = {
        e["seq"]: e.get("summary") for e in log_of(live_server, table.player_key, jdr.id, "fr")
    }
    seq = jdr.seqs["action"]
    wait(browser).until(
        lambda d: entry(d, seq).find_element(By.CSS_SELECTOR, ".summary").text == french[seq]
    )
    assert browser.find_element(By.CSS_SELECTOR, '[data-tab="log"]').text == "Journal"
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
    browser.refresh()
    wait(browser).until(
        lambda d: d.find_element(By.CSS_SELECTOR, '[data-tab="log"]').text == "Journal"
    )
    assert entry(browser, seq).find_element(By.CSS_SELECTOR, ".summary").text == french[seq]
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    wait(browser).until(lambda d: d.find_element(By.CSS_SELECTOR, '[data-tab="log"]').text == "Log")
