"""Issue 20, webhooks: the GM registers a URL (the secret shown once); each log entry of the
kinds it asks for is written to an outbox in the entry's own transaction, then posted the
Standard Webhooks way (signed, retried with backoff, disabled after failing for a day), as a
player of the campaign sees it.

The sender is driven here directly (`dispatch_due` on the test's session, with its clock),
posting to a real receiver on 127.0.0.1 with WEBHOOK_ALLOW_PRIVATE_ADDRESSES on.
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from sqlalchemy import delete, event, text, update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select
from standardwebhooks.webhooks import Webhook as Verifier
from standardwebhooks.webhooks import WebhookVerificationError

import app.services.roll_batches as roll_batches
from app.core.database import ReadSession, create_db_engine
from app.core.settings import Settings, get_settings
from app.models import Campaign, User, Webhook, WebhookAttempt, WebhookDelivery, utcnow
from app.services.feed.notices import Notice
from app.services.webhooks import addresses, dispatch
from app.services.webhooks.dispatch import RETRY_DELAYS, dispatch_due
from app.services.webhooks.registry import MAX_WEBHOOKS
from tests.conftest import API, VAMPIRE_SHEET, assert_problem

PUBLIC_IP_URL = "https://93.184.215.14/hooks/nocturne"  # a literal address: no DNS asked


# --- helpers ---------------------------------------------------------------------------------


def hooks_url(campaign: dict[str, Any], tail: str = "") -> str:
    return f"{API}/campaigns/{campaign['id']}/webhooks{tail}"


def register(client, campaign, caller, **body: Any):
    return client.post(hooks_url(campaign), json=body, headers=caller.headers)


def registered(client, campaign, gm, **body: Any) -> dict[str, Any]:
    response = register(client, campaign, gm, **body)
    assert response.status_code == 201, response.text
    return response.json()


def roll(client, campaign, caller, **body: Any) -> dict[str, Any]:
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json=body if "kind" in body else {"kind": "dice", "notation": "1d6", **body},
        headers=caller.headers,
    )
    assert response.status_code == 201, response.text
    return response.json()


def deliveries(client, campaign, gm, hook, query: str = "") -> dict[str, Any]:
    response = client.get(
        hooks_url(campaign, f"/{hook['id']}/deliveries{query}"), headers=gm.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


def outbox(session, campaign) -> list[WebhookDelivery]:
    return list(
        session.exec(
            select(WebhookDelivery)
            .where(col(WebhookDelivery.campaign_id) == uuid.UUID(campaign["id"]))
            .order_by(col(WebhookDelivery.seq))
        ).all()
    )


def counter(session, campaign) -> int:
    row = session.get(Campaign, uuid.UUID(campaign["id"]), populate_existing=True)
    return row.webhooks


def log_head(client, campaign, gm) -> int:
    response = client.get(f"{API}/campaigns/{campaign['id']}/log?limit=200", headers=gm.headers)
    assert response.status_code == 200, response.text
    return response.json()["data"][-1]["seq"]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.fixture
def allow_private(monkeypatch) -> Settings:
    """The server's settings with WEBHOOK_ALLOW_PRIVATE_ADDRESSES on."""
    settings = get_settings()
    monkeypatch.setattr(settings, "webhook_allow_private_addresses", True)
    monkeypatch.setattr(settings, "webhook_timeout_seconds", 5.0)
    return settings


class Receiver:
    """A bot on 127.0.0.1: keeps every POST and answers the statuses it is told, in turn
    (200 once they run out)."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length)
                receiver.received.append(
                    {"path": self.path, "headers": dict(self.headers.items()), "body": body}
                )
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A sender that gave up waiting closed the connection: nothing to report.
        self.server.handle_error = lambda *_args: None  # type: ignore[method-assign]
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/nocturne"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def verified(self, index: int, secret: str) -> dict[str, Any]:
        """The index-th POST's body, once its signature checks out."""
        request = self.received[index]
        payload: dict[str, Any] = Verifier(secret).verify(request["body"], request["headers"])
        return payload


@pytest.fixture
def receiver(allow_private) -> Iterator[Receiver]:
    bot = Receiver()
    bot.thread.start()
    yield bot
    bot.server.shutdown()
    bot.server.server_close()


# --- registering -----------------------------------------------------------------------------


def test_the_gm_registers_a_webhook_and_sees_its_secret_once(client, session, gm, make_campaign):
    campaign = make_campaign()
    hook = registered(
        client, campaign, gm, url=PUBLIC_IP_URL, kinds=["dice", "jdr."], description="Discord"
    )
    assert hook["secret"].startswith("whsec_")
    assert len(base64.b64decode(hook["secret"].removeprefix("whsec_"))) == 24
    assert hook["url"] == PUBLIC_IP_URL and hook["kinds"] == ["dice", "jdr."]
    assert hook["description"] == "Discord"
    assert hook["enabled"] is True and hook["disabled_reason"] is None
    assert hook["campaign_id"] == campaign["id"]
    assert counter(session, campaign) == 1

    one = client.get(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers)
    assert one.status_code == 200, one.text
    shown = one.json()
    assert "secret" not in shown
    assert set(shown) == set(hook) - {"secret"}
    for key, value in shown.items():
        assert at(value) == at(hook[key]) if key.endswith("_at") else value == hook[key], key
    listed = client.get(hooks_url(campaign), headers=gm.headers).json()
    assert listed["count"] == 1 and listed["data"] == [shown]
    assert hook["secret"] not in json.dumps(listed)

    other = registered(client, campaign, gm, url=PUBLIC_IP_URL)
    assert other["secret"] != hook["secret"] and other["kinds"] == []
    assert counter(session, campaign) == 2


