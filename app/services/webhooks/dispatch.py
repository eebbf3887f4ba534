"""The sender: posts the outbox's due deliveries, signed the Standard Webhooks way, and
retries a failed one with exponential backoff until its webhook has failed for a day.

`dispatch_due` does one round: it claims due deliveries (a lease, committed: two workers
never post the same one at once; on PostgreSQL, FOR UPDATE SKIP LOCKED keeps their claims
apart), renders each one's payload on its first attempt and stores it (every retry posts
the same bytes under the same webhook-id), posts outside any transaction, then records
each attempt. `Sender` runs rounds in a thread of each process that posts.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
from pydantic_core import to_jsonable_python
from sqlalchemy import Engine, func, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session
from standardwebhooks.webhooks import Webhook as Signer

from app.core.database import ReadSession, reading_engine
from app.core.problems import Unprocessable
from app.core.settings import Settings, get_settings
from app.engine.registry import DEFAULT_REGISTRY
from app.models import Campaign, LogEntry, User, Webhook, WebhookAttempt, WebhookDelivery, utcnow
from app.services.access import MemberAccess
from app.services.feed import notices
from app.services.views import public_view
from app.services.webhooks.addresses import DEFAULT_PORTS, Target, check_url
from app.services.webhooks.registry import fail_pending

logger = logging.getLogger("nocturne.webhooks")

# Seconds before the next attempt, after the 1st, 2nd, ... failed one. The schedule lasts
# longer than a day, so a webhook that fails throughout is disabled (after
# WEBHOOK_DISABLE_AFTER_SECONDS) before its first delivery runs out of attempts.
RETRY_DELAYS: tuple[int, ...] = (5, 30, 120, 600, 3_600, 10_800, 21_600, 21_600, 21_600, 21_600)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
BATCH = 10
USER_AGENT = "Nocturne-Webhooks/1"
EVENT_TYPE = "log.entry"

_deliveries = WebhookDelivery.__table__  # type: ignore[attr-defined]
_webhooks = Webhook.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Claimed:
    """A delivery this round holds, with what posting it needs."""

    campaign_id: uuid.UUID
    id: uuid.UUID
    webhook_id: uuid.UUID
    url: str
    secret: str
    payload: str

    @property
    def message_id(self) -> str:
        """The webhook-id header: the same on every attempt, for receivers to deduplicate."""
        return f"msg_{self.id.hex}"


@dataclass(frozen=True)
class Outcome:
    """How one POST went."""

    status_code: int | None
    error: str | None
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300

    def reason(self) -> str:
        return self.error or f"HTTP {self.status_code}"


def _lease_seconds(settings: Settings) -> float:
    # Long enough for the whole batch to be posted in turn, each up to the timeout.
    return BATCH * (settings.webhook_timeout_seconds + 5) + 60


def render_payload(session: Session, campaign_id: uuid.UUID, seq: int) -> str:
    """The body of a delivery: the entry as a player of the campaign sees it, one who did
    not make it (a hidden roll is redacted unless the GM disclosed it, FAIR-13, FAIR-19)."""
    entry = session.get(LogEntry, (campaign_id, seq))
    campaign = session.get(Campaign, campaign_id)
    if entry is None or campaign is None:
        raise LookupError(f"no entry {seq} in campaign {campaign_id}")
    nobody = User(id=uuid.uuid4(), name="webhook", api_key_hash="")
    access = MemberAccess(campaign, nobody, "player", session=session)
    view = public_view(entry, access, DEFAULT_REGISTRY, "en")
    body = {
        "type": EVENT_TYPE,
        "timestamp": entry.created_at,
        "data": {"campaign_id": str(campaign_id), "entry": to_jsonable_python(view)},
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def has_due(session: Session, now: datetime) -> bool:
    """Whether any delivery is due: a cheap read before a claim takes the write lock."""
    found = session.execute(select(_deliveries.c.id).where(*_due(now)).limit(1)).first()
    session.rollback()
    return found is not None


def _due(now: datetime) -> tuple[Any, ...]:
    return (
        _deliveries.c.status == "pending",
        _deliveries.c.next_attempt_at <= now,
        (_deliveries.c.leased_until.is_(None)) | (_deliveries.c.leased_until < now),
    )


def claim(session: Session, now: datetime, settings: Settings, limit: int = BATCH) -> list[Claimed]:
    """Lease up to `limit` due deliveries of enabled webhooks, campaign by campaign, and
    render the payload of those never attempted.

    One transaction per campaign, as every transaction Nocturne runs (docs/scaling.md): on
    Citus, a claim then locks rows of one shard, where FOR UPDATE SKIP LOCKED across shards
    is refused. The campaigns come from a plain read, the one that waited longest first."""
    claimed: list[Claimed] = []
    for campaign_id in _due_campaigns(session, now, limit):
        if len(claimed) >= limit:
            break
        claimed += _claim_in(session, campaign_id, now, settings, limit - len(claimed))
    return claimed


def _due_campaigns(session: Session, now: datetime, limit: int) -> list[uuid.UUID]:
    """The campaigns with due deliveries of enabled webhooks, earliest due first; no lock."""
    earliest = func.min(_deliveries.c.next_attempt_at)
    query = (
        select(_deliveries.c.campaign_id)
        .join(
            _webhooks,
            (_webhooks.c.campaign_id == _deliveries.c.campaign_id)
            & (_webhooks.c.id == _deliveries.c.webhook_id),
        )
        .where(*_due(now), _webhooks.c.enabled.is_(True))
        .group_by(_deliveries.c.campaign_id)
        .order_by(earliest, _deliveries.c.campaign_id)
        .limit(limit)
    )
    found = list(session.execute(query).scalars())
    session.commit()  # the read's own transaction ends: each claim takes its own
    return found


def _claim_in(
    session: Session, campaign_id: uuid.UUID, now: datetime, settings: Settings, limit: int
) -> list[Claimed]:
    """One campaign's claim, committed: its lease on up to `limit` due deliveries."""
    query = (
        select(
            _deliveries.c.id,
            _deliveries.c.webhook_id,
            _deliveries.c.seq,
            _deliveries.c.payload,
            _webhooks.c.url,
            _webhooks.c.secret,
        )
        .join(
            _webhooks,
            (_webhooks.c.campaign_id == _deliveries.c.campaign_id)
            & (_webhooks.c.id == _deliveries.c.webhook_id),
        )
        .where(_deliveries.c.campaign_id == campaign_id, *_due(now), _webhooks.c.enabled.is_(True))
        .order_by(_deliveries.c.next_attempt_at, _deliveries.c.seq)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        # Another worker's claim in progress holds its rows: take the next ones instead.
        query = query.with_for_update(of=_deliveries, skip_locked=True)
    leased_until = now + timedelta(seconds=_lease_seconds(settings))
    claimed: list[Claimed] = []
    try:
        for row in session.execute(query).all():
            payload = row.payload
            values: dict[str, Any] = {"leased_until": leased_until}
            if payload is None:
                try:
                    payload = values["payload"] = render_payload(session, campaign_id, row.seq)
                except SQLAlchemyError:
                    raise  # the database's: the whole claim is tried again
                except Exception as exc:
                    # The entry's own: never posted, and never again in the others' way.
                    logger.exception("webhook delivery %s has no payload", row.id)
                    _give_up(session, campaign_id, row.id, now, f"no payload: {exc}")
                    continue
            session.execute(
                update(_deliveries)
                .where(_deliveries.c.campaign_id == campaign_id, _deliveries.c.id == row.id)
                .values(**values)
            )
            claimed.append(
                Claimed(campaign_id, row.id, row.webhook_id, row.url, row.secret, payload)
            )
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return claimed


def _give_up(
    session: Session, campaign_id: uuid.UUID, delivery_id: uuid.UUID, at: datetime, error: str
) -> None:
    session.execute(
        update(_deliveries)
        .where(_deliveries.c.campaign_id == campaign_id, _deliveries.c.id == delivery_id)
        .values(status="failed", attempts=_deliveries.c.attempts + 1)
    )
    session.add(
        WebhookAttempt(
            campaign_id=campaign_id,
            delivery_id=delivery_id,
            number=1,
            attempted_at=at,
            error=error[:300],
            duration_ms=0,
        )
    )


def _headers(delivery: Claimed, at: datetime) -> dict[str, str]:
    signature = Signer(delivery.secret).sign(delivery.message_id, at, delivery.payload)
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": delivery.message_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signature,
    }


