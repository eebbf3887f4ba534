"""Plain dice rolls on a head the worker already knows (issue 23): one round trip, not four.

An audited roll locks its campaign's row, draws, appends and commits: `BEGIN`, the lock,
the append, `COMMIT`. When the worker itself made the campaign's last entry, and nobody else
appended between its last two rolls there, it knows what that lock would read: the head,
the campaign's fields, the open epoch, the roller's role. A plain dice roll (public, for no
character, no follow-up, no key) then draws from that head and appends in one statement in
autocommit, outside the request's session (which so begins nothing, and has nothing to
commit), whose update of the campaign's row takes effect only if the row is still the
version this worker left (its `xmin`), the roller still a member with that role and the
epoch still open with that client seed; only then is the entry inserted. The roll router
tries it first on the event loop, the statement awaited on one of the loop's connections
(app/core/loop_connections.py): a thread's hand-offs cost more than such a roll. A roll
queued behind another of its campaign tries it in its batch's thread, on a pooled
connection. Either way the roll is drawn and sealed first, and its append run after. This
process's listeners hear the roll as after a commit (notices.sent_in_autocommit); the other
processes hear it through the loop's relay, after the statement (feed/relay.py: a NOTIFY in
the statement would make the rolls' commits wait for each other's flush), or, in a thread,
from the statement itself (pg_notify). FAIR-5 holds as the lock holds it: the
seq is allocated by that update of the counter row, in the roll's own (one-statement)
transaction, and the unique key on (campaign_id, seq) stays the safety net. A roll's dice
depend on its seq and the epoch's seeds (FAIR-6), never on which request gets that seq, so
an attempt that finds the row changed has drawn dice nobody sees; the roll is then made
again the usual way, under the lock.

Whatever changes what such a roll reads changes the campaign's row, and so its version:
its options, session, scene, deletion and webhooks are columns of it; every write of a seed
epoch comes with an entry in the same transaction (the callers of update_current_epoch),
which advances the head; and a member's removal touches the row for this reason alone
(app/services/members.py). The version is what catches a change committed while the
statement waited for the row: the statement's checks of the membership and of the epoch
read them as they were when it began, and so catch only a change committed before.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import sqlalchemy as sa
from fastapi.responses import Response
from pydantic import BaseModel
from pydantic_core import to_json
from sqlalchemy import Engine, bindparam, event, func, insert, literal_column, update
from sqlalchemy.orm import SessionTransaction
from sqlmodel import Session

from app.core.driver_sql import DriverStatement
from app.core.loop_connections import NotConnected, connections_for
from app.core.problems import ProblemError
from app.engine.contract import Language
from app.engine.errors import EngineError
from app.engine.hidden import SPAN
from app.engine.registry import Registry
from app.models import Campaign, CampaignMember, LogEntry, SeedEpoch, User
from app.services.access import CurrentEpoch, LockedAccess, LockedCampaign, MemberAccess
from app.services.feed.notices import Notice, sent_in_autocommit, whole_in_statement
from app.services.feed.notices import discard as discard_notices
from app.services.feed.relay import NoticeRelay, relay_for
from app.services.idempotency import json_response
from app.services.log import CAMPAIGN_VERSION, ON_KNOWN_HEAD, SPAN_MARGIN, SealedEntry
from app.services.rolls import create_roll
from app.services.views import roll_view

# Campaigns a worker keeps a head for; past it, the least recently rolled is forgotten.
KNOWN_CAMPAIGNS = 4096

_campaigns = Campaign.__table__  # type: ignore[attr-defined]
_members = CampaignMember.__table__  # type: ignore[attr-defined]
_epochs = SeedEpoch.__table__  # type: ignore[attr-defined]
_log = LogEntry.__table__  # type: ignore[attr-defined]
_row_version = sa.cast(literal_column("campaign.xmin"), sa.Text)

_ADVANCED = (
    update(_campaigns)
    .where(
        _campaigns.c.id == bindparam("entry_campaign_id"),
        _row_version == bindparam("known_version"),
        # `+ 1` written out: a literal would be one more (anonymous) parameter.
        _campaigns.c.last_seq + literal_column("1") == bindparam("entry_seq"),
        # Read as the statement began: a change committed while it waited for the row is
        # caught by the row's version instead (see the module's docstring).
        sa.exists().where(
            _members.c.campaign_id == bindparam("entry_campaign_id"),
            _members.c.user_id == bindparam("known_user_id"),
            _members.c.role == bindparam("known_role"),
        ),
        sa.exists().where(
            _epochs.c.campaign_id == bindparam("entry_campaign_id"),
            _epochs.c.number == bindparam("entry_epoch"),
            _epochs.c.client_seed == bindparam("known_client_seed"),
            _epochs.c.closed_seq.is_(None),
        ),
    )
    .values(last_seq=bindparam("entry_seq"), last_hash=bindparam("entry_hash"))
    .returning(_row_version.label("version"))
    .cte("advanced")
)
_INSERTED = insert(_log).from_select(
    [column.name for column in _log.c],
    sa.select(
        *(bindparam(f"entry_{column.name}", type_=column.type) for column in _log.c)
    ).select_from(_ADVANCED),
)
# The entry is inserted only from the row the update returns: no update, no entry.
APPEND_ON_KNOWN_HEAD = (
    sa.select(
        _ADVANCED.c.version,
        func.pg_notify(bindparam("notify_channel"), bindparam("notify_payload")),
    )
    .select_from(_ADVANCED)
    .add_cte(_INSERTED.cte("appended"))
)
_APPEND_ON_KNOWN_HEAD = DriverStatement(APPEND_ON_KNOWN_HEAD)
# On the event loop, without the NOTIFY: the loop's relay sends the notice after the commit
# (feed/relay.py: a NOTIFY makes commits wait for each other's flush).
APPEND_ON_KNOWN_HEAD_QUIETLY = (
    sa.select(_ADVANCED.c.version).select_from(_ADVANCED).add_cte(_INSERTED.cte("appended"))
)
_APPEND_ON_KNOWN_HEAD_QUIETLY = DriverStatement(APPEND_ON_KNOWN_HEAD_QUIETLY)


class HeadMoved(Exception):
    """The campaign's row is no longer the version this worker knew: nothing was written."""