def test_the_gm_changes_and_deletes_a_webhook(client, session, gm, make_campaign):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=PUBLIC_IP_URL)
    changed = client.patch(
        hooks_url(campaign, f"/{hook['id']}"),
        json={"url": "http://1.1.1.1:8080/bot", "kinds": ["vampire."], "description": "logs"},
        headers=gm.headers,
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert body["url"] == "http://1.1.1.1:8080/bot"
    assert body["kinds"] == ["vampire."] and body["description"] == "logs"
    assert "secret" not in body
    assert at(body["updated_at"]) >= at(hook["updated_at"])

    assert (
        client.delete(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers).status_code == 204
    )
    assert_problem(client.get(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers), 404)
    assert_problem(client.delete(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers), 404)
    assert client.get(hooks_url(campaign), headers=gm.headers).json() == {"data": [], "count": 0}
    assert counter(session, campaign) == 0


def test_a_retried_registration_with_its_idempotency_key_registers_once(
    client, session, gm, make_campaign
):
    campaign = make_campaign()
    headers = {**gm.headers, "Idempotency-Key": "register-the-bot"}
    first = client.post(hooks_url(campaign), json={"url": PUBLIC_IP_URL}, headers=headers)
    again = client.post(hooks_url(campaign), json={"url": PUBLIC_IP_URL}, headers=headers)
    assert first.status_code == again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert client.get(hooks_url(campaign), headers=gm.headers).json()["count"] == 1
    assert counter(session, campaign) == 1


def test_a_campaign_holds_a_limited_number_of_webhooks(client, session, gm, make_campaign):
    campaign = make_campaign()
    for _ in range(MAX_WEBHOOKS):
        registered(client, campaign, gm, url=PUBLIC_IP_URL)
    assert_problem(
        register(client, campaign, gm, url=PUBLIC_IP_URL), 409, f"at most {MAX_WEBHOOKS}"
    )
    assert counter(session, campaign) == MAX_WEBHOOKS


def test_only_the_gm_manages_webhooks_and_outsiders_learn_nothing(
    client, gm, player, outsider, make_campaign
):
    campaign = make_campaign(players=(player,))
    hook = registered(client, campaign, gm, url=PUBLIC_IP_URL)
    one = hooks_url(campaign, f"/{hook['id']}")
    for caller, status, fragment in ((player, 403, "only the campaign's GM"), (outsider, 404, "")):
        assert_problem(register(client, campaign, caller, url=PUBLIC_IP_URL), status, fragment)
        assert_problem(client.get(hooks_url(campaign), headers=caller.headers), status, fragment)
        assert_problem(client.get(one, headers=caller.headers), status, fragment)
        assert_problem(
            client.patch(one, json={"enabled": False}, headers=caller.headers), status, fragment
        )
        assert_problem(client.delete(one, headers=caller.headers), status, fragment)
        assert_problem(client.get(f"{one}/deliveries", headers=caller.headers), status, fragment)
    # Not even the URL's own faults are told to someone who may not register one.
    assert_problem(register(client, campaign, player, url="ftp://example.com/"), 403)
    assert_problem(register(client, campaign, outsider, url="ftp://example.com/"), 404)
    assert client.get(one, headers=gm.headers).json()["enabled"] is True


def test_a_webhook_of_another_campaign_is_not_found(client, gm, make_campaign):
    first = make_campaign()
    second = make_campaign(name="Whitby")
    hook = registered(client, first, gm, url=PUBLIC_IP_URL)
    assert_problem(client.get(hooks_url(second, f"/{hook['id']}"), headers=gm.headers), 404)
    assert_problem(
        client.get(hooks_url(second, f"/{hook['id']}/deliveries"), headers=gm.headers), 404
    )


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("ftp://example.com/hook", "only http and https"),
        ("example.com/hook", "only http and https"),
        ("http:///hook", "names no host"),
        ("https://bot:hunter2@93.184.215.14/hook", "user name or password"),
        ("https://@93.184.215.14/hook", "user name or password"),
        ("http://93.184.215.14:99999/hook", "port"),
        ("http://93.184.215.14/ hook", "no spaces"),
        ("http://127.0.0.1:8080/hook", "127.0.0.1, a loopback address"),
        ("http://127.1/hook", "a loopback address"),
        ("http://10.1.2.3/hook", "10.1.2.3, a private address"),
        ("http://192.168.1.20/hook", "a private address"),
        ("http://169.254.169.254/latest/meta-data", "a link-local address"),
        ("http://0.0.0.0/hook", "the unspecified address"),
        ("http://[::1]/hook", "::1, a loopback address"),
        ("http://[::ffff:127.0.0.1]/hook", "a loopback address"),
        ("http://[fd00::1]/hook", "a private address"),
        ("http://[fe80::1]/hook", "a link-local address"),
        ("http://100.64.0.1/hook", "not a public address"),
        ("http://224.0.0.1/hook", "a multicast address"),
    ],
)
def test_only_public_http_urls_are_registered(client, gm, make_campaign, url, fragment):
    campaign = make_campaign()
    body = assert_problem(register(client, campaign, gm, url=url), 422, fragment)
    assert body["detail"].startswith("url: ")
    assert client.get(hooks_url(campaign), headers=gm.headers).json()["count"] == 0


