"""What a transaction tells the feed when it commits, and the webhook outbox it fills.

Services note what changed (`note_entry`, `note_change`) in the session. Just before the
commit, the session writes the webhook deliveries of its new entries (the outbox: committed
with the entries or not at all) and, on PostgreSQL, a NOTIFY that PostgreSQL delivers to
every listening process only if the transaction commits. On SQLite (one process), the
notice is published to this process's streams once the commit has happened.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson
from sqlalchemy import event, insert, select, text
from sqlalchemy.orm import Session

from app.models import Webhook, WebhookDelivery, utcnow

CHANNEL = "nocturne_feed"
# Roll requests and encounters change without an entry of their own; members change who
# may read what.
Topic = Literal["members", "requests", "encounters"]

_PENDING = "feed_pending"
_COMMITTED = "feed_committed"
_webhooks = Webhook.__table__  # type: ignore[attr-defined]
_deliveries = WebhookDelivery.__table__  # type: ignore[attr-defined]


@dataclass
class Notice:
    """What one transaction changed in one campaign."""

    campaign_id: uuid.UUID
    seq: int = 0  # the log's head after it, 0 when it appended nothing
    topics: set[str] = field(default_factory=set)
    entries: list[tuple[int, str]] = field(default_factory=list)  # (seq, kind) appended
    webhooks: int = 0  # the campaign's registered webhooks, as read with its lock
    notified: str | None = None  # the payload a statement of the transaction already sent

    def payload(self) -> str:
        # orjson: written two or three times for every roll (issue 23), of strings and integers.
        notice = {"c": str(self.campaign_id), "s": self.seq, "t": sorted(self.topics)}
        return orjson.dumps(notice).decode()

    @classmethod
    def parse(cls, payload: str) -> Notice:
        data = orjson.loads(payload)
        return cls(uuid.UUID(data["c"]), int(data["s"]), set(data["t"]))


def _notice(session: Session, campaign_id: uuid.UUID) -> Notice:
    pending: dict[uuid.UUID, Notice] = session.info.setdefault(_PENDING, {})
    found = pending.get(campaign_id)
    if found is None:
        found = pending[campaign_id] = Notice(campaign_id)
    return found


def note_entry(
    session: Session, campaign_id: uuid.UUID, seq: int, kind: str, webhooks: int
) -> None:
    """An entry was appended: its followers and its campaign's webhooks hear of it."""
    notice = _notice(session, campaign_id)
    notice.seq = max(notice.seq, seq)
    notice.entries.append((seq, kind))
    notice.webhooks = webhooks


def notify_in_statement(session: Session, campaign_id: uuid.UUID) -> str:
    """The payload of the campaign's notice as it stands, for a statement of the transaction
    to send with pg_notify (the append does, issue 23: one round trip less while the
    campaign's lock is held); the commit sends it again only if the notice changed since."""
    notice = _notice(session, campaign_id)
    notice.notified = notice.payload()
    return notice.notified


def note_change(
    session: Session, campaign_id: uuid.UUID, topic: Topic, item_id: uuid.UUID | None = None
) -> None:
    """Something the streams show besides entries changed: the members, or one roll request
    or encounter (`item_id`)."""
    _notice(session, campaign_id).topics.add(topic if item_id is None else f"{topic}:{item_id}")


def matches(kinds: list[str], kind: str) -> bool:
    """A webhook's kinds: exact names, or prefixes ending in a dot; none means every kind."""
    return not kinds or any(kind == k or (k.endswith(".") and kind.startswith(k)) for k in kinds)


def _fill_outbox(session: Session, notice: Notice) -> None:
    hooks = session.execute(
        select(_webhooks.c.id, _webhooks.c.kinds).where(
            _webhooks.c.campaign_id == notice.campaign_id, _webhooks.c.enabled.is_(True)
        )
    ).all()
    now = utcnow()
    rows = [
        {
            "campaign_id": notice.campaign_id,
            "id": uuid.uuid4(),
            "webhook_id": hook_id,
            "seq": seq,
            "kind": kind,
            "status": "pending",
            "attempts": 0,
            "next_attempt_at": now,
            "created_at": now,
        }
        for seq, kind in notice.entries
        for hook_id, kinds in hooks
        if matches(kinds, kind)
    ]
    if rows:
        session.execute(insert(_deliveries), rows)


_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


@event.listens_for(Session, "before_commit")
def _before_commit(session: Session) -> None:
    pending: dict[uuid.UUID, Notice] | None = session.info.pop(_PENDING, None)
    if not pending:
        return
    for notice in pending.values():
        if notice.entries and notice.webhooks:
            _fill_outbox(session, notice)
    if session.get_bind().dialect.name == "postgresql":
        for notice in pending.values():
            payload = notice.payload()
            if payload != notice.notified:
                session.execute(_NOTIFY, {"channel": CHANNEL, "payload": payload})
    session.info[_COMMITTED] = list(pending.values())


# Who in this process hears of its own commits: the feed's broker (on SQLite, the only
# process; on PostgreSQL it hears every process's through LISTEN) and the webhook sender.
_local_listeners: list[Callable[[Notice], Any]] = []


def listen_locally(listener: Callable[[Notice], Any]) -> None:
    """Call `listener` with every notice this process commits, once it has committed."""
    if listener not in _local_listeners:
        _local_listeners.append(listener)


def stop_listening_locally(listener: Callable[[Notice], Any]) -> None:
    """`listener` hears no more of this process's commits."""
    if listener in _local_listeners:
        _local_listeners.remove(listener)


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    _heard_locally(session.info.pop(_COMMITTED, None) or ())


def _heard_locally(notices: Iterable[Notice]) -> None:
    for notice in notices:
        for listener in _local_listeners:
            listener(notice)


def whole_in_statement(session: Session) -> bool:
    """Whether the notices the session noted can all go without a commit (the append runs
    alone in autocommit, and its statement or, on the event loop, the relay after it sends
    them: feed/relay.py): none needs a webhook's delivery, written with its entry, and none
    changed since the payload the statement would send was written."""
    pending: dict[uuid.UUID, Notice] = session.info.get(_PENDING) or {}
    return not any(
        (notice.entries and notice.webhooks) or notice.payload() != notice.notified
        for notice in pending.values()
    )


def sent_in_autocommit(session: Session) -> list[Notice]:
    """The notices of an append its own statement made and committed, in autocommit (a roll
    on a known head, known_head.py): heard in this process as after a commit, and nothing
    left for a commit of the session to send. They are returned for the other processes:
    the statement sent them with pg_notify, or the caller sends them (feed/relay.py). The
    caller checks `whole_in_statement` before the statement runs: after it, a notice found
    wanting could only turn a roll already written into an error."""
    pending: dict[uuid.UUID, Notice] = session.info.pop(_PENDING, None) or {}
    _heard_locally(pending.values())
    return list(pending.values())


def discard(session: Session) -> None:
    """Nothing the session noted is sent: what it noted was not written."""
    session.info.pop(_PENDING, None)
    session.info.pop(_COMMITTED, None)


@event.listens_for(Session, "after_soft_rollback")
def _after_rollback(session: Session, _previous: Any) -> None:
    discard(session)