def _pinned(target: Target, address: str) -> tuple[httpx.URL, dict[str, str], dict[str, Any]]:
    """The URL on one checked address, with the host's name in Host and in TLS (SNI and
    certificate check)."""
    name = f"[{target.host}]" if ":" in target.host else target.host
    default = DEFAULT_PORTS[target.url.scheme]
    host = name if target.port == default else f"{name}:{target.port}"
    extensions = {"sni_hostname": target.host} if target.url.scheme == "https" else {}
    return target.url.copy_with(host=address, fragment=None), {"host": host}, extensions


def post(client: httpx.Client, delivery: Claimed, at: datetime, settings: Settings) -> Outcome:
    """POST the delivery once: to an address checked just now, no redirect followed, the
    answer's body never read."""
    started = time.monotonic()

    def took() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        target = check_url(delivery.url, allow_private=settings.webhook_allow_private_addresses)
    except Unprocessable as refused:
        return Outcome(None, refused.detail.removeprefix("url: ")[:300], took())
    body = delivery.payload.encode("utf-8")
    headers = _headers(delivery, at)
    error = "no address to connect to"
    for address in target.addresses:
        url, host, extensions = _pinned(target, address)
        try:
            with client.stream(
                "POST", url, content=body, headers={**headers, **host}, extensions=extensions
            ) as response:
                return Outcome(response.status_code, None, took())
        except httpx.TimeoutException:
            return Outcome(None, f"timed out after {settings.webhook_timeout_seconds:g} s", took())
        except httpx.ConnectError as exc:
            error = f"could not connect to {address}: {str(exc) or type(exc).__name__}"
        except httpx.HTTPError as exc:
            return Outcome(None, f"{type(exc).__name__}: {exc}"[:300], took())
    return Outcome(None, error[:300], took())


