"""Seed epochs, commitments, client seeds, rotation and reveal (FAIR-1..4, FAIR-6)."""

import hashlib
import uuid

from app.engine.dice import HmacDiceStream
from app.models import Campaign, CampaignMember
from tests.conftest import API, assert_problem


def url(campaign, tail=""):
    return f"{API}/campaigns/{campaign['id']}{tail}"


def roll(client, campaign, caller, notation="3d6", **extra):
    response = client.post(
        url(campaign, "/rolls"),
        json={"kind": "dice", "notation": notation, **extra},
        headers=caller.headers,
    )
    assert response.status_code == 201, response.text
    return response.json()


def test_FAIR_2_first_epoch_is_committed_when_the_campaign_is_created(client, gm, make_campaign):
    campaign = make_campaign()
    fairness = client.get(url(campaign, "/fairness"), headers=gm.headers).json()
    current = fairness["current"]
    assert current["epoch"] == 1 and current["first_seq"] == 1
    assert current["server_seed"] is None and current["client_seed"] == ""
    assert len(current["commitment"]) == 64 and fairness["past"] == []
    first = client.get(url(campaign, "/log"), headers=gm.headers).json()["data"][0]
    assert first["seq"] == 1 and first["kind"] == "epoch_opened"
    assert first["result"] == {
        "campaign_id": campaign["id"],
        "commitment": current["commitment"],
        "hidden_root": current["hidden_root"],  # FAIR-16
    }
    assert first["fairness"] == 2 and len(current["hidden_root"]) == 64


def test_FAIR_3_any_member_sets_the_client_seed_before_the_first_roll(
    client, gm, player, make_campaign
):
    campaign = make_campaign(players=(player,))
    response = client.put(
        url(campaign, "/fairness/client-seed"),
        json={"client_seed": "table-42"},
        headers=player.headers,
    )
    assert response.status_code == 200
    assert response.json()["current"]["client_seed"] == "table-42"
    entry = client.get(url(campaign, "/log?kind=client_seed_set"), headers=gm.headers).json()
    assert entry["data"][0]["request"] == {"client_seed": "table-42"}
    assert entry["data"][0]["actor_id"] == player.id


def test_FAIR_3_client_seed_is_frozen_after_the_first_roll(client, gm, make_campaign):
    campaign = make_campaign()
    roll(client, campaign, gm)
    response = client.put(
        url(campaign, "/fairness/client-seed"), json={"client_seed": "late"}, headers=gm.headers
    )
    body = assert_problem(response, 409, "frozen")
    assert body["rule"] == "FAIR-3"
    assert (
        client.get(url(campaign, "/fairness"), headers=gm.headers).json()["current"]["client_seed"]
        == ""
    )


def test_FAIR_1_client_seed_alphabet_and_length(client, gm, make_campaign):
    campaign = make_campaign()
    for bad in ("has space", "é", "x" * 65):
        response = client.put(
            url(campaign, "/fairness/client-seed"), json={"client_seed": bad}, headers=gm.headers
        )
        assert_problem(response, 422, "client_seed")
    ok = client.put(
        url(campaign, "/fairness/client-seed"),
        json={"client_seed": "A-z_09" * 10},
        headers=gm.headers,
    )
    assert ok.status_code == 200


