"""Issue 21, point 5: every roll kind takes a `label`, what the roll is for; the entry files
it as its own top-level `label`, hashed with it (FAIR-10 lists what an entry holds at least,
FAIR-11 hashes the whole entry), and its summary reads it first."""

from __future__ import annotations

import json

import pytest

from app.engine.bodies import FollowUpBody, RollBody
from app.engine.registry import DEFAULT_REGISTRY
from app.verify import main as verify_main
from tests.api.helpers import assert_verified, rolled, url, verified_offline
from tests.conftest import assert_problem


def test_issue_21_every_kind_a_client_posts_takes_a_label():
    posted = [
        kind
        for ruleset in DEFAULT_REGISTRY.rulesets
        for kind in ruleset.kinds
        if kind.prepare is not None
    ]
    assert posted
    for kind in posted:
        assert issubclass(kind.body, RollBody | FollowUpBody), kind.name
        assert "label" in kind.body.model_fields, kind.name


def test_issue_21_a_labelled_roll_files_its_label_hashed_and_reads_it_first(
    client, gm, player, make_campaign, make_character, tmp_path
):
    campaign = make_campaign(players=(player,))
    mihail = make_character(campaign, player)
    body = {
        "kind": "jdr.action",
        "character_id": mihail["id"],
        "trait": "mental",
        "label": "Déchiffrer le grimoire",
    }
    entry = rolled(client, campaign, player, body)
    assert entry["label"] == "Déchiffrer le grimoire"
    assert "label" not in entry["request"]  # the rules never read it
    assert entry["summary"].startswith("Déchiffrer le grimoire: ")
    french = client.get(
        url(campaign, f"/rolls/{entry['seq']}"),
        headers={**player.headers, "Accept-Language": "fr"},
    ).json()
    assert french["summary"].startswith("Déchiffrer le grimoire : ")
    # Hashed with the entry: the export carries it and both verifiers pass.
    export = client.get(url(campaign, "/log/export"), headers=gm.headers).text
    exported = [json.loads(line) for line in export.splitlines()]
    assert exported[-1]["label"] == "Déchiffrer le grimoire"
    assert_verified(client, campaign, gm)
    verified_offline(client, campaign, gm, tmp_path)


def test_issue_21_a_changed_label_breaks_the_chain(client, gm, player, make_campaign, tmp_path):
    campaign = make_campaign(players=(player,))
    rolled(client, campaign, player, {"kind": "dice", "notation": "1d6", "label": "Init"})
    export = client.get(url(campaign, "/log/export"), headers=gm.headers).text
    lines = [json.loads(line) for line in export.splitlines()]
    lines[-1]["label"] = "Something else"
    tampered = tmp_path / "tampered.ndjson"
    tampered.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert verify_main([str(tampered)]) != 0


def test_issue_21_generic_dice_file_the_label_on_the_entry_and_keep_the_comment(
    client, gm, player, make_campaign
):
    campaign = make_campaign(players=(player,))
    entry = rolled(
        client, campaign, player, {"kind": "dice", "notation": "1d20+5 # swing", "label": "Sword"}
    )
    assert entry["label"] == "Sword" and entry["request"] == {"notation": "1d20+5 # swing"}
    assert entry["result"]["label"] == "swing"  # the notation's own comment, as rolled
    assert entry["summary"].startswith("Sword: swing: 1d20 (")
    plain = rolled(client, campaign, player, {"kind": "dice", "notation": "2d6"})
    assert plain.get("label") is None and "label" not in plain["request"]


def test_issue_21_a_follow_up_takes_a_label_too(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    mihail = make_character(campaign, player)
    action = rolled(
        client,
        campaign,
        player,
        {"kind": "jdr.action", "character_id": mihail["id"], "trait": "mental"},
    )
    context = rolled(
        client,
        campaign,
        gm,
        {
            "kind": "jdr.context",
            "follows": action["seq"],
            "context": {"supernatural": True},
            "label": "The grimoire is cursed",
        },
    )
    assert context["label"] == "The grimoire is cursed"
    assert_verified(client, campaign, gm)


@pytest.mark.parametrize(
    "label",
    [
        "",
        "   ",
        "x" * 101,
        "two\nlines",
        7,
        "evil\u202etxt",
        "zero\u200bwidth",
        "a\u2028b",
        "a\x85b",
    ],
)
def test_issue_21_a_bad_label_is_refused_and_nothing_is_logged(
    client, gm, player, make_campaign, label
):
    campaign = make_campaign(players=(player,))
    before = client.get(url(campaign, "/log"), headers=gm.headers).json()["data"]
    response = client.post(
        url(campaign, "/rolls"),
        json={"kind": "dice", "notation": "1d6", "label": label},
        headers=player.headers,
    )
    assert_problem(response, 422, "label")
    after = client.get(url(campaign, "/log"), headers=gm.headers).json()["data"]
    assert after == before


def test_issue_21_a_label_is_kept_trimmed_and_composed(client, player, make_campaign):
    campaign = make_campaign(players=(player,))
    body = {"kind": "dice", "notation": "1d6", "label": "  Cafe\u0301  "}
    assert rolled(client, campaign, player, body)["label"] == "Café"


def test_issue_21_a_hidden_labelled_roll_shows_its_label_to_no_one_who_may_not_see_it(
    client, gm, player, other_player, make_campaign
):
    campaign = make_campaign(players=(player, other_player))
    entry = rolled(
        client,
        campaign,
        player,
        {"kind": "dice", "notation": "1d6", "visibility": "gm", "label": "Sneak past"},
    )
    assert entry["label"] == "Sneak past"
    seen = client.get(url(campaign, f"/rolls/{entry['seq']}"), headers=other_player.headers)
    assert seen.status_code == 200 and seen.json()["redacted"] is True
    assert "Sneak past" not in seen.text