@dataclass(frozen=True, slots=True)
class KnownHead:
    """What the campaign's lock read at this worker's last roll there, as that roll left it."""

    campaign: LockedCampaign
    epoch: CurrentEpoch
    version: str  # the campaign row's xmin once that roll committed
    roles: Mapping[uuid.UUID, str]
    quiet: bool  # nobody else appended between this worker's last two rolls there


class KnownHeads:
    """The heads a worker knows, by campaign; thread-safe, bounded."""

    def __init__(self, size: int = KNOWN_CAMPAIGNS) -> None:
        self._lock = threading.Lock()
        self._heads: OrderedDict[uuid.UUID, KnownHead] = OrderedDict()
        self._size = size

    def take(self, campaign_id: uuid.UUID, user_id: uuid.UUID) -> KnownHead | None:
        """The campaign's known head if this user's plain dice roll may use it (`usable`),
        forgotten until that roll remembers the next: two rolls never draw from one head.
        A head not usable stays, for the roll made under the lock to compare with."""
        with self._lock:
            known = self._heads.get(campaign_id)
            if known is None or not usable(known, user_id):
                return None
            del self._heads[campaign_id]
            return known

    def forget(self, campaign_id: uuid.UUID) -> None:
        with self._lock:
            self._heads.pop(campaign_id, None)

    def remember(
        self,
        access: LockedAccess,
        version: str,
        *,
        before: LockedCampaign | None = None,
        taken: KnownHead | None = None,
    ) -> None:
        """The head `access` left, committed as `version`: after a roll made under the lock,
        whose lock read `before`; or after one made on the head `taken`."""
        epoch = access.epoch
        if epoch is None or epoch.first_roll_seq is None or access.campaign.webhooks:
            self.forget(access.campaign.id)  # never usable (see `usable`)
            return
        campaign_id = access.campaign.id
        with self._lock:
            known = taken if taken is not None else self._heads.pop(campaign_id, None)
            # Quiet: nobody else appended since the head this worker knew.
            quiet = taken is not None or (
                known is not None
                and before is not None
                and (known.campaign.last_seq, known.campaign.last_hash)
                == (before.last_seq, before.last_hash)
            )
            roles = dict(known.roles) if known is not None else {}
            roles[access.user.id] = access.role
            self._heads[campaign_id] = KnownHead(
                replace(access.campaign), replace(epoch), version, roles, quiet
            )
            while len(self._heads) > self._size:
                self._heads.popitem(last=False)


