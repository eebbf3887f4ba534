"""Who may see and change what: campaign membership and roles."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar, overload

import sqlalchemy as sa
from sqlalchemy import bindparam, update
from sqlmodel import Session, col, select

from app.core.driver_sql import DriverStatement
from app.core.problems import Forbidden, NotFound
from app.models import (
    Campaign,
    CampaignMember,
    Character,
    DisclosedEntry,
    Encounter,
    SeedEpoch,
    User,
)


@dataclass(slots=True)
class LockedCampaign:
    """A campaign row this transaction holds locked (FAIR-5): what the rules read of it,
    and the head of its log, which every append advances.

    Read with Core, not loaded as an ORM object: loading the campaign and its epoch as ORM
    entities took about a tenth of an audited roll's server CPU. Whatever changes the row
    does it with `update_locked_campaign`.
    """

    id: uuid.UUID
    system: str
    options: dict[str, Any]
    current_session: int
    current_scene: int
    current_epoch: int
    last_seq: int
    last_hash: str
    deleted_at: datetime | None
    webhooks: int

    @classmethod
    def created(cls, campaign: Campaign) -> LockedCampaign:
        """A campaign this transaction has just inserted: nobody else can see it yet."""
        return cls(*(getattr(campaign, name) for name in _LOCKED_CAMPAIGN_FIELDS))


@dataclass(slots=True)
class CurrentEpoch:
    """The campaign's open seed epoch, read with the lock (FAIR-1..3)."""

    number: int
    server_seed: str
    commitment: str
    client_seed: str
    first_roll_seq: int | None
    opened_seq: int
    # FAIR-16: hex; None on an epoch opened before hidden rolls (it keys nothing).
    hidden_seed: str | None


CampaignT = TypeVar("CampaignT", Campaign, LockedCampaign)


@dataclass
class MemberAccess(Generic[CampaignT]):
    """A campaign as one member sees it: the ORM row to read, or the row locked to write."""

    campaign: CampaignT
    user: User
    role: str
    # Read with the lock; None for a campaign from before the audit log (no epoch yet).
    epoch: CurrentEpoch | None = None
    # The request's session, to read on demand what only some requests need.
    session: Session | None = field(default=None, repr=False, compare=False)
    # What disclosed() read, or was given by a reader of the same moment (the feed's room
    # reads it once for all its viewers).
    disclosed_seqs: set[int] | None = field(default=None, repr=False, compare=False)

    def disclosed(self) -> set[int]:
        """FAIR-19: seqs of the hidden entries the GM disclosed to every member, read once
        and only when a hidden entry is shown to someone its visibility excludes."""
        if self.disclosed_seqs is None:
            if self.session is None:
                raise RuntimeError("this access was made without a session")
            rows = self.session.execute(_DISCLOSED, {"campaign_id": self.campaign.id})
            self.disclosed_seqs = {row[0] for row in rows}
        return self.disclosed_seqs

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"

    def require_gm(self, action: str) -> None:
        if not self.is_gm:
            raise Forbidden(f"only the campaign's GM may {action}")


# What most services take: they read the campaign the same way whether it is locked.
CampaignAccess = MemberAccess[Any]
LockedAccess = MemberAccess[LockedCampaign]


def campaign_not_found(campaign_id: uuid.UUID) -> NotFound:
    # The same answer for "does not exist" and "you are not a member": existence stays private.
    return NotFound(f"campaign {campaign_id} not found, or you are not one of its members")


_campaigns = Campaign.__table__  # type: ignore[attr-defined]
_epochs = SeedEpoch.__table__  # type: ignore[attr-defined]
_members = CampaignMember.__table__  # type: ignore[attr-defined]
_LOCKED_CAMPAIGN_FIELDS = tuple(field.name for field in fields(LockedCampaign))
_CURRENT_EPOCH_FIELDS = tuple(field.name for field in fields(CurrentEpoch))