def test_a_name_is_checked_by_the_addresses_it_resolves_to(client, gm, make_campaign, monkeypatch):
    names = {"bot.example": ["93.184.215.14"], "rebound.example": ["93.184.215.14", "10.0.0.7"]}

    def resolve(host: str, port: int) -> list[str]:
        if host not in names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return names[host]

    monkeypatch.setattr(addresses, "resolve", resolve)
    campaign = make_campaign()
    registered(client, campaign, gm, url="https://bot.example/hook")
    assert_problem(
        register(client, campaign, gm, url="https://rebound.example/hook"),
        422,
        "rebound.example resolves to 10.0.0.7, a private address",
    )
    assert_problem(
        register(client, campaign, gm, url="https://nowhere.example/hook"),
        422,
        "the host nowhere.example does not resolve",
    )
    hook = client.get(hooks_url(campaign), headers=gm.headers).json()["data"][0]
    moved = client.patch(
        hooks_url(campaign, f"/{hook['id']}"),
        json={"url": "https://rebound.example/hook"},
        headers=gm.headers,
    )
    assert_problem(moved, 422, "a private address")
    assert client.get(hooks_url(campaign), headers=gm.headers).json()["data"][0]["url"] == (
        "https://bot.example/hook"
    )


def test_private_addresses_pass_when_the_server_allows_them(
    client, gm, make_campaign, allow_private
):
    campaign = make_campaign()
    for url in ("http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://[::1]:9/hook"):
        assert registered(client, campaign, gm, url=url)["url"] == url
    # Only the addresses: the rest of the checks stay.
    assert_problem(register(client, campaign, gm, url="ftp://127.0.0.1/"), 422, "only http")
    assert_problem(register(client, campaign, gm, url="http://u:p@127.0.0.1/"), 422, "password")


def test_kinds_are_entry_kind_names(client, gm, make_campaign):
    campaign = make_campaign()
    response = register(client, campaign, gm, url=PUBLIC_IP_URL, kinds=["dice", "rm -rf"])
    assert_problem(response, 422, "kind name")
    response = register(client, campaign, gm, url=PUBLIC_IP_URL, extra=True)
    assert_problem(response, 422, "extra")


# --- the outbox ------------------------------------------------------------------------------


def test_each_entry_writes_one_delivery_per_webhook_whose_kinds_match(
    client, session, gm, player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    every = registered(client, campaign, gm, url=PUBLIC_IP_URL)
    dice = registered(client, campaign, gm, url=PUBLIC_IP_URL, kinds=["dice"])
    vampire = registered(client, campaign, gm, url=PUBLIC_IP_URL, kinds=["vampire."])
    action = registered(client, campaign, gm, url=PUBLIC_IP_URL, kinds=["vampire.action"])
    fabulae = registered(client, campaign, gm, url=PUBLIC_IP_URL, kinds=["fabulae."])
    assert outbox(session, campaign) == []

    dice_seq = roll(client, campaign, player)["seq"]
    action_seq = roll(
        client,
        campaign,
        player,
        kind="vampire.action",
        character_id=lucien["id"],
        attribute="astuce",
        ability="subterfuge",
    )["seq"]

    rows = outbox(session, campaign)
    assert sorted((row.seq, str(row.webhook_id)) for row in rows) == sorted(
        [
            (dice_seq, every["id"]),
            (dice_seq, dice["id"]),
            (action_seq, every["id"]),
            (action_seq, vampire["id"]),
            (action_seq, action["id"]),
        ]
    )
    assert all(row.status == "pending" and row.attempts == 0 for row in rows)
    assert all(row.payload is None and row.leased_until is None for row in rows)
    assert deliveries(client, campaign, gm, fabulae) == {"data": [], "next_before": None}
    listed = deliveries(client, campaign, gm, vampire)["data"]
    assert [(item["seq"], item["kind"], item["status"]) for item in listed] == [
        (action_seq, "vampire.action", "pending")
    ]
    assert listed[0]["attempts"] == [] and listed[0]["next_attempt_at"] is not None


def test_no_webhook_no_delivery(client, session, gm, make_campaign):
    campaign = make_campaign()
    roll(client, campaign, gm)
    assert outbox(session, campaign) == []


def test_a_refused_roll_leaves_no_delivery(
    client, session, gm, player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    registered(client, campaign, gm, url=PUBLIC_IP_URL)
    head = log_head(client, campaign, gm)
    refused = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json={
            "kind": "vampire.action",
            "character_id": lucien["id"],
            "attribute": "astuce",
            "ability": "subterfuge",
            "difficulty": 4,  # the Storyteller's (VAM-5)
        },
        headers=player.headers,
    )
    assert_problem(refused, 403, "difficulty")
    invalid = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json={"kind": "dice", "notation": "1d6+"},
        headers=player.headers,
    )
    assert_problem(invalid, 422)
    assert log_head(client, campaign, gm) == head
    assert outbox(session, campaign) == []