def record(
    session: Session, delivery: Claimed, outcome: Outcome, at: datetime, settings: Settings
) -> bool:
    """Keep the attempt; schedule the next one, or disable a webhook failing for a day
    (True then)."""
    try:
        # The webhook's row first, as every change of a webhook and its deliveries takes
        # them (no deadlock); records of its deliveries take turns.
        webhook = session.get(
            Webhook,
            (delivery.campaign_id, delivery.webhook_id),
            populate_existing=True,
            with_for_update=True,
        )
        row = session.get(
            WebhookDelivery, (delivery.campaign_id, delivery.id), populate_existing=True
        )
        if webhook is None or row is None:  # deleted meanwhile, deliveries and all
            session.rollback()
            return False
        row.attempts += 1
        row.leased_until = None
        session.add(
            WebhookAttempt(
                campaign_id=row.campaign_id,
                delivery_id=row.id,
                number=row.attempts,
                attempted_at=at,
                status_code=outcome.status_code,
                error=outcome.error,
                duration_ms=outcome.duration_ms,
            )
        )
        disabled = False
        if outcome.ok:
            row.status = "delivered"
            if webhook.failing_since is not None:
                webhook.failing_since = None
                session.add(webhook)
        elif row.status == "pending":  # not given up meanwhile (its webhook disabled)
            disabled = _failing_too_long(webhook, outcome, at, settings)
            if disabled or row.attempts >= MAX_ATTEMPTS:
                row.status = "failed"
            else:
                row.next_attempt_at = at + timedelta(seconds=RETRY_DELAYS[row.attempts - 1])
        session.add(row)
        if disabled:
            session.flush()
            fail_pending(session, delivery.campaign_id, delivery.webhook_id)
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return disabled


def _failing_too_long(webhook: Webhook, outcome: Outcome, at: datetime, settings: Settings) -> bool:
    """Note the failure; disable the webhook when it has failed for long enough (a day)."""
    if webhook.failing_since is None:
        webhook.failing_since = at
        return False
    limit = timedelta(seconds=settings.webhook_disable_after_seconds)
    if not webhook.enabled or at - webhook.failing_since < limit:
        return False
    since = webhook.failing_since.isoformat(timespec="seconds")
    webhook.enabled = False
    webhook.disabled_reason = (
        f"disabled after failing for {_duration(settings.webhook_disable_after_seconds)} "
        f"(every delivery since {since} failed); the last error: {outcome.reason()}. "
        'Enable it again with PATCH {"enabled": true}'
    )[:300]
    webhook.updated_at = at
    logger.warning("webhook %s disabled: %s", webhook.id, webhook.disabled_reason)
    return True