# Built once: every request reads its campaign, and rebuilding the statement (and its cache
# key) cost more than running it.
_ACCESS = (
    select(Campaign, CampaignMember.role)
    .join(CampaignMember, col(CampaignMember.campaign_id) == col(Campaign.id))
    .where(Campaign.id == bindparam("campaign_id"), CampaignMember.user_id == bindparam("user_id"))
    # Writers change the row with Core statements (update_locked_campaign, appends): a copy
    # already in the session must take the row as it is now.
    .execution_options(populate_existing=True)
)
# The same, with one row per character among `character_ids` (none: one row, no character).
_ACCESS_AND_CHARACTERS = _ACCESS.add_columns(Character).outerjoin(
    Character,
    (col(Character.campaign_id) == col(Campaign.id))
    & col(Character.id).in_(bindparam("character_ids", expanding=True)),
)
# FAIR-5: the writer's lock on the campaign row, with the caller's membership and the open
# seed epoch in the same query. All three rows are locked, not just the campaign's: under
# READ COMMITTED, a statement that waited for a lock re-reads only the rows it locks, and
# would otherwise miss what the transaction it waited for had just committed (a member
# removed, a client seed set, the epoch's first roll).
_CAMPAIGN_COLUMNS = [_campaigns.c[name] for name in _LOCKED_CAMPAIGN_FIELDS]
_MEMBER_OF = _campaigns.join(_members, _members.c.campaign_id == _campaigns.c.id)
_THE_MEMBER = (_campaigns.c.id == bindparam("campaign_id")) & (
    _members.c.user_id == bindparam("user_id")
)
# Columns in the order of LockedCampaign, then the role, then CurrentEpoch.
_LOCKED_ACCESS = (
    sa.select(
        *_CAMPAIGN_COLUMNS,
        _members.c.role,
        *(_epochs.c[name] for name in _CURRENT_EPOCH_FIELDS),
    )
    .select_from(
        _MEMBER_OF.join(
            _epochs,
            (_epochs.c.campaign_id == _campaigns.c.id)
            & (_epochs.c.number == _campaigns.c.current_epoch),
        )
    )
    .where(_THE_MEMBER)
    .with_for_update(of=[_campaigns, _members, _epochs])
)
# On PostgreSQL, run on the driver's connection: every audited roll takes it (issue 23).
_LOCK_ACCESS = DriverStatement(_LOCKED_ACCESS)
# When that finds nothing: the campaign alone, then its epoch in a statement of its own.
_LOCKED_CAMPAIGN = (
    sa.select(*_CAMPAIGN_COLUMNS, _members.c.role)
    .select_from(_MEMBER_OF)
    .where(_THE_MEMBER)
    .with_for_update(of=[_campaigns, _members])
)
# Issue 23: the members of a batch of rolls (roll_batches.py), locked in one statement
# once the first of them holds the campaign's lock.
_LOCKED_ROLES = (
    sa.select(_members.c.user_id, _members.c.role)
    .where(
        _members.c.campaign_id == bindparam("campaign_id"),
        _members.c.user_id.in_(bindparam("user_ids", expanding=True)),
    )
    .with_for_update()
)
_disclosed_entries = DisclosedEntry.__table__  # type: ignore[attr-defined]
_DISCLOSED = sa.select(_disclosed_entries.c.seq).where(
    _disclosed_entries.c.campaign_id == bindparam("campaign_id")
)
_OPEN_EPOCH = sa.select(*(_epochs.c[name] for name in _CURRENT_EPOCH_FIELDS)).where(
    _epochs.c.campaign_id == bindparam("campaign_id"),
    _epochs.c.number == bindparam("number"),
)


@overload
def get_campaign_access(
    session: Session,
    campaign_id: uuid.UUID,
    user: User,
    *,
    lock: Literal[False] = False,
    include_deleted: bool = False,
) -> MemberAccess[Campaign]: ...
@overload
def get_campaign_access(
    session: Session,
    campaign_id: uuid.UUID,
    user: User,
    *,
    lock: Literal[True],
    include_deleted: bool = False,
) -> LockedAccess: ...
@overload
def get_campaign_access(
    session: Session,
    campaign_id: uuid.UUID,
    user: User,
    *,
    lock: bool,
    include_deleted: bool = False,
) -> CampaignAccess: ...
def get_campaign_access(
    session: Session,
    campaign_id: uuid.UUID,
    user: User,
    *,
    lock: bool = False,
    include_deleted: bool = False,
) -> CampaignAccess:
    """The campaign and the caller's role, or 404.

    `lock` holds the campaign row until commit (FAIR-5) and reads it as a LockedCampaign,
    with the caller's membership and the open seed epoch, locked in the same query:
    whoever locks is about to append to the log.
    """
    params = {"campaign_id": campaign_id, "user_id": user.id}
    access: CampaignAccess
    if lock:
        access = _lock(session, campaign_id, user, params)
    else:
        row: Any = session.execute(_ACCESS, params).first()
        if row is None:
            raise campaign_not_found(campaign_id)
        # Held here: the session's identity map keeps only objects someone references.
        access = MemberAccess(row[0], user, row[1])
    _attach_unless_deleted(access, session, include_deleted=include_deleted)
    return access