def test_a_roll_rolled_back_after_its_entry_leaves_no_delivery(
    client, session, gm, make_campaign, monkeypatch
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=PUBLIC_IP_URL)
    head = log_head(client, campaign, gm)

    real_create_roll = roll_batches.create_roll

    def database_lost(*args: Any) -> None:
        real_create_roll(*args)
        raise OperationalError("SELECT 1", {}, Exception("the connection dropped"))

    # The entry is appended, then the connection drops before the commit.
    monkeypatch.setattr(roll_batches, "create_roll", database_lost)
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json={"kind": "dice", "notation": "1d6"},
        headers=gm.headers,
    )
    assert_problem(response, 503, "nothing was changed")
    monkeypatch.undo()
    assert log_head(client, campaign, gm) == head
    assert outbox(session, campaign) == []
    # The next roll takes the same seq, and its own delivery is the only one.
    seq = roll(client, campaign, gm)["seq"]
    assert seq == head + 1
    assert [(row.seq, str(row.webhook_id)) for row in outbox(session, campaign)] == [
        (seq, hook["id"])
    ]


def test_a_disabled_webhook_gets_no_delivery_and_gives_up_its_pending_ones(
    client, session, gm, make_campaign
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=PUBLIC_IP_URL)
    roll(client, campaign, gm)
    one = hooks_url(campaign, f"/{hook['id']}")
    disabled = client.patch(one, json={"enabled": False}, headers=gm.headers)
    assert disabled.status_code == 200, disabled.text
    assert disabled.json()["enabled"] is False
    assert disabled.json()["disabled_reason"] == "disabled by the GM"
    assert [item["status"] for item in deliveries(client, campaign, gm, hook)["data"]] == ["failed"]
    roll(client, campaign, gm)
    assert len(outbox(session, campaign)) == 1
    assert counter(session, campaign) == 1  # still registered

    enabled = client.patch(one, json={"enabled": True}, headers=gm.headers).json()
    assert enabled["enabled"] is True and enabled["disabled_reason"] is None
    seq = roll(client, campaign, gm)["seq"]
    assert [(row.seq, row.status) for row in outbox(session, campaign)][-1] == (seq, "pending")


def test_deliveries_are_paged_newest_first_and_filtered_by_status(
    client, session, gm, make_campaign
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=PUBLIC_IP_URL, kinds=["dice"])
    seqs = [roll(client, campaign, gm)["seq"] for _ in range(5)]
    first = deliveries(client, campaign, gm, hook, "?limit=2")
    assert [item["seq"] for item in first["data"]] == seqs[:-3:-1]
    assert first["next_before"] == seqs[3]
    second = deliveries(client, campaign, gm, hook, f"?limit=2&before={first['next_before']}")
    assert [item["seq"] for item in second["data"]] == [seqs[2], seqs[1]]
    last = deliveries(client, campaign, gm, hook, f"?limit=2&before={second['next_before']}")
    assert [item["seq"] for item in last["data"]] == [seqs[0]]
    assert last["next_before"] is None
    assert deliveries(client, campaign, gm, hook, "?status=delivered")["data"] == []
    assert len(deliveries(client, campaign, gm, hook, "?status=pending")["data"]) == 5
    assert_problem(
        client.get(hooks_url(campaign, f"/{hook['id']}/deliveries?limit=101"), headers=gm.headers),
        422,
    )
    assert_problem(
        client.get(
            hooks_url(campaign, f"/{hook['id']}/deliveries?status=lost"), headers=gm.headers
        ),
        422,
    )


# --- the sender ------------------------------------------------------------------------------


def test_a_delivery_is_posted_signed_as_a_player_sees_the_entry(
    client, session, gm, make_campaign, receiver, allow_private
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=receiver.url, kinds=["dice"])
    entry = roll(client, campaign, gm)
    now = utcnow()
    assert dispatch_due(session, now=now) == 1

    assert len(receiver.received) == 1
    request = receiver.received[0]
    headers = {key.lower(): value for key, value in request["headers"].items()}
    assert request["path"] == "/hooks/nocturne"
    assert headers["content-type"] == "application/json"
    assert headers["user-agent"] == "Nocturne-Webhooks/1"
    [delivery] = outbox(session, campaign)
    assert headers["webhook-id"] == f"msg_{delivery.id.hex}"
    assert headers["webhook-timestamp"] == str(int(now.timestamp()))
    assert headers["webhook-signature"].startswith("v1,")
    payload = receiver.verified(0, hook["secret"])
    assert payload["type"] == "log.entry"
    assert payload["timestamp"] == entry["created_at"]
    assert payload["data"]["campaign_id"] == campaign["id"]
    posted = payload["data"]["entry"]
    assert posted["seq"] == entry["seq"] and posted["kind"] == "dice"
    assert posted["result"] == entry["result"] and posted["draws"] == entry["draws"]
    assert posted["hash"] == entry["hash"] and posted["summary"] == entry["summary"]
    with pytest.raises(WebhookVerificationError, match="signature"):
        Verifier(registered(client, campaign, gm, url=receiver.url)["secret"]).verify(
            request["body"], request["headers"]
        )

    listed = deliveries(client, campaign, gm, hook)["data"]
    assert listed[0]["status"] == "delivered" and listed[0]["next_attempt_at"] is None
    [attempt] = listed[0]["attempts"]
    assert attempt["number"] == 1 and attempt["status_code"] == 200
    assert attempt["error"] is None and attempt["duration_ms"] >= 0
    assert at(attempt["attempted_at"]) == now
    assert dispatch_due(session, now=now + timedelta(hours=1)) == 0  # delivered: done