known_heads = KnownHeads()


def is_plain_dice(body: BaseModel) -> bool:
    """A roll whose whole effect is its entry: public generic dice, for no character."""
    return (
        getattr(body, "kind", None) == "dice"
        and getattr(body, "character_id", None) is None
        and getattr(body, "visibility", None) == "public"
    )


def usable(known: KnownHead, user_id: uuid.UUID) -> bool:
    """Whether a plain dice roll by this user may be made on this head: the worker's last two
    rolls there saw nobody else append; the epoch has served a roll already (its first sets
    first_roll_seq, FAIR-3), so its client seed is settled; no webhook waits for entries
    (a delivery is written with the entry); and the roll will not rotate the epoch, which
    writes entries of its own (FAIR-16)."""
    campaign, epoch = known.campaign, known.epoch
    return (
        known.quiet
        and user_id in known.roles
        and epoch.first_roll_seq is not None
        and not campaign.webhooks
        and campaign.deleted_at is None
        and campaign.last_seq + 2 < epoch.opened_seq + SPAN - SPAN_MARGIN
    )


def may_try(session: Session) -> bool:
    """Only a request's own session on PostgreSQL through psycopg, with no transaction
    begun: the append runs in autocommit on a connection of its engine."""
    bind = session.get_bind()
    return (
        isinstance(bind, Engine)
        and bind.dialect.name == "postgresql"
        and bind.dialect.driver == "psycopg"
        and not session.in_transaction()
    )


def _engine(session: Session) -> Engine:
    bind = session.get_bind()
    assert isinstance(bind, Engine)  # may_try
    return bind


@dataclass(frozen=True, slots=True)
class Attempt:
    """A roll drawn and sealed on a known head, its append not yet run."""

    known: KnownHead
    access: LockedAccess
    entry: SealedEntry
    params: dict[str, Any]  # the append's, with the head's conditions


def attempt_on_known_head(
    registry: Registry, session: Session, user: User, campaign_id: uuid.UUID, body: BaseModel
) -> Attempt | None:
    """The roll made on the head this worker knows, up to its append; or None, having written
    nothing, when it is to be made under the lock (no head known or usable, or the roll
    refused: the lock's path gives the answer every other roll gets).

    The roll runs as under the lock, with the access the lock would have read; its append's
    parameters are kept for the conditional statement, run by the caller. A roll that did
    anything through its session (which begins no transaction for it) is made under the
    lock instead, as its work would be on another connection than the statement's.
    """
    if not (is_plain_dice(body) and may_try(session)):
        return None
    known = known_heads.take(campaign_id, user.id)
    if known is None:
        return None
    role = known.roles[user.id]
    appends: list[dict[str, Any]] = []

    def keep_append(session: Session, params: dict[str, Any]) -> str:
        if appends or session_holds_work(session):
            raise HeadMoved  # one entry, on the session's own connection: the lock's path
        appends.append(params)
        return ""  # the row's version, known once the statement has run

    session.info.pop(CAMPAIGN_VERSION, None)  # what an earlier transaction of it appended
    try:
        session.info[ON_KNOWN_HEAD] = keep_append
        access = MemberAccess(replace(known.campaign), user, role, replace(known.epoch), session)
        entry = create_roll(session, access, registry, body)
        if session_holds_work(session) or not appends or not whole_in_statement(session):
            raise HeadMoved
    except Exception as error:
        _leave(session)
        if not isinstance(error, HeadMoved | EngineError | ProblemError):
            raise
        return None
    finally:
        session.info.pop(ON_KNOWN_HEAD, None)
    session.info.pop(CAMPAIGN_VERSION, None)
    conditions = {
        "known_version": known.version,
        "known_user_id": user.id,
        "known_role": role,
        "known_client_seed": known.epoch.client_seed,
    }
    return Attempt(known, access, entry, {**appends[0], **conditions})