def _attach_unless_deleted(
    access: CampaignAccess, session: Session, *, include_deleted: bool
) -> None:
    """The access reads through the request's session; a deleted campaign is not found."""
    access.session = session
    if access.campaign.deleted_at is not None and not include_deleted:
        raise campaign_not_found(access.campaign.id)


def access_and_characters(
    session: Session, campaign_id: uuid.UUID, user: User, character_ids: Collection[uuid.UUID]
) -> tuple[MemberAccess[Campaign], list[Character]]:
    """`get_campaign_access`, with the campaign's characters among `character_ids` read in
    the same query (issue 23: a request that reads sheets without the lock, its odds, makes
    one round trip instead of two). They are left in the session, where the rules' lookups
    (`get_campaign_character`) find them; the caller holds the list while the rules run, as
    the session keeps only weak references. An id that names no character matches nothing,
    and a missing character is left for those lookups to refuse."""
    if not character_ids:
        return get_campaign_access(session, campaign_id, user), []
    ids = list(character_ids)
    params = {"campaign_id": campaign_id, "user_id": user.id, "character_ids": ids}
    rows: Sequence[Any] = session.execute(_ACCESS_AND_CHARACTERS, params).all()
    if not rows:
        raise campaign_not_found(campaign_id)
    access = MemberAccess(rows[0][0], user, rows[0][1])
    _attach_unless_deleted(access, session, include_deleted=False)
    return access, [row[2] for row in rows if row[2] is not None]


def _lock(
    session: Session, campaign_id: uuid.UUID, user: User, params: dict[str, Any]
) -> LockedAccess:
    size = len(_LOCKED_CAMPAIGN_FIELDS)
    epoch: CurrentEpoch | None
    row: Any = _LOCK_ACCESS.first(session, params)
    if row is not None:
        epoch = CurrentEpoch(*row[size + 1 :])
    else:
        # Not a member; or a campaign from before the audit log, with no epoch yet; or the
        # epoch rotated while this waited for the lock. Statements run from here on see
        # everything committed before the lock was granted.
        row = session.execute(_LOCKED_CAMPAIGN, params).first()
        if row is None:
            raise campaign_not_found(campaign_id)
        current = {"campaign_id": campaign_id, "number": row.current_epoch}
        found = session.execute(_OPEN_EPOCH, current).first()
        epoch = CurrentEpoch(*found) if found is not None else None
    return MemberAccess(LockedCampaign(*row[:size]), user, row[size], epoch, session)


def lock_member_roles(
    session: Session, held: LockedAccess, user_ids: set[uuid.UUID]
) -> dict[uuid.UUID, str]:
    """The roles of these users in the campaign `held` holds locked, their membership rows
    locked too, in one statement: what `get_campaign_access(lock=True)` would lock for
    each (a member removed meanwhile is then not missed). A user who is not a member is
    absent."""
    roles = {held.user.id: held.role}
    others = user_ids - roles.keys()
    if others:
        params = {"campaign_id": held.campaign.id, "user_ids": sorted(others)}
        roles.update((row.user_id, row.role) for row in session.execute(_LOCKED_ROLES, params))
    return roles


def locked_access_for(held: LockedAccess, user: User, role: str) -> LockedAccess:
    """Another member's access to the campaign `held` holds locked, in the same transaction:
    the campaign and open epoch as `held` leaves them (its appends, a rotated epoch), read
    from it instead of the database, as a new lock in this transaction would read them
    back. Copies: each access keeps the head of its own roll, as if locked in turn."""
    epoch = replace(held.epoch) if held.epoch is not None else None
    return MemberAccess(replace(held.campaign), user, role, epoch, held.session)


def update_locked_campaign(session: Session, campaign: LockedCampaign, **values: Any) -> None:
    """Change the locked campaign's row, and the locked view of it."""
    session.execute(update(_campaigns).where(_campaigns.c.id == campaign.id).values(**values))
    for name, value in values.items():
        if name in _LOCKED_CAMPAIGN_FIELDS:
            setattr(campaign, name, value)