def test_a_failed_delivery_is_retried_with_the_same_id_and_bytes_after_the_backoff(
    client, session, gm, make_campaign, receiver
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=receiver.url)
    roll(client, campaign, gm)
    receiver.statuses = [500, 503, 404, 200]
    start = utcnow()
    assert dispatch_due(session, now=start) == 1
    listed = deliveries(client, campaign, gm, hook)["data"][0]
    assert listed["status"] == "pending"
    assert [a["status_code"] for a in listed["attempts"]] == [500]
    assert at(listed["next_attempt_at"]) == start + timedelta(seconds=RETRY_DELAYS[0])
    webhook = client.get(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers).json()
    assert at(webhook["failing_since"]) == start and webhook["enabled"] is True

    # Not before it is due.
    assert dispatch_due(session, now=start + timedelta(seconds=RETRY_DELAYS[0] - 1)) == 0
    when = start
    for number, delay in enumerate(RETRY_DELAYS[:3], start=1):
        when += timedelta(seconds=delay)
        assert dispatch_due(session, now=when) == 1
        listed = deliveries(client, campaign, gm, hook)["data"][0]
        assert len(listed["attempts"]) == number + 1
        if number < 3:
            assert at(listed["next_attempt_at"]) == when + timedelta(seconds=RETRY_DELAYS[number])

    assert listed["status"] == "delivered" and listed["next_attempt_at"] is None
    assert [a["status_code"] for a in listed["attempts"]] == [500, 503, 404, 200]
    assert [a["number"] for a in listed["attempts"]] == [1, 2, 3, 4]
    assert len(receiver.received) == 4
    ids = {request["headers"]["webhook-id"] for request in receiver.received}
    bodies = {request["body"] for request in receiver.received}
    assert len(ids) == 1 and len(bodies) == 1  # the same message, byte for byte
    assert [r["headers"]["webhook-timestamp"] for r in receiver.received] == [
        str(int(t.timestamp()))
        for t in (start, start + timedelta(seconds=5), start + timedelta(seconds=35), when)
    ]
    # Each attempt signs its own timestamp: the last one verifies now.
    assert receiver.verified(3, hook["secret"])["type"] == "log.entry"
    webhook = client.get(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers).json()
    assert webhook["failing_since"] is None  # a success forgets the failures


def test_a_webhook_failing_for_a_day_is_disabled_and_says_so(
    client, session, gm, make_campaign, receiver
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=receiver.url)
    roll(client, campaign, gm)
    receiver.statuses = [500] * 20
    start = utcnow()
    assert dispatch_due(session, now=start) == 1
    roll(client, campaign, gm)  # a second delivery, pending
    # Still within the day: retried, still enabled.
    assert dispatch_due(session, now=start + timedelta(hours=23)) == 2
    webhook = client.get(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers).json()
    assert webhook["enabled"] is True and at(webhook["failing_since"]) == start
    posts = len(receiver.received)
    assert posts == 3

    later = start + timedelta(days=1, seconds=1)
    assert dispatch_due(session, now=later) == 2
    # The first failure past the day disabled it: the other delivery was not posted.
    assert len(receiver.received) == posts + 1
    webhook = client.get(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers).json()
    assert webhook["enabled"] is False
    assert "failing for a day" in webhook["disabled_reason"]
    assert "HTTP 500" in webhook["disabled_reason"]
    assert webhook["failing_since"] is not None
    listed = deliveries(client, campaign, gm, hook)["data"]
    assert [item["status"] for item in listed] == ["failed", "failed"]
    assert all(item["next_attempt_at"] is None for item in listed)
    assert deliveries(client, campaign, gm, hook, "?status=pending")["data"] == []
    assert dispatch_due(session, now=later + timedelta(days=1)) == 0
    roll(client, campaign, gm)
    assert deliveries(client, campaign, gm, hook, "?status=pending")["data"] == []

    enabled = client.patch(
        hooks_url(campaign, f"/{hook['id']}"), json={"enabled": True}, headers=gm.headers
    )
    assert enabled.status_code == 200, enabled.text
    body = enabled.json()
    assert body["enabled"] is True
    assert body["disabled_reason"] is None and body["failing_since"] is None
    seq = roll(client, campaign, gm)["seq"]
    receiver.statuses = []
    assert dispatch_due(session, now=utcnow()) == 1
    assert (
        receiver.verified(len(receiver.received) - 1, hook["secret"])["data"]["entry"]["seq"] == seq
    )


def test_a_delivery_gives_up_after_its_last_attempt(client, session, gm, make_campaign, receiver):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=receiver.url)
    roll(client, campaign, gm)
    receiver.statuses = [500] * 20
    when = utcnow()
    # The webhook succeeds elsewhere in between: it is never failing for a day.
    for delay in (0, *RETRY_DELAYS):
        when += timedelta(seconds=delay)
        session.execute(
            update(Webhook)
            .where(col(Webhook.id) == uuid.UUID(hook["id"]))
            .values(failing_since=None)
        )
        assert dispatch_due(session, now=when) == 1
    listed = deliveries(client, campaign, gm, hook)["data"][0]
    assert listed["status"] == "failed" and listed["next_attempt_at"] is None
    assert len(listed["attempts"]) == len(RETRY_DELAYS) + 1
    assert dispatch_due(session, now=when + timedelta(days=2)) == 0
    assert client.get(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers).json()["enabled"]


