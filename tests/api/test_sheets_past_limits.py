"""The rules may take a sheet past the limits an edit must keep (a 51st wound, a stress of
108): nothing the rules wrote may then make a read fail or an entry stop replaying.

Those limits bound what a player or the GM writes; a sheet read back from storage, in an
entry's request or in a character's view, is taken as it was stored."""

from __future__ import annotations

from tests.api.helpers import gm_patch, rolled, url
from tests.conftest import API, DRACULA_SHEET, FABULAE_SHEET, assert_problem


def _readable(client, campaign, gm, character) -> dict:
    assert client.get(url(campaign, "/log?limit=200"), headers=gm.headers).status_code == 200
    assert client.get(url(campaign, "/rolls?limit=200"), headers=gm.headers).status_code == 200
    roster = client.get(url(campaign, "/characters"), headers=gm.headers)
    assert roster.status_code == 200, roster.text
    one = client.get(f"{API}/characters/{character['id']}", headers=gm.headers)
    assert one.status_code == 200, one.text
    return one.json()["sheet"]


def _verified(client, campaign, gm) -> dict:
    assert client.post(url(campaign, "/fairness/rotate"), headers=gm.headers).status_code == 201
    report = client.get(url(campaign, "/log/verify"), headers=gm.headers).json()
    assert report["ok"] is True, report
    return report


def test_JDR_35_wounds_past_fifty_stay_readable_and_replay(
    client, gm, make_campaign, make_character
):
    campaign = make_campaign("jdr-express-dracula")
    hunter = make_character(campaign, gm, sheet=DRACULA_SHEET, name="Van Helsing")
    count = {"tags": ["vampire"]}
    vampire = make_character(
        campaign, gm, sheet={**DRACULA_SHEET, **count}, kind="npc", name="Comte"
    )
    wounds = [{"severity": "light", "note": "", "cared": False}] * 50  # the most an edit writes
    gm_patch(client, gm, vampire, {"wounds": wounds})
    refused = client.patch(
        f"{API}/characters/{vampire['id']}",
        json={"sheet": {"wounds": [*wounds, wounds[0]]}},
        headers=gm.headers,
    )
    assert_problem(refused, 422, "sheet.wounds", "at most 50")
    body = {"kind": "jdr.holy_water", "attacker_id": hunter["id"], "target_id": vampire["id"]}
    for _ in range(3):  # JDR-35: each vial a light wound, whatever the count
        rolled(client, campaign, gm, body)
    assert len(_readable(client, campaign, gm, vampire)["wounds"]) == 53
    assert _verified(client, campaign, gm)["replayed"] == 3


def test_FAB_41_stress_past_ninety_nine_stays_readable_and_replays(
    client, gm, make_campaign, make_character
):
    campaign = make_campaign("fabulae-tenebris")
    ada = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Ada")
    body = {"kind": "fabulae.stress", "character_ids": [ada["id"]], "amount": 10}
    for _ in range(12):  # FAB-41: stress rises with each gain; nothing caps it at 99
        rolled(client, campaign, gm, body)
    assert _readable(client, campaign, gm, ada)["stress"] == 12 * 9  # cool_head: -1 a gain
    stress_resist = {"kind": "fabulae.stress_resist", "character_id": ada["id"]}
    resisted = client.post(url(campaign, "/rolls"), json=stress_resist, headers=gm.headers)
    assert resisted.status_code == 201, resisted.text  # its request holds the sheet as stored
    panics = len(resisted.json()["triggered"])  # 99 stress dice: a 1 sets off a panic roll
    assert _verified(client, campaign, gm)["replayed"] == 13 + panics
