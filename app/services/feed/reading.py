"""What the event streams read from the database, each call in a worker thread with a short
session of its own: who follows, the entries they missed, and what a room hands out."""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter
from sqlmodel import Session, col, select

from app.core.database import new_read_session
from app.core.problems import NotFound
from app.engine.contract import Language
from app.engine.registry import Registry
from app.models import Campaign, CampaignMember, Encounter, LogEntry, User
from app.models.typed import api_models
from app.services import encounters as encounter_service
from app.services.access import CampaignAccess, MemberAccess, readable_access
from app.services.roll_requests import get_request
from app.services.views import (
    FollowUps,
    annotate_follow_ups,
    can_see,
    may_open,
    public_view,
    read_follow_ups,
)

PAGE = 200
ROOM_READ = 2000  # a room far behind catches up over several reads


@dataclass(frozen=True)
class Event:
    """One server-sent event: `seq` is its id when it is a log entry."""

    event: str
    data: str
    seq: int | None = None


@dataclass(frozen=True)
class Viewer:
    """Whose eyes a stream sees through: a room renders its entries once per sight (the
    viewers who may see them alike), in each viewer's language."""

    user: User
    language: Language
    registry: Registry

    @property
    def key(self) -> tuple[uuid.UUID, str, int]:
        return self.user.id, self.language, id(self.registry)


@dataclass
class Batch:
    """What one room read: every viewer's events, the log's new head, who may no longer
    follow (user id → why)."""

    head: int
    events: dict[tuple[uuid.UUID, str, int], list[Event]] = field(default_factory=dict)
    roles: dict[uuid.UUID, str] = field(default_factory=dict)
    ended: dict[uuid.UUID, str] = field(default_factory=dict)
    more: bool = False  # read again at once: the log holds more than one read takes


@functools.cache
def _entry_adapter(registry: Registry) -> TypeAdapter[Any]:
    return TypeAdapter(api_models(registry).entry)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _entry_events(
    session: Session,
    access: CampaignAccess,
    viewer: Viewer,
    rows: list[LogEntry],
    follow_ups: FollowUps | None = None,
) -> list[Event]:
    """The entries exactly as GET /log shows them to this viewer (FAIR-13 redaction)."""
    views = [public_view(row, access, viewer.registry, viewer.language) for row in rows]
    annotate_follow_ups(session, access, views, viewer.registry, viewer.language, follow_ups)
    adapter = _entry_adapter(viewer.registry)
    return [
        Event(
            event=str(view["kind"]),
            data=_json(
                adapter.dump_python(adapter.validate_python(view), mode="json", exclude_unset=True)
            ),
            seq=int(view["seq"]),
        )
        for view in views
    ]


def _sight(access: CampaignAccess, rows: list[LogEntry], follow_ups: FollowUps) -> Hashable:
    """What decides how this member sees these entries: which of them and of their
    follow-ups they may see (FAIR-13, FAIR-21) and whose committed values they may open
    (FAIR-18). public_view and annotate_follow_ups read nothing else of the member, so
    members of one sight are shown the same events, rendered once."""
    return (
        tuple((can_see(row, access), may_open(row, access)) for row in rows),
        follow_ups.sight(access),
    )


def _rows_after(session: Session, campaign_id: uuid.UUID, after_seq: int) -> list[LogEntry]:
    return list(
        session.exec(
            select(LogEntry)
            .where(col(LogEntry.campaign_id) == campaign_id, col(LogEntry.seq) > after_seq)
            .order_by(col(LogEntry.seq))
            .limit(PAGE)
        ).all()
    )


def open_stream(session: Session, campaign_id: uuid.UUID, user: User) -> tuple[str, int]:
    """The caller's role and the log's head, or 404 when they may not read the log; the
    request's transaction ends here, before the stream holds it open for hours."""
    try:
        access = readable_access(session, campaign_id, user)
        return access.role, access.campaign.last_seq
    finally:
        session.rollback()


def catch_up(campaign_id: uuid.UUID, viewer: Viewer, after_seq: int) -> list[Event]:
    """A page of the entries after `after_seq` as this viewer sees them (empty at the head);
    raises NotFound when the viewer may no longer read the log."""
    with new_read_session() as session:
        access = readable_access(session, campaign_id, viewer.user)
        rows = _rows_after(session, campaign_id, after_seq)
        return _entry_events(session, access, viewer, rows)


