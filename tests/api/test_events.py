"""The event stream's doors, in-process (issue 20): who may open it, with what, and the
tickets browsers use. The streams themselves run on real servers: tests/db/test_feed.py."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from sqlmodel import select

from app.core import problems
from app.models import StreamTicket, User, utcnow
from app.services.feed import broker as broker_module
from app.services.feed.broker import QUEUE_LIMIT, Broker, Subscriber
from app.services.feed.notices import Notice, matches
from app.services.feed.reading import Event, Viewer
from app.services.feed.tickets import TICKET_PREFIX, hash_ticket
from tests.conftest import API, Caller


def _events(campaign_id: str) -> str:
    return f"{API}/campaigns/{campaign_id}/events"


def test_a_stream_without_credentials_is_401_and_says_how_to_authenticate(client, make_campaign):
    campaign = make_campaign()
    response = client.get(_events(campaign["id"]))
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert "ticket" in response.json()["detail"]


def test_a_stream_of_a_campaign_one_is_not_a_member_of_is_404(client, make_campaign, outsider):
    campaign = make_campaign()
    assert client.get(_events(campaign["id"]), headers=outsider.headers).status_code == 404
    assert client.get(_events(str(uuid.uuid4())), headers=outsider.headers).status_code == 404


@pytest.mark.parametrize("last_event_id", ["abc", "-1", "99999999999"])
def test_a_Last_Event_ID_that_is_not_a_seq_is_422(client, make_campaign, gm, last_event_id):
    campaign = make_campaign()
    response = client.get(
        _events(campaign["id"]), headers={**gm.headers, "Last-Event-ID": last_event_id}
    )
    assert response.status_code == 422, response.text
    assert "Last-Event-ID" in response.json()["detail"]


def test_after_seq_out_of_range_is_422(client, make_campaign, gm):
    campaign = make_campaign()
    response = client.get(_events(campaign["id"]), params={"after_seq": -1}, headers=gm.headers)
    assert response.status_code == 422


def test_a_ticket_is_issued_to_members_stored_hashed_and_expires_in_a_minute(
    client, session, make_campaign, player
):
    campaign = make_campaign(players=(player,))
    response = client.post(f"{_events(campaign['id'])}/ticket", headers=player.headers)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["ticket"].startswith(TICKET_PREFIX)
    assert body["url"] == f"{_events(campaign['id'])}?ticket={body['ticket']}"
    stored = session.exec(
        select(StreamTicket).where(StreamTicket.campaign_id == uuid.UUID(campaign["id"]))
    ).one()
    assert stored.ticket_hash == hash_ticket(body["ticket"]) != body["ticket"]
    assert stored.user_id == uuid.UUID(player.id)
    lifetime = stored.expires_at - utcnow()
    assert timedelta(seconds=50) < lifetime <= timedelta(seconds=60)


def test_a_ticket_is_refused_to_outsiders(client, make_campaign, outsider):
    campaign = make_campaign()
    response = client.post(f"{_events(campaign['id'])}/ticket", headers=outsider.headers)
    assert response.status_code == 404


def test_an_unknown_ticket_is_401_and_spends_nothing(client, make_campaign):
    campaign = make_campaign()
    response = client.get(_events(campaign["id"]), params={"ticket": TICKET_PREFIX + "nope"})
    assert response.status_code == 401
    assert "unknown or already used" in response.json()["detail"]


def test_an_expired_ticket_is_401_and_spent(client, session, make_campaign, gm):
    campaign = make_campaign()
    ticket = client.post(f"{_events(campaign['id'])}/ticket", headers=gm.headers).json()
    of_campaign = select(StreamTicket).where(StreamTicket.campaign_id == uuid.UUID(campaign["id"]))
    stored = session.exec(of_campaign).one()
    stored.expires_at = utcnow() - timedelta(seconds=1)
    session.add(stored)
    session.commit()
    response = client.get(_events(campaign["id"]), params={"ticket": ticket["ticket"]})
    assert response.status_code == 401
    assert "expired" in response.json()["detail"]
    assert session.exec(of_campaign).all() == []


def test_a_ticket_for_one_campaign_opens_no_other(client, make_campaign, gm):
    first, second = make_campaign(), make_campaign(name="Autre")
    ticket = client.post(f"{_events(first['id'])}/ticket", headers=gm.headers).json()
    response = client.get(_events(second["id"]), params={"ticket": ticket["ticket"]})
    assert response.status_code == 401


def test_the_stream_is_documented_as_text_event_stream(client):
    document = client.get("/openapi.json").json()
    operation = document["paths"][f"{API}/campaigns/{{campaign_id}}/events"]["get"]
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert {"401", "404", "422", "429"} <= set(operation["responses"])


# --- the broker, without a database --------------------------------------------------------


def test_a_notice_survives_its_trip_through_NOTIFY():
    notice = Notice(uuid.uuid4(), 42, {"members", f"requests:{uuid.uuid4()}"})
    parsed = Notice.parse(notice.payload())
    assert (parsed.campaign_id, parsed.seq, parsed.topics) == (
        notice.campaign_id,
        notice.seq,
        notice.topics,
    )


@pytest.mark.parametrize(
    ("kinds", "kind", "expected"),
    [
        ([], "dice", True),
        (["dice"], "dice", True),
        (["fabulae."], "fabulae.test", True),
        (["fabulae."], "vampire.action", False),
        (["fabulae"], "fabulae.test", False),  # a prefix ends with its dot
        (["vampire.action"], "vampire.action_retry", False),
    ],
)
def test_webhook_kinds_match_exactly_or_by_dotted_prefix(kinds, kind, expected):
    assert matches(kinds, kind) is expected


def _user(caller: Caller) -> User:
    return User(id=uuid.UUID(caller.id), name=caller.name, api_key_hash="x")


def test_a_stream_that_falls_too_far_behind_is_sent_back_to_the_log(gm):
    async def scenario() -> Subscriber:
        subscriber = Subscriber(uuid.uuid4(), Viewer(_user(gm), "en", None), "player")  # type: ignore[arg-type]
        for seq in range(QUEUE_LIMIT + 5):
            subscriber.offer([Event("dice", "{}", seq)])
        return subscriber

    subscriber = asyncio.run(scenario())
    assert subscriber.behind is True
    assert subscriber.queue.qsize() == QUEUE_LIMIT


def test_the_per_user_cap_refuses_one_stream_too_many(gm, monkeypatch):
    class Capped:
        feed_streams_per_user = 2
        feed_max_streams = 100
        feed_recheck_seconds = 60.0

    monkeypatch.setattr(broker_module, "get_settings", lambda: Capped)

    async def scenario() -> None:
        broker = Broker()
        campaign_id = uuid.uuid4()
        viewer = Viewer(_user(gm), "en", None)  # type: ignore[arg-type]
        joined = [Subscriber(campaign_id, viewer, "gm") for _ in range(2)]
        for subscriber in joined:
            broker.join(subscriber, 0)
        with pytest.raises(problems.TooManyRequests):
            broker.join(Subscriber(campaign_id, viewer, "gm"), 0)
        broker.leave(joined[0])
        broker.join(Subscriber(campaign_id, viewer, "gm"), 0)  # one closed: room again
        assert broker.streams == 2
        await broker.close()

    asyncio.run(scenario())