def test_hidden_entries_reach_the_webhook_redacted(
    client, session, gm, player, make_campaign, receiver
):
    campaign = make_campaign(players=(player,))
    hook = registered(client, campaign, gm, url=receiver.url, kinds=["dice"])
    blind = roll(client, campaign, gm, visibility="blind")
    secret = roll(client, campaign, player, visibility="gm")
    own = roll(client, campaign, player, visibility="self")
    public = roll(client, campaign, player)
    assert dispatch_due(session, now=utcnow()) == 4
    posted = {
        entry["seq"]: entry
        for entry in (receiver.verified(i, hook["secret"])["data"]["entry"] for i in range(4))
    }
    for hidden in (blind, secret, own):
        view = posted[hidden["seq"]]
        assert view["redacted"] is True
        assert view["hash"] == hidden["hash"]  # the chain still checks
        for field in ("result", "draws", "request", "summary", "effects", "entry_key", "proof"):
            assert field not in view, field
    assert "result" in posted[public["seq"]] and "redacted" not in posted[public["seq"]]


def test_a_hidden_entry_the_gm_disclosed_is_posted_whole(
    client, session, gm, player, make_campaign, receiver
):
    campaign = make_campaign(players=(player,))
    hook = registered(client, campaign, gm, url=receiver.url, kinds=["dice"])
    blind = roll(client, campaign, player, visibility="blind")
    disclosed = client.post(
        f"{API}/campaigns/{campaign['id']}/log/disclosures",
        json={"seqs": [blind["seq"]]},
        headers=gm.headers,
    )
    assert disclosed.status_code == 201, disclosed.text
    assert dispatch_due(session, now=utcnow()) == 1
    view = receiver.verified(0, hook["secret"])["data"]["entry"]
    assert view["seq"] == blind["seq"]
    assert "redacted" not in view and view["draws"] and view["result"]


def test_each_post_checks_the_address_again(
    client, session, gm, make_campaign, receiver, monkeypatch
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=receiver.url)
    roll(client, campaign, gm)
    monkeypatch.setattr(get_settings(), "webhook_allow_private_addresses", False)
    now = utcnow()
    assert dispatch_due(session, now=now) == 1
    assert receiver.received == []
    [attempt] = deliveries(client, campaign, gm, hook)["data"][0]["attempts"]
    assert attempt["status_code"] is None
    assert "127.0.0.1, a loopback address" in attempt["error"]
    monkeypatch.setattr(get_settings(), "webhook_allow_private_addresses", True)
    assert dispatch_due(session, now=now + timedelta(seconds=RETRY_DELAYS[0])) == 1
    assert len(receiver.received) == 1


def test_a_receiver_that_is_not_there_is_a_failed_attempt(
    client, session, gm, make_campaign, allow_private
):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nobody listens there once closed
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=f"http://127.0.0.1:{port}/hook")
    roll(client, campaign, gm)
    assert dispatch_due(session, now=utcnow()) == 1
    [delivery] = deliveries(client, campaign, gm, hook)["data"]
    assert delivery["status"] == "pending"
    [attempt] = delivery["attempts"]
    assert attempt["status_code"] is None
    assert attempt["error"].startswith("could not connect to 127.0.0.1")


def test_a_slow_receiver_times_out(client, session, gm, make_campaign, receiver, allow_private):
    impatient = Settings(webhook_allow_private_addresses=True, webhook_timeout_seconds=0.3)
    release = threading.Event()
    original = receiver.server.RequestHandlerClass.do_POST  # type: ignore[attr-defined]

    def slow(handler: Any) -> None:
        release.wait(5)
        original(handler)

    receiver.server.RequestHandlerClass.do_POST = slow  # type: ignore[attr-defined]
    try:
        campaign = make_campaign()
        hook = registered(client, campaign, gm, url=receiver.url)
        roll(client, campaign, gm)
        assert dispatch_due(session, now=utcnow(), settings=impatient) == 1
    finally:
        release.set()
    [attempt] = deliveries(client, campaign, gm, hook)["data"][0]["attempts"]
    assert attempt["status_code"] is None and attempt["error"] == "timed out after 0.3 s"


def test_a_redirect_is_not_followed(client, session, gm, make_campaign, receiver):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=receiver.url)
    roll(client, campaign, gm)
    receiver.statuses = [307]
    assert dispatch_due(session, now=utcnow()) == 1
    [attempt] = deliveries(client, campaign, gm, hook)["data"][0]["attempts"]
    assert attempt["status_code"] == 307
    assert len(receiver.received) == 1


def test_an_entry_that_cannot_be_rendered_fails_alone(
    client, session, gm, make_campaign, receiver, monkeypatch
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=receiver.url, kinds=["dice"])
    broken = roll(client, campaign, gm)["seq"]
    fine = roll(client, campaign, gm)["seq"]
    render = dispatch.render_payload

    def render_but_one(session: Any, campaign_id: uuid.UUID, seq: int) -> str:
        if seq == broken:
            raise KeyError("an unknown ruleset")
        return render(session, campaign_id, seq)

    monkeypatch.setattr(dispatch, "render_payload", render_but_one)
    assert dispatch_due(session, now=utcnow()) == 1
    assert [r["headers"]["webhook-id"] for r in receiver.received] == [
        f"msg_{row.id.hex}" for row in outbox(session, campaign) if row.seq == fine
    ]
    by_seq = {item["seq"]: item for item in deliveries(client, campaign, gm, hook)["data"]}
    assert by_seq[fine]["status"] == "delivered"
    assert by_seq[broken]["status"] == "failed"
    assert by_seq[broken]["attempts"][0]["error"].startswith("no payload: ")