def answered(
    registry: Registry,
    session: Session,
    attempt: Attempt,
    appended: tuple[Any, ...] | None,
    language: Language,
    relay: NoticeRelay | None = None,
) -> Response | None:
    """The attempt's answer once its statement ran (`appended`, its row), or None when the
    row had changed and nothing was written: the roll is then made under the lock. The
    feed's notice goes through `relay` when the statement did not send it."""
    if appended is None:
        _leave(session)
        return None
    for notice in sent_in_autocommit(session):  # heard here; and by the other processes
        if relay is not None:  # through the loop's relay; in a thread, the statement's NOTIFY
            relay.send(notice)
    known_heads.remember(attempt.access, str(appended[0]), taken=attempt.known)
    return json_response(to_json(roll_view(attempt.entry, attempt.access, registry, language)), 201)


def roll_on_known_head(
    registry: Registry,
    session: Session,
    user: User,
    campaign_id: uuid.UUID,
    body: BaseModel,
    language: Language,
) -> Response | None:
    """In a thread: the roll made on the head this worker knows, its statement run in
    autocommit on a pooled connection of the session's engine; or None, having written
    nothing, when it is to be made under the lock."""
    attempt = attempt_on_known_head(registry, session, user, campaign_id, body)
    if attempt is None:
        return None
    try:
        appended = _APPEND_ON_KNOWN_HEAD.first_in_autocommit(_engine(session), attempt.params)
    except BaseException:
        _leave(session)
        raise
    return answered(registry, session, attempt, appended, language)


async def roll_on_known_head_on_loop(
    registry: Registry,
    session: Session,
    user: User,
    campaign_id: uuid.UUID,
    body: BaseModel,
    language: Language,
) -> Response | None:
    """On the event loop: the same, its statement awaited on one of the loop's connections
    (app/core/loop_connections.py), which spares the roll its thread's hand-offs; None as
    well where the loop has none (SQLite, a loop the app does not serve on)."""
    connections = connections_for(_engine(session)) if may_try(session) else None
    if connections is None:
        return None
    attempt = attempt_on_known_head(registry, session, user, campaign_id, body)
    if attempt is None:
        return None
    try:
        appended = await _APPEND_ON_KNOWN_HEAD_QUIETLY.first_on_loop(connections, attempt.params)
    except NotConnected:
        _leave(session)
        return None  # nothing sent: the pool's connections may still serve it, under the lock
    except BaseException:
        _leave(session)
        # The statement may have committed before its answer was lost (a dropped connection,
        # a cancelled request): the streams are woken all the same, and a notice of nothing
        # written only has them read nothing new.
        relay_for(connections).send(Notice(campaign_id, int(attempt.entry.data["seq"])))
        raise
    return answered(registry, session, attempt, appended, language, relay_for(connections))


def remember_locked_roll(session: Session, before: LockedCampaign, access: LockedAccess) -> None:
    """After a roll made under the lock committed: the head it left, on PostgreSQL."""
    version = session.info.pop(CAMPAIGN_VERSION, None)
    if version is None:
        known_heads.forget(access.campaign.id)
        return
    known_heads.remember(access, str(version), before=before)


def session_holds_work(session: Session) -> bool:
    """Whether the session began a transaction or holds changes not flushed yet."""
    return session.in_transaction() or bool(session.new or session.dirty or session.deleted)


@event.listens_for(Session, "after_transaction_create")
def _nothing_through_the_session(session: Session, transaction: SessionTransaction) -> None:
    """A roll on a known head does nothing through its session: what it would read or write
    there belongs under the lock, and on the event loop it would wait for a connection and
    the database with the loop stopped. It is refused before anything is sent, and the
    lock's path makes the roll."""
    if ON_KNOWN_HEAD in session.info and transaction.parent is None:
        raise HeadMoved


def _leave(session: Session) -> None:
    """Back to a session with no transaction, whose appends take the lock's path."""
    session.info.pop(ON_KNOWN_HEAD, None)
    session.info.pop(CAMPAIGN_VERSION, None)
    discard_notices(session)
    session.rollback()
    session.expunge_all()
