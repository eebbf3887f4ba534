"""A ruleset is one package behind one interface: a toy coin-flip ruleset, registered in a
list of its own, is served, typed in the OpenAPI document, rolled, logged and verified
without a change to any router or service (docs/adding-a-ruleset.md)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.engine.audit import verify_log
from app.engine.registry import Registry
from app.engine.rulesets import RULESETS
from app.main import create_app
from tests.conftest import API, Caller, assert_problem, serve_from
from tests.toy import coin

REGISTRY = Registry([*RULESETS, coin.RULESET])
# The same ruleset after a fix that changes results (COIN-4): its version is bumped.
FIXED = Registry([*RULESETS, dataclasses.replace(coin.RULESET, version=2)])


def client_for(session: Session, registry: Registry) -> TestClient:
    app = create_app(registry)

    serve_from(app, session)
    return TestClient(app)


@pytest.fixture
def coin_client(session: Session) -> Iterator[TestClient]:
    with client_for(session, REGISTRY) as client:
        yield client


def _register(client: TestClient, name: str) -> Caller:
    body = client.post(f"{API}/users", json={"name": name}).json()
    return Caller(id=body["id"], name=body["name"], api_key=body["api_key"])


def _flip(client: TestClient, campaign: dict[str, Any], caller: Caller, character: str) -> Any:
    return client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json={"kind": "coin.flip", "character_id": character, "call": "heads"},
        headers=caller.headers,
    )


def test_a_toy_ruleset_is_served_rolled_logged_and_verified(coin_client):
    client = coin_client
    gm, player = _register(client, "Gwen"), _register(client, "Pia")
    systems = client.get(f"{API}/systems", headers=gm.headers).json()["data"]
    assert {
        "id": "coin-flip",
        "name": "Coin flip",
        "ruleset": "coin",
        "rules_version": "coin@1",
    } in systems
    detail = client.get(f"{API}/systems/coin-flip", headers=gm.headers).json()
    assert {k["kind"] for k in detail["kinds"]} == {
        "coin.flip",
        "dice",
        "session_started",
        "scene_started",
    }
    assert detail["sheet_schema"]["properties"]["luck"]["readOnly"] is True
    assert detail["labels"]["side"]["heads"] == {"en": "Heads", "fr": "Pile"}

    campaign = client.post(
        f"{API}/campaigns", json={"name": "Pile ou face", "system": "coin-flip"}, headers=gm.headers
    ).json()
    client.post(
        f"{API}/campaigns/{campaign['id']}/members",
        json={"user_id": player.id, "role": "player"},
        headers=gm.headers,
    )
    refused = client.post(
        f"{API}/campaigns/{campaign['id']}/characters",
        json={"name": "Lucky", "sheet": {"luck": 10}},
        headers=player.headers,
    )
    assert_problem(refused, 403, "luck")  # the rules manage it: readOnly means protected
    character = client.post(
        f"{API}/campaigns/{campaign['id']}/characters",
        json={"name": "Lucky", "sheet": {}},
        headers=player.headers,
    ).json()
    assert character["system"] == "coin-flip" and character["sheet"] == {"luck": 3}

    flips = []
    while len(flips) < 20:
        response = _flip(client, campaign, player, character["id"])
        if response.status_code == 409:
            break
        assert response.status_code == 201, response.text
        flips.append(response.json())
    refusal = assert_problem(response, 409, "no luck left")
    assert refusal["rule"] == "COIN-3"
    lost = [f for f in flips if not f["result"]["won"]]
    assert len(lost) == 3  # COIN-2: each wrong call cost one of the three points
    for flip in flips:
        assert flip["rules"] == "coin@1" and flip["kind"] == "coin.flip"
        assert flip["outcome"]["code"] == ("won" if flip["result"]["won"] else "lost")
        assert flip["summary"].startswith("Lucky calls Heads: ")
    assert lost[-1]["effects"] == [
        {
            "character_id": character["id"],
            "field": "luck",
            "before": 1,
            "after": 0,
            "rule": "COIN-2",
        }
    ]
    in_french = client.get(
        f"{API}/campaigns/{campaign['id']}/rolls/{flips[0]['seq']}",
        headers={**player.headers, "Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"},
    ).json()
    assert in_french["summary"].startswith("Lucky annonce Pile : ")
    dice = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json={"kind": "dice", "notation": "2d6"},
        headers=gm.headers,
    ).json()
    assert dice["rules"] == "dice@3"  # the generic ruleset, at its own version (issue 21)

    rotated = client.post(f"{API}/campaigns/{campaign['id']}/fairness/rotate", headers=gm.headers)
    assert rotated.status_code == 201, rotated.text
    report = client.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers).json()
    assert report["ok"] is True and report["replayed"] == len(flips) + 1
    assert report["rederived"] == len(flips) + 1  # every flip and the dice, from the revealed seed

    export = client.get(f"{API}/campaigns/{campaign['id']}/log/export", headers=gm.headers)
    entries = [json.loads(line) for line in export.text.splitlines()]
    seq, digest = export.headers["Log-Head"].split(":")
    offline = verify_log(entries, registry=REGISTRY, head=(int(seq), digest))
    assert offline.ok and offline.replayed == len(flips) + 1


def test_a_toy_ruleset_is_typed_in_the_openapi_document(coin_client):
    schema = coin_client.get("/openapi.json").json()
    components = schema["components"]["schemas"]
    entry = components["CoinFlipEntry"]
    assert entry["properties"]["kind"]["const"] == "coin.flip"
    typed, committed = entry["properties"]["request"]["anyOf"]  # committed: FAIR-18
    assert typed["$ref"] == "#/components/schemas/CoinFlipRequest"
    assert committed["$ref"] == "#/components/schemas/CommittedRequest"
    typed, committed = entry["properties"]["result"]["anyOf"]
    assert typed["$ref"] == "#/components/schemas/CoinFlipResult"
    assert committed["$ref"] == "#/components/schemas/CommittedResult"
    assert components["CoinFlipRequest"]["properties"]["character"]["$ref"].endswith(
        "/CoinCharacter"
    )
    body = schema["paths"]["/api/v1/campaigns/{campaign_id}/rolls"]["post"]["requestBody"]
    mapping = body["content"]["application/json"]["schema"]["discriminator"]["mapping"]
    assert mapping["coin.flip"] == "#/components/schemas/CoinFlipCreate"
    assert mapping["dice"] == "#/components/schemas/DiceRollCreate"


def test_a_rules_fix_bumps_the_version_and_old_entries_still_replay(session, coin_client):
    """Entries made before the fix replay with version 1, those after with version 2, in
    one log; a log claiming a version the verifier does not know fails."""
    gm = _register(coin_client, "Gwen")
    campaign = coin_client.post(
        f"{API}/campaigns", json={"name": "Avant", "system": "coin-flip"}, headers=gm.headers
    ).json()
    lucky = coin_client.post(
        f"{API}/campaigns/{campaign['id']}/characters",
        json={"name": "Lucky", "sheet": {}},
        headers=gm.headers,
    ).json()["id"]

    def flips(client: TestClient) -> list[dict[str, Any]]:
        """Flips until a right call made at 2 luck (the GM gives luck back when it runs out)."""
        made = []
        for _ in range(60):
            response = _flip(client, campaign, gm, lucky)
            if response.status_code == 409:  # COIN-3: no luck left
                client.patch(
                    f"{API}/characters/{lucky}", json={"sheet": {"luck": 2}}, headers=gm.headers
                )
                continue
            made.append(response.json())
            luck = made[-1]["request"]["character"]["sheet"]["luck"]
            if made[-1]["result"]["won"] and luck == 2:
                return made
        raise AssertionError("no right call at 2 luck in 60 flips")

    before = flips(coin_client)
    assert {f["rules"] for f in before} == {"coin@1"}
    assert before[-1]["effects"] == []  # version 1: a right call wins nothing back
    with client_for(session, FIXED) as fixed:
        after = flips(fixed)
        assert {f["rules"] for f in after} == {"coin@2"}
        assert after[-1]["effects"][-1]["rule"] == "COIN-4"  # version 2: it does
        rotated = fixed.post(
            f"{API}/campaigns/{campaign['id']}/fairness/rotate", headers=gm.headers
        )
        assert rotated.status_code == 201
        report = fixed.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers)
        assert report.json()["ok"] is True
        assert report.json()["replayed"] == len(before) + len(after)
        export = fixed.get(f"{API}/campaigns/{campaign['id']}/log/export", headers=gm.headers)
    entries = [json.loads(line) for line in export.text.splitlines()]
    assert verify_log(entries, registry=FIXED).ok
    # The verifier of before the fix knows no coin@2: it says so, at the first such entry.
    old = verify_log(entries, registry=REGISTRY)
    first_v2 = next(e["seq"] for e in entries if e.get("rules") == "coin@2")
    assert old.first_failure is not None and old.first_failure.seq == first_v2
    assert "newer than this verifier" in old.first_failure.reason