def test_deleting_a_webhook_deletes_its_deliveries_and_attempts(
    client, session, gm, make_campaign, receiver
):
    campaign = make_campaign()
    hook = registered(client, campaign, gm, url=receiver.url)
    kept = registered(client, campaign, gm, url=receiver.url)
    roll(client, campaign, gm)
    receiver.statuses = [500, 500]
    assert dispatch_due(session, now=utcnow()) == 2
    of_campaign = col(WebhookAttempt.campaign_id) == uuid.UUID(campaign["id"])
    assert len(session.exec(select(WebhookAttempt).where(of_campaign)).all()) == 2
    response = client.delete(hooks_url(campaign, f"/{hook['id']}"), headers=gm.headers)
    assert response.status_code == 204
    rows = outbox(session, campaign)
    assert [str(row.webhook_id) for row in rows] == [kept["id"]]
    attempts = session.exec(select(WebhookAttempt).where(of_campaign)).all()
    assert [attempt.delivery_id for attempt in attempts] == [rows[0].id]
    assert counter(session, campaign) == 1


# --- the sender's thread ---------------------------------------------------------------------


def test_the_sender_thread_survives_errors_wakes_on_notices_and_stops(db_engine, monkeypatch):
    rounds: list[float] = []

    def has_due(_session: Any, _now: datetime) -> bool:
        rounds.append(time.monotonic())
        if len(rounds) == 1:
            raise RuntimeError("the database is away")
        return False

    monkeypatch.setattr(dispatch, "has_due", has_due)
    sender = dispatch.Sender(db_engine, Settings(), interval=0.05)
    sender.start()
    try:
        deadline = time.monotonic() + 5
        while len(rounds) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(rounds) >= 3  # the error was logged, not fatal
    finally:
        sender.stop(timeout=5)
    assert sender._thread is not None and not sender._thread.is_alive()
    assert sender not in dispatch._current

    # Woken at once by a commit that filled the outbox, not by others.
    rounds.clear()
    sender = dispatch.Sender(db_engine, Settings(), interval=60)
    sender.start()
    try:
        deadline = time.monotonic() + 5
        while not rounds and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(rounds) == 1
        dispatch._wake_senders(Notice(uuid.uuid4(), seq=3, entries=[(3, "dice")], webhooks=0))
        time.sleep(0.2)
        assert len(rounds) == 1
        dispatch._wake_senders(Notice(uuid.uuid4(), seq=3, entries=[(3, "dice")], webhooks=1))
        deadline = time.monotonic() + 5
        while len(rounds) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(rounds) == 2
    finally:
        sender.stop(timeout=5)
    assert not sender._thread.is_alive()


def test_the_senders_poll_reads_outside_a_transaction(db_engine, monkeypatch):
    """Issue 23: the poll each second is a ReadSession's (autocommit on PostgreSQL): no
    BEGIN and ROLLBACK, whose ROLLBACK made psycopg drop the connection's prepared
    statements, those of the rolls included."""
    polled: list[tuple[Session, bool]] = []
    real_has_due = dispatch.has_due

    def has_due(session: Session, now: datetime) -> bool:
        session.execute(text("SELECT 1"))
        driver = session.connection().connection.driver_connection
        status = getattr(getattr(driver, "info", None), "transaction_status", None)
        polled.append((session, status is not None and status.name != "IDLE"))
        real_has_due(session, now)
        return False  # whatever another test left due: this round posts nothing

    monkeypatch.setattr(dispatch, "has_due", has_due)
    sender = dispatch.Sender(db_engine, Settings(), interval=60)
    assert sender._round(client=None) == 0
    [(session, in_transaction)] = polled
    assert isinstance(session, ReadSession)
    if db_engine.dialect.name == "postgresql":
        assert not in_transaction


def test_the_app_runs_the_sender_only_when_delivery_is_enabled(db_engine, monkeypatch):
    from fastapi.testclient import TestClient

    import app.main as main

    monkeypatch.setattr(main, "get_engine", lambda: db_engine)

    def senders() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "webhook-sender" and t.is_alive()]

    before = len(senders())
    with TestClient(main.create_app()):
        assert len(senders()) == before  # WEBHOOK_DELIVERY_ENABLED=false in the suite
    monkeypatch.setattr(get_settings(), "webhook_delivery_enabled", True)
    with TestClient(main.create_app()):
        assert len(senders()) == before + 1
    assert len(senders()) == before