def read_room(
    campaign_id: uuid.UUID,
    after_seq: int,
    viewers: Iterable[tuple[Viewer, str]],
    topics: set[str],
    recheck: bool,
) -> Batch:
    """Everything new in a campaign since `after_seq`, once, then as each viewer sees it;
    members are read again when they changed or on the periodic recheck."""
    with new_read_session() as session:
        return room_batch(session, campaign_id, after_seq, viewers, topics, recheck)


def room_batch(
    session: Session,
    campaign_id: uuid.UUID,
    after_seq: int,
    viewers: Iterable[tuple[Viewer, str]],
    topics: set[str],
    recheck: bool,
) -> Batch:
    """read_room's batch, read in `session`."""
    viewers = list(viewers)
    campaign = session.get(Campaign, campaign_id)
    if campaign is None:
        return Batch(after_seq, ended={v.user.id: "the campaign is gone" for v, _ in viewers})
    roles = {viewer.user.id: role for viewer, role in viewers}
    batch = Batch(after_seq)
    if recheck or "members" in topics:
        found = dict(
            session.exec(
                select(CampaignMember.user_id, CampaignMember.role).where(
                    col(CampaignMember.campaign_id) == campaign_id,
                    col(CampaignMember.user_id).in_(list(roles)),
                )
            ).all()
        )
        for user_id in roles:
            role = found.get(user_id)
            if role is None:
                batch.ended[user_id] = "you are no longer a member of this campaign"
            elif campaign.deleted_at is not None and role != "gm":
                batch.ended[user_id] = "the campaign was deleted"
            else:
                roles[user_id] = role
        batch.roles = {k: v for k, v in roles.items() if k not in batch.ended}
    rows: list[LogEntry] = []
    while len(rows) < ROOM_READ:
        page = _rows_after(session, campaign_id, rows[-1].seq if rows else after_seq)
        rows += page
        batch.more = len(page) == PAGE
        if not batch.more:
            break
    follow_ups = None
    if rows:
        batch.head = rows[-1].seq
        follow_ups = read_follow_ups(session, campaign_id, [row.seq for row in rows])
    # Ten members of a table mostly see an entry alike: each sight is rendered once.
    rendered: dict[Hashable, list[Event]] = {}
    disclosed: set[int] | None = None  # FAIR-19, read at most once for all viewers
    for viewer, _ in viewers:
        if viewer.user.id in batch.ended or viewer.key in batch.events:
            continue
        access = MemberAccess(
            campaign,
            viewer.user,
            roles[viewer.user.id],
            session=session,
            disclosed_seqs=disclosed,
        )
        events: list[Event] = []
        if follow_ups is not None:
            sight = (viewer.language, id(viewer.registry), _sight(access, rows, follow_ups))
            shown = rendered.get(sight)
            if shown is None:
                shown = rendered[sight] = _entry_events(session, access, viewer, rows, follow_ups)
            events = shown
        changes = _changes(session, access, viewer, topics)
        disclosed = access.disclosed_seqs
        batch.events[viewer.key] = events + changes if changes else events
    return batch


def _changes(
    session: Session, access: CampaignAccess, viewer: Viewer, topics: set[str]
) -> list[Event]:
    """Roll requests and encounters that changed, as GET shows each to this viewer."""
    events = []
    for topic in sorted(topics):
        name, _, item = topic.partition(":")
        if not item:
            continue
        try:
            if name == "requests":
                request = get_request(session, access, uuid.UUID(item))
                events.append(Event("roll_request", request.model_dump_json()))
            elif name == "encounters":
                encounter = session.get(Encounter, (access.campaign.id, uuid.UUID(item)))
                if encounter is None:
                    continue
                models = api_models(viewer.registry)
                view = models.encounter.model_validate(
                    encounter_service.view(session, access, viewer.registry, encounter)
                )
                events.append(Event("encounter", view.model_dump_json(exclude_unset=True)))
        except NotFound:
            continue  # not this viewer's to see
    return events