def update_current_epoch(
    session: Session, campaign: LockedCampaign, epoch: CurrentEpoch, **values: Any
) -> None:
    """Change the open epoch's row (its client seed, first roll, close), and the view of it.
    Always beside an entry appended in the same transaction: a plain dice roll on a known
    head relies on every epoch change moving the campaign's row (known_head.py)."""
    session.execute(
        update(_epochs)
        .where(_epochs.c.campaign_id == campaign.id, _epochs.c.number == epoch.number)
        .values(**values)
    )
    for name, value in values.items():
        if name in _CURRENT_EPOCH_FIELDS:
            setattr(epoch, name, value)


def find_character(session: Session, character_id: uuid.UUID) -> Character | None:
    """A character by its id alone, for the routes that name no campaign (issue 23: keyed
    (campaign_id, id), it is found by the index on id; the rest goes by the full key)."""
    return session.exec(select(Character).where(col(Character.id) == character_id)).first()


def find_encounter(session: Session, encounter_id: uuid.UUID) -> Encounter | None:
    """An encounter by its id alone, for the routes that name no campaign (see above)."""
    return session.exec(select(Encounter).where(col(Encounter.id) == encounter_id)).first()


def get_character_access(
    session: Session, character_id: uuid.UUID, user: User, *, lock: bool = False
) -> tuple[Character, CampaignAccess]:
    """A character and the caller's access to its campaign, or 404 for non-members."""
    character = find_character(session, character_id)
    if character is None or character.deleted_at is not None:
        raise NotFound(f"character {character_id} not found, or not in one of your campaigns")
    try:
        access = get_campaign_access(session, character.campaign_id, user, lock=lock)
    except NotFound:
        raise NotFound(
            f"character {character_id} not found, or not in one of your campaigns"
        ) from None
    if lock:
        # Read again under the lock: a roll or an edit may have changed it while we waited.
        session.refresh(character)
        if character.deleted_at is not None:
            raise NotFound(f"character {character_id} not found, or not in one of your campaigns")
    return character, access


def get_campaign_character(
    session: Session, access: CampaignAccess, character_id: uuid.UUID
) -> Character:
    """A live character of this campaign, or 404."""
    character = session.get(Character, (access.campaign.id, character_id))
    if character is None or character.deleted_at is not None:
        raise NotFound(f"character {character_id} is not in campaign {access.campaign.id}")
    return character


def can_edit_character(access: CampaignAccess, character: Character) -> bool:
    """The GM edits everything; a player edits only their own PCs."""
    return access.is_gm or (character.kind == "pc" and character.owner_id == access.user.id)


def makes_choices_of(access: CampaignAccess, character: Character, hidden: bool) -> bool:
    """Whether the caller makes the character's own choices in a roll (its defense, its
    talents, its Absorb): a player for their PCs; the GM for NPCs and PCs no player plays,
    and for a player's PC only in a roll hidden from that player."""
    if not access.is_gm:
        return can_edit_character(access, character)
    played = character.kind == "pc" and character.owner_id not in (None, access.user.id)
    return hidden or not played


# The log's head of a campaign the caller is a member of: a verification of a head already
# verified is answered from its cache, and needs no more of the campaign than this.
_READABLE_HEAD = DriverStatement(
    sa.select(
        _campaigns.c.last_seq, _campaigns.c.last_hash, _campaigns.c.deleted_at, _members.c.role
    )
    .select_from(_MEMBER_OF)
    .where(_THE_MEMBER)
)


def _may_read_log(deleted_at: Any, role: str) -> bool:
    """FAIR-12: members read the log and the seeds; after a soft delete only the GM still
    can, so that every roll stays verifiable."""
    return deleted_at is None or role == "gm"


def readable_head(session: Session, campaign_id: uuid.UUID, user: User) -> tuple[int, str]:
    """The last seq and hash of the log, for whoever may read it (FAIR-12), or 404."""
    row = _READABLE_HEAD.first(session, {"campaign_id": campaign_id, "user_id": user.id})
    if row is None or not _may_read_log(row[2], row[3]):
        raise campaign_not_found(campaign_id)
    return int(row[0]), str(row[1])


def readable_access(session: Session, campaign_id: uuid.UUID, user: User) -> CampaignAccess:
    """The campaign as a member who may read its log sees it (FAIR-12), or 404."""
    access = get_campaign_access(session, campaign_id, user, include_deleted=True)
    if not _may_read_log(access.campaign.deleted_at, access.role):
        raise campaign_not_found(campaign_id)
    return access
