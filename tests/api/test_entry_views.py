"""Entries as people read them and as clients cache them: the rules version each entry
records, its one-line summary and outcome label in French or English, and a character's
`updated_at`, which moves with every change the rules or the GM make."""

from __future__ import annotations

import pytest

from app.routers.common import negotiate_language
from tests.api.helpers import gm_patch, post_roll, rolled, url
from tests.conftest import API, SHEETS


@pytest.fixture
def lucien(make_campaign, make_character, gm, player):
    campaign = make_campaign("vampire", players=(player,))
    character = make_character(campaign, player, sheet=SHEETS["vampire"], name="Lucien")
    return campaign, character


def action(character, **extra):
    body = {"kind": "vampire.action", "character_id": character["id"], "attribute": "astuce"}
    return {**body, "ability": "subterfuge", **extra}


def test_every_resolved_entry_records_its_rules_version_in_its_hashed_content(
    client, gm, player, lucien
):
    campaign, character = lucien
    entry = rolled(client, campaign, player, action(character))
    assert entry["rules"] == "vampire@2"
    dice = rolled(client, campaign, gm, {"kind": "dice", "notation": "1d6"})
    assert dice["rules"] == "dice@3"  # issue 21: the notation of rules version 3
    exported = client.get(url(campaign, "/log/export"), headers=gm.headers).text.splitlines()
    assert '"rules":"vampire@2"' in exported[entry["seq"] - 1]  # in the entry as it is hashed
    log = client.get(url(campaign, "/log"), headers=gm.headers).json()["data"]
    assert "rules" not in log[0]  # the epoch_opened entry is the service's own


def test_summaries_and_outcome_labels_speak_english_or_french(client, player, lucien, forced_dice):
    campaign, character = lucien
    forced_dice.push(10, 8, 3, 1, 6, 2, 9)  # astuce 4 + subterfuge 3 at 6: 10 8 6 9 − one 1
    entry = rolled(client, campaign, player, action(character))
    assert entry["summary"] == (
        "Lucien — Wits + Subterfuge, 7d10 vs 6: 10 8 3 1 6 2 9 → 3 successes, Complete success"
    )
    assert entry["outcome"] == {"code": "complete", "label": "Complete success"}
    french = client.get(
        url(campaign, f"/rolls/{entry['seq']}"),
        headers={**player.headers, "Accept-Language": "fr-CA,fr;q=0.8"},
    ).json()
    assert french["summary"] == (
        "Lucien — Astuce + Subterfuge, 7D10 diff. 6 : 10 8 3 1 6 2 9 → 3 succès, Réussite complète"
    )
    assert french["outcome"] == {"code": "complete", "label": "Réussite complète"}
    assert french["result"]["label"] == "Réussite complète"  # the hashed label never changes


def test_every_visible_entry_of_a_log_has_a_summary(client, gm, player, lucien):
    campaign, character = lucien
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    rolled(client, campaign, player, action(character))
    gm_patch(client, gm, character, {"willpower": {"current": 2}})
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    for language in ("en", "fr"):
        entries = client.get(
            url(campaign, "/log"), headers={**gm.headers, "Accept-Language": language}
        ).json()["data"]
        assert [e["kind"] for e in entries] == [
            "epoch_opened",
            "session_started",
            "vampire.action",
            "sheet_override",
            "epoch_closed",
            "epoch_opened",
        ]
        assert all(entry["summary"] and entry["summary"] != entry["kind"] for entry in entries)


@pytest.mark.parametrize(
    ("header", "language"),
    [
        (None, "en"),
        ("", "en"),
        ("fr", "fr"),
        ("fr-FR,fr;q=0.9,en;q=0.8", "fr"),
        ("en-GB,fr;q=0.9", "en"),
        ("de,fr;q=0.5", "fr"),
        ("de", "en"),
        ("fr;q=0,en", "en"),
        ("en;q=0.2,fr;q=0.7", "fr"),
        ("*", "en"),
        ("fr;q=abc,en", "en"),
    ],
)
def test_the_language_follows_accept_language(header, language):
    assert negotiate_language(header) == language


def test_updated_at_moves_when_a_rule_changes_a_character(client, gm, player, lucien):
    campaign, character = lucien
    before = client.get(f"{API}/characters/{character['id']}", headers=player.headers).json()
    entry = rolled(client, campaign, player, action(character, willpower=True))
    assert entry["effects"][0]["field"] == "willpower"  # VAM-21 spent a point
    after = client.get(f"{API}/characters/{character['id']}", headers=player.headers).json()
    assert after["sheet"]["willpower"]["current"] == 4
    assert after["updated_at"] > before["updated_at"]


def test_updated_at_moves_with_a_gm_override_and_not_with_a_refused_roll(
    client, gm, player, lucien
):
    campaign, character = lucien
    first = client.get(f"{API}/characters/{character['id']}", headers=gm.headers).json()
    gm_patch(client, gm, character, {"willpower": {"current": 0}})
    overridden = client.get(f"{API}/characters/{character['id']}", headers=gm.headers).json()
    assert overridden["updated_at"] > first["updated_at"]
    refused = post_roll(client, campaign, player, action(character, willpower=True))
    assert refused.status_code == 409  # VAM-21: no Willpower left, nothing changes
    again = client.get(f"{API}/characters/{character['id']}", headers=gm.headers).json()
    assert again["updated_at"] == overridden["updated_at"]


def test_VAM_21_16_a_summary_names_the_willpower_success_and_the_absorbed_botch(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("vampire", players=(player,), options={"blank_botch": True})
    character = make_character(campaign, player, sheet=SHEETS["vampire"], name="Lucien")
    forced_dice.push(8, 2, 1, 10, 2, 1, 4)  # 2 successes, 2 ones: net 0, then Willpower
    spent = rolled(client, campaign, player, action(character, willpower=True))
    assert spent["summary"].endswith("→ 1 success, 1 from Willpower, Marginal success")
    forced_dice.push(1, 2, 3, 4, 5, 1, 2)  # no success, ones: a botch, absorbed (VAM-16)
    absorbed = rolled(client, campaign, player, action(character))
    assert absorbed["result"]["botch_absorbed"] is True
    assert absorbed["summary"].endswith("→ no success, Failure (botch absorbed)")
    french = client.get(
        url(campaign, f"/rolls/{absorbed['seq']}"),
        headers={**player.headers, "Accept-Language": "fr"},
    ).json()
    assert french["summary"].endswith("→ aucun succès, Échec (échec critique évité)")