def test_two_senders_never_claim_the_same_delivery(db_engine, database_url, monkeypatch):
    """Committed rows, two connections: a claim in progress holds its deliveries; another
    sender takes the next ones (on PostgreSQL at once, FOR UPDATE SKIP LOCKED; on SQLite
    once the first claim commits, behind its write lock)."""
    engine = create_db_engine(database_url)
    writer = engine.execution_options(sqlite_begin="IMMEDIATE")
    now = utcnow()
    gm = User(name="Committed GM", api_key_hash=uuid.uuid4().hex)
    campaign = Campaign(name="Committed", system="vampire", gm_id=gm.id)
    hook = Webhook(campaign_id=campaign.id, url="http://127.0.0.1:9/", secret="whsec_QUJD")
    rows = [
        WebhookDelivery(
            campaign_id=campaign.id, webhook_id=hook.id, seq=seq, kind="dice", next_attempt_at=now
        )
        for seq in range(1, 5)
    ]
    campaign_id, gm_id = campaign.id, gm.id
    with Session(engine, expire_on_commit=False) as setup:
        setup.add(gm)
        setup.flush()
        setup.add(campaign)
        setup.flush()
        setup.add_all([hook, *rows])
        setup.commit()

    first_rendering, release_first = threading.Event(), threading.Event()

    def render(_session: Any, _campaign_id: uuid.UUID, seq: int) -> str:
        if threading.current_thread().name == "first":
            first_rendering.set()
            assert release_first.wait(10)
        return json.dumps({"seq": seq})

    monkeypatch.setattr(dispatch, "render_payload", render)
    claimed: dict[str, list[int]] = {}

    def claim_as(limit: int) -> None:
        with Session(writer, expire_on_commit=False) as session:
            found = dispatch.claim(session, now, Settings(), limit)
            claimed[threading.current_thread().name] = [json.loads(c.payload)["seq"] for c in found]

    first = threading.Thread(target=claim_as, args=(2,), name="first")
    second = threading.Thread(target=claim_as, args=(10,), name="second")
    try:
        first.start()
        assert first_rendering.wait(10)
        second.start()
        second.join(1)
        if engine.dialect.name == "postgresql":
            assert not second.is_alive()  # it did not wait for the first claim's rows
            assert claimed["second"] == [3, 4]
        release_first.set()
        first.join(10)
        second.join(40)
        assert claimed["first"] == [1, 2]
        assert claimed["second"] == [3, 4]
        with Session(engine) as check:
            leases = check.exec(
                select(WebhookDelivery.leased_until).where(
                    col(WebhookDelivery.campaign_id) == campaign_id
                )
            ).all()
            assert len(leases) == 4 and all(lease is not None for lease in leases)
            assert not dispatch.claim(check, now, Settings())  # all leased: none due
    finally:
        release_first.set()
        with Session(engine) as cleanup:
            for table in (WebhookDelivery, Webhook, Campaign):
                cleanup.execute(
                    delete(table).where(
                        col(table.campaign_id if table is not Campaign else Campaign.id)
                        == campaign_id
                    )
                )
            cleanup.execute(delete(User).where(col(User.id) == gm_id))
            cleanup.commit()
        engine.dispose()


def test_each_claim_transaction_touches_one_campaign(db_engine, database_url, monkeypatch):
    """docs/scaling.md: every transaction touches one campaign, so that on Citus a claim
    locks rows of one shard. Deliveries due in two campaigns: two claim transactions, each
    leasing one campaign's deliveries; the campaign that waited longest first."""
    engine = create_db_engine(database_url)
    now = utcnow()
    gm = User(name="Sharded GM", api_key_hash=uuid.uuid4().hex)
    campaigns = [Campaign(name=f"Shard {n}", system="vampire", gm_id=gm.id) for n in (1, 2)]
    hooks = [
        Webhook(campaign_id=c.id, url="http://127.0.0.1:9/", secret="whsec_QUJD") for c in campaigns
    ]
    rows = [
        WebhookDelivery(
            campaign_id=hook.campaign_id,
            webhook_id=hook.id,
            seq=seq,
            kind="dice",
            next_attempt_at=now - timedelta(minutes=index),  # the second campaign waited longer
        )
        for index, hook in enumerate(hooks)
        for seq in (1, 2)
    ]
    with Session(engine, expire_on_commit=False) as setup:
        setup.add(gm)
        setup.flush()
        setup.add_all(campaigns)
        setup.flush()
        setup.add_all([*hooks, *rows])
        setup.commit()
    monkeypatch.setattr(dispatch, "render_payload", lambda _s, _c, seq: json.dumps({"seq": seq}))
    transactions: list[set[str]] = [set()]

    def executed(_conn, _cursor, statement, parameters, _context, _many) -> None:
        if statement.lstrip().upper().startswith("UPDATE WEBHOOK_DELIVERY"):
            values = parameters.values() if isinstance(parameters, dict) else parameters
            transactions[-1].update(str(v) for v in values if str(v) in ids)

    ids = {str(c.id) for c in campaigns} | {c.id.hex for c in campaigns}
    event.listen(engine, "before_cursor_execute", executed)
    event.listen(engine, "commit", lambda _conn: transactions.append(set()))
    try:
        with Session(engine, expire_on_commit=False) as session:
            claimed = dispatch.claim(session, now, Settings())
        assert [c.campaign_id for c in claimed] == [campaigns[1].id] * 2 + [campaigns[0].id] * 2
        leasing = [found for found in transactions if found]
        assert len(leasing) == 2 and all(len(found) == 1 for found in leasing), leasing
    finally:
        event.remove(engine, "before_cursor_execute", executed)
        with Session(engine) as cleanup:
            for campaign in campaigns:
                for table in (WebhookDelivery, Webhook):
                    cleanup.execute(delete(table).where(col(table.campaign_id) == campaign.id))
                cleanup.execute(delete(Campaign).where(col(Campaign.id) == campaign.id))
            cleanup.execute(delete(User).where(col(User.id) == gm.id))
            cleanup.commit()
        engine.dispose()