def _duration(seconds: float) -> str:
    if seconds == 86_400:
        return "a day"
    if seconds >= 3_600:
        return f"{seconds / 3_600:g} hours"
    return f"{seconds:g} seconds"


def dispatch_due(
    session: Session,
    *,
    now: datetime | None = None,
    settings: Settings | None = None,
    client: httpx.Client | None = None,
    limit: int = BATCH,
) -> int:
    """One round: claim due deliveries, post each, record how it went; the number claimed.

    `now` is the clock of the whole round (tests jump a day with it); by default each
    attempt reads the time as it starts.
    """
    settings = settings or get_settings()
    claimed = claim(session, now or utcnow(), settings, limit)
    if not claimed:
        return 0
    disabled: set[uuid.UUID] = set()
    with _client(client, settings) as http:
        for delivery in claimed:
            if delivery.webhook_id in disabled:
                continue  # disabled by a failure of this round: its deliveries failed with it
            at = now or utcnow()
            try:
                outcome = post(http, delivery, at, settings)
            except Exception as exc:  # a bug of ours: the attempt fails, the round goes on
                logger.exception("webhook delivery %s: the POST failed", delivery.id)
                outcome = Outcome(None, f"the server failed to post: {type(exc).__name__}", 0)
            if record(session, delivery, outcome, at, settings):
                disabled.add(delivery.webhook_id)
    return len(claimed)


@contextmanager
def _client(given: httpx.Client | None, settings: Settings) -> Iterator[httpx.Client]:
    if given is not None:
        yield given
        return
    with http_client(settings) as client:
        yield client


def http_client(settings: Settings) -> httpx.Client:
    """A client for webhooks: no proxy from the environment (the address check must see
    where the POST goes), no redirect followed, and no connection kept: each POST connects
    to the address just checked, under its own host's name (TLS SNI)."""
    return httpx.Client(
        timeout=settings.webhook_timeout_seconds,
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(max_keepalive_connections=0),
    )


class Sender:
    """A thread posting due deliveries: woken by this process's commits that fill the
    outbox, and every second for retries and other processes' deliveries."""

    def __init__(self, engine: Engine, settings: Settings, interval: float = 1.0) -> None:
        # On SQLite the claim writes: its transaction takes the write lock at BEGIN.
        self._write = engine.execution_options(sqlite_begin="IMMEDIATE")
        # The poll each second reads outside a transaction (autocommit on PostgreSQL): its
        # ROLLBACK made psycopg drop every statement the connection had prepared.
        self._read = reading_engine(engine)
        self._settings = settings
        self._interval = interval
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def heard(self, notice: notices.Notice) -> None:
        if notice.entries and notice.webhooks:
            self._wake.set()

    def start(self) -> None:
        _current.append(self)
        notices.listen_locally(_wake_senders)
        self._thread = threading.Thread(target=self._run, name="webhook-sender", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        """Stop after the POST in progress, if any (a delivery left leased is posted again
        once its lease ends)."""
        self._stopping.set()
        self._wake.set()
        if self in _current:
            _current.remove(self)
        if self._thread is not None:
            self._thread.join(
                self._settings.webhook_timeout_seconds + 5 if timeout is None else timeout
            )
            if self._thread.is_alive():
                logger.warning("the webhook sender did not stop in time; it ends with the process")

    def _run(self) -> None:
        with http_client(self._settings) as client:
            while not self._stopping.is_set():
                posted = 0
                try:
                    posted = self._round(client)
                except Exception:
                    logger.exception("webhook round failed; trying again shortly")
                if posted < BATCH:
                    self._wake.wait(self._interval)
                    self._wake.clear()

    def _round(self, client: httpx.Client) -> int:
        with ReadSession(self._read, expire_on_commit=False) as read:
            if not has_due(read, utcnow()):
                return 0
        with Session(self._write, expire_on_commit=False) as session:
            return dispatch_due(session, settings=self._settings, client=client)


_current: list[Sender] = []


def _wake_senders(notice: notices.Notice) -> None:
    for sender in list(_current):
        sender.heard(notice)


def start_sender(engine: Engine, settings: Settings) -> Sender:
    """Start this process's sender (the app's lifespan does, when WEBHOOK_DELIVERY_ENABLED)."""
    sender = Sender(engine, settings)
    sender.start()
    return sender