def test_FAIR_4_rotation_reveals_the_seed_and_opens_a_new_epoch(client, gm, make_campaign):
    campaign = make_campaign()
    client.put(
        url(campaign, "/fairness/client-seed"), json={"client_seed": "t"}, headers=gm.headers
    )
    rolled = roll(client, campaign, gm, "4d6")
    before = client.get(url(campaign, "/fairness"), headers=gm.headers).json()["current"]
    response = client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    assert response.status_code == 201
    fairness = response.json()
    (past,) = fairness["past"]
    assert past["epoch"] == 1 and past["commitment"] == before["commitment"]
    seed = bytes.fromhex(past["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == past["commitment"]
    assert past["first_roll_seq"] == rolled["seq"] and past["last_seq"] == rolled["seq"] + 1
    assert fairness["current"]["epoch"] == 2 and fairness["current"]["server_seed"] is None
    assert fairness["current"]["first_seq"] == rolled["seq"] + 2
    # FAIR-6: anyone can now re-derive the roll's dice from the revealed seed.
    stream = HmacDiceStream(seed, campaign["id"], 1, "t", rolled["seq"])
    assert [stream.roll(6) for _ in range(4)] == [d["face"] for d in rolled["draws"]]
    kinds = [
        e["kind"] for e in client.get(url(campaign, "/log"), headers=gm.headers).json()["data"]
    ]
    assert kinds[-2:] == ["epoch_closed", "epoch_opened"]


def test_FAIR_4_only_the_gm_rotates(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    assert_problem(client.post(url(campaign, "/fairness/rotate"), headers=player.headers), 403)
    assert client.get(url(campaign, "/fairness"), headers=gm.headers).json()["past"] == []


def test_FAIR_4_new_epoch_accepts_a_new_client_seed(client, gm, make_campaign):
    campaign = make_campaign()
    roll(client, campaign, gm)
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    response = client.put(
        url(campaign, "/fairness/client-seed"), json={"client_seed": "fresh"}, headers=gm.headers
    )
    assert response.status_code == 200 and response.json()["current"]["client_seed"] == "fresh"


def test_FAIR_14_closed_epochs_are_re_derived_by_verify(client, gm, make_campaign):
    campaign = make_campaign()
    for notation in ("1d20", "2d6+3", "4d10kl2"):
        roll(client, campaign, gm, notation)
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    roll(client, campaign, gm, "1d6")
    report = client.get(url(campaign, "/log/verify"), headers=gm.headers).json()
    assert report == {
        "ok": True,
        "entries_checked": 7,
        "rederived": 3,
        "replayed": 4,
        "not_rederived": {
            "its epoch's seed is not revealed yet (FAIR-4)": 1
        },  # the 1d6 of the open epoch
        "chain_only": {},
        "first_failure": None,
    }


def test_non_member_sees_no_fairness(client, gm, outsider, make_campaign):
    campaign = make_campaign()
    assert_problem(client.get(url(campaign, "/fairness"), headers=outsider.headers), 404)


def pre_log_campaign(session, gm):
    """A campaign as stored before the audit log existed: no seed epoch, no entry yet."""
    gm_id = uuid.UUID(gm.id)
    campaign = Campaign(name="Londres 1888", system="jdr-express-dracula", gm_id=gm_id)
    session.add(campaign)
    session.flush()
    session.add(CampaignMember(campaign_id=campaign.id, user_id=gm_id, role="gm"))
    session.commit()
    return {"id": str(campaign.id)}


def test_FAIR_2_a_campaign_from_before_the_log_commits_its_first_epoch_when_first_shown(
    client, session, gm
):
    campaign = pre_log_campaign(session, gm)
    shown = client.get(url(campaign, "/fairness"), headers=gm.headers)
    assert shown.status_code == 200, shown.text
    current = shown.json()["current"]
    assert (current["epoch"], current["first_seq"], current["server_seed"]) == (1, 1, None)
    again = client.get(url(campaign, "/fairness"), headers=gm.headers).json()
    assert again["current"] == current  # opened once, not at every look
    log = client.get(url(campaign, "/log"), headers=gm.headers).json()["data"]
    assert [(entry["seq"], entry["kind"]) for entry in log] == [(1, "epoch_opened")]


def test_FAIR_2_a_roll_on_a_campaign_from_before_the_log_commits_its_first_epoch_first(
    client, session, gm
):
    campaign = pre_log_campaign(session, gm)
    rolled = roll(client, campaign, gm, "2d6")
    assert (rolled["seq"], rolled["epoch"]) == (2, 1)
    log = client.get(url(campaign, "/log"), headers=gm.headers).json()["data"]
    assert [entry["kind"] for entry in log] == ["epoch_opened", "dice"]
    fairness = client.get(url(campaign, "/fairness"), headers=gm.headers).json()
    assert fairness["current"]["first_roll_seq"] == 2
    assert client.get(url(campaign, "/log/verify"), headers=gm.headers).json()["ok"] is True
