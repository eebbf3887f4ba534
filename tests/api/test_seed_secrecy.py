"""FAIR-2: the server seed appears in no response, log line or error before its epoch closes."""

import logging
import uuid

from sqlmodel import select

from app.models import SeedEpoch
from tests.conftest import API, SHEETS


def test_FAIR_2_seed_is_secret_until_reveal(session, client, gm, player, make_campaign, caplog):
    seen: list[str] = []

    def record(response):
        response.read()
        seen.append(" ".join(f"{k}: {v}" for k, v in response.headers.items()))
        seen.append(response.text)

    service_logger = logging.getLogger("nocturne")
    service_logger.addHandler(caplog.handler)
    client.event_hooks["response"].append(record)
    try:
        campaign = make_campaign(players=(player,))
        base = f"{API}/campaigns/{campaign['id']}"
        pc = client.post(
            f"{base}/characters",
            json={"name": "Mihail", "sheet": SHEETS[campaign["system"]]},
            headers=player.headers,
        ).json()
        client.put(f"{base}/fairness/client-seed", json={"client_seed": "t42"}, headers=gm.headers)
        client.post(f"{base}/sessions", json={"night_passed": True}, headers=gm.headers)
        for visibility in ("public", "gm", "blind", "self"):
            client.post(
                f"{base}/rolls",
                json={"kind": "dice", "notation": "3d6kh2", "visibility": visibility},
                headers=player.headers,
            )
        client.post(
            f"{base}/rolls",
            json={"kind": "dice", "notation": "2d6", "character_id": pc["id"]},
            headers={**player.headers, "Idempotency-Key": "k1"},
        )
        client.post(
            f"{base}/rolls",
            json={"kind": "dice", "notation": "2d6", "character_id": pc["id"]},
            headers={**player.headers, "Idempotency-Key": "k1"},
        )
        # Errors of every kind.
        client.post(f"{base}/rolls", json={"kind": "dice", "notation": "1d0"}, headers=gm.headers)
        client.put(f"{base}/fairness/client-seed", json={"client_seed": "late"}, headers=gm.headers)
        client.post(f"{base}/fairness/rotate", headers=player.headers)
        client.get(f"{API}/campaigns/{uuid.uuid4()}/fairness", headers=gm.headers)
        for caller in (gm, player):
            for path in ("/fairness", "/log", "/rolls", "/log/verify", "/log/export", "/rolls/3"):
                client.get(f"{base}{path}", headers=caller.headers)
        campaign_id = uuid.UUID(campaign["id"])
        (first_epoch,) = session.exec(
            select(SeedEpoch).where(SeedEpoch.campaign_id == campaign_id)
        ).all()
        seed = first_epoch.server_seed
        assert seed and all(seed not in text and seed.upper() not in text for text in seen)

        reveal = client.post(f"{base}/fairness/rotate", headers=gm.headers).json()
        assert reveal["past"][0]["server_seed"] == seed  # revealed once closed (FAIR-4)
        second_seed = session.get(SeedEpoch, (campaign_id, 2)).server_seed
        client.get(f"{base}/log/export", headers=gm.headers)
        client.get(f"{base}/fairness", headers=player.headers)
        assert all(second_seed not in text for text in seen)
        assert seed not in caplog.text and second_seed not in caplog.text
    finally:
        client.event_hooks["response"].remove(record)
        service_logger.removeHandler(caplog.handler)
