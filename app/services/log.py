"""The campaign log: appending sealed entries, seed epochs, what each member may see.

Every function that appends takes the campaign as locked by the caller
(`get_campaign_access(..., lock=True)`): the lock is what makes seq gap-free (FAIR-5).
"""

from __future__ import annotations

import copy
import json
import logging
import secrets
import uuid
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import ColumnElement, Text, bindparam, cast, insert, literal_column, update
from sqlmodel import Session, col, select

from app.core.problems import Conflict, NotFound
from app.engine import catalog
from app.engine.audit import Report, redact, revealed_seeds, seal, verify_log
from app.engine.dice import HmacDiceStream, commitment
from app.engine.errors import EngineError
from app.models import Campaign, Character, LogEntry, SeedEpoch
from app.services.access import (
    CampaignAccess,
    CurrentEpoch,
    LockedAccess,
    LockedCampaign,
    update_current_epoch,
    update_locked_campaign,
)

PAGE_FETCH = 200
logger = logging.getLogger("nocturne.rules")
_log_table = LogEntry.__table__  # type: ignore[attr-defined]
_campaign_table = Campaign.__table__  # type: ignore[attr-defined]
_epoch_table = SeedEpoch.__table__  # type: ignore[attr-defined]
# Parameters named apart from every column: an UPDATE would take a parameter named after
# one of its table's columns (campaign.created_at) as one more column to set.
LOG_INSERT = insert(_log_table).values(
    {column.name: bindparam(f"entry_{column.name}", type_=column.type) for column in _log_table.c}
)
HEAD_UPDATE = (
    update(_campaign_table)
    .where(_campaign_table.c.id == bindparam("entry_campaign_id"))
    .values(last_seq=bindparam("entry_seq"), last_hash=bindparam("entry_hash"))
)
# PostgreSQL runs both in one statement (a data-modifying CTE): one round trip less on
# every append. SQLite has no such CTE and takes them one at a time.
APPEND_AND_ADVANCE = HEAD_UPDATE.add_cte(LOG_INSERT.cte("appended"))


class Entry(Protocol):
    """What the views need of an entry: a stored row or one just appended."""

    @property
    def seq(self) -> int: ...
    @property
    def visibility(self) -> str: ...
    @property
    def actor_id(self) -> str: ...
    def as_entry(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class SealedEntry:
    """An entry just appended, exactly as it was hashed."""

    data: dict[str, Any]
    # Entries a rule set off in the same transaction (a panic roll after a stress 1).
    triggered: list[SealedEntry] = field(default_factory=list)

    @property
    def seq(self) -> int:
        return int(self.data["seq"])

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    @property
    def visibility(self) -> str:
        return str(self.data["visibility"])

    @property
    def actor_id(self) -> str:
        return str(self.data["actor_id"])

    @property
    def result(self) -> dict[str, Any]:
        return dict(self.data["result"])

    @property
    def effects(self) -> list[dict[str, Any]]:
        return list(self.data["effects"])

    def as_entry(self) -> dict[str, Any]:
        return dict(self.data)


def now_rfc3339() -> str:
    """FAIR-10: RFC 3339 UTC with microseconds, e.g. 2026-11-29T12:00:00.000000Z."""
    # isoformat is several times cheaper than strftime, and this runs on every append.
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def append_entry(
    session: Session,
    campaign: LockedCampaign,
    *,
    kind: str,
    actor_id: uuid.UUID,
    epoch: int | None = None,
    character_id: uuid.UUID | None = None,
    visibility: str = "public",
    request: dict[str, Any] | None = None,
    draws: list[dict[str, Any]] | None = None,
    result: dict[str, Any] | None = None,
    effects: list[dict[str, Any]] | None = None,
    follows: int | None = None,
) -> SealedEntry:
    """Seal the next entry onto the chain (FAIR-10/11) and advance the campaign's head."""
    if not isinstance(campaign, LockedCampaign):  # an ORM Campaign: read without the lock
        raise TypeError("append only to a campaign locked by get_campaign_access(lock=True)")
    seq = campaign.last_seq + 1
    content: dict[str, Any] = {
        "seq": seq,
        "epoch": epoch if epoch is not None else campaign.current_epoch,
        "kind": kind,
        "created_at": now_rfc3339(),
        "actor_id": str(actor_id),
        "character_id": str(character_id) if character_id else None,
        "visibility": visibility,
        "request": request or {},
        "draws": draws or [],
        "result": result or {},
        "effects": effects or [],
    }
    if follows is not None:
        content["follows"] = follows
    sealed = seal(content, campaign.last_hash)
    # Core statements: appending is the hot path, and the unit of work adds nothing here.
    row = {"campaign_id": campaign.id, "follows": None, **sealed}
    params = {f"entry_{name}": value for name, value in row.items()}
    if session.get_bind().dialect.name == "postgresql":
        session.execute(APPEND_AND_ADVANCE, params)
    else:
        session.execute(LOG_INSERT, params)
        session.execute(HEAD_UPDATE, params)
    campaign.last_seq = seq
    campaign.last_hash = sealed["hash"]
    return SealedEntry(sealed)


# --- seed epochs (FAIR-1..4) -------------------------------------------------------------


def open_epoch(session: Session, campaign: LockedCampaign, actor_id: uuid.UUID) -> CurrentEpoch:
    """A fresh secret seed; its commitment is published as an entry before any roll (FAIR-2)."""
    seed = secrets.token_bytes(32)
    number = campaign.current_epoch + 1
    digest = commitment(seed)
    entry = append_entry(
        session,
        campaign,
        kind="epoch_opened",
        actor_id=actor_id,
        epoch=number,
        result={"campaign_id": str(campaign.id), "commitment": digest},
    )
    epoch = CurrentEpoch(
        number=number,
        server_seed=seed.hex(),
        commitment=digest,
        client_seed="",
        first_roll_seq=None,
    )
    # Core like the rest of the epoch's writes: the session holds no SeedEpoch to flush.
    session.execute(
        insert(_epoch_table).values(
            campaign_id=campaign.id,
            number=number,
            server_seed=epoch.server_seed,
            commitment=digest,
            client_seed="",
            opened_seq=entry.seq,
        )
    )
    update_locked_campaign(session, campaign, current_epoch=number)
    return epoch


def current_epoch(session: Session, access: LockedAccess) -> CurrentEpoch:
    """The open epoch (read with the campaign lock), opened now for a pre-log campaign."""
    if access.epoch is None:
        access.epoch = open_epoch(session, access.campaign, access.user.id)
    return access.epoch


def rotate_epoch(session: Session, access: LockedAccess) -> None:
    """FAIR-4: close and reveal the current epoch, open the next, in one transaction."""
    access.require_gm("rotate the seed")
    campaign = access.campaign
    epoch = current_epoch(session, access)
    entry = append_entry(
        session,
        campaign,
        kind="epoch_closed",
        actor_id=access.user.id,
        epoch=epoch.number,
        result={"server_seed": epoch.server_seed, "commitment": epoch.commitment},
    )
    update_current_epoch(session, campaign, epoch, closed_seq=entry.seq)
    access.epoch = open_epoch(session, campaign, access.user.id)


def set_client_seed(session: Session, access: LockedAccess, client_seed: str) -> None:
    """FAIR-3: any member sets the client seed while the epoch has served no roll."""
    epoch = current_epoch(session, access)
    if epoch.first_roll_seq is not None:
        raise Conflict(
            f"epoch {epoch.number} already served a roll (seq {epoch.first_roll_seq}), so its "
            "client seed is frozen; the GM can rotate the seed to open a new epoch",
            rule="FAIR-3",
        )
    append_entry(
        session,
        access.campaign,
        kind="client_seed_set",
        actor_id=access.user.id,
        epoch=epoch.number,
        request={"client_seed": client_seed},
        result={"client_seed": client_seed},
    )
    update_current_epoch(session, access.campaign, epoch, client_seed=client_seed)


def list_epochs(session: Session, campaign: Campaign | LockedCampaign) -> list[SeedEpoch]:
    return list(
        session.exec(
            select(SeedEpoch)
            .where(SeedEpoch.campaign_id == campaign.id)
            .order_by(col(SeedEpoch.number))
            # Epochs are written with Core statements: never trust a copy already loaded.
            .execution_options(populate_existing=True)
        ).all()
    )


# --- rule entries -------------------------------------------------------------------------


def record_resolution(
    session: Session,
    access: LockedAccess,
    *,
    kind: str,
    request: dict[str, Any],
    character_id: uuid.UUID | None = None,
    visibility: str = "public",
    follows: int | None = None,
) -> SealedEntry:
    """Run the engine on the campaign's stream for the next seq, log it, apply its effects."""
    campaign = access.campaign
    epoch = current_epoch(session, access)
    seq = campaign.last_seq + 1
    dice = HmacDiceStream(
        bytes.fromhex(epoch.server_seed), str(campaign.id), epoch.number, epoch.client_seed, seq
    )
    try:
        resolution = catalog.resolve(kind, request, dice)
    except EngineError as exc:
        if dice.draws:
            # The next request gets this seq, and these dice: a refusal that depends on them
            # would show them unpaid. Rules refuse before drawing; this guards the mistake.
            logger.error("%s refused after drawing dice: %s", kind, exc.detail)
            raise type(exc)(
                f"{exc.rule or 'the rules'}: this request was refused; check its inputs",
                rule=exc.rule,
            ) from None
        raise
    entry = append_entry(
        session,
        campaign,
        kind=kind,
        actor_id=access.user.id,
        epoch=epoch.number,
        character_id=character_id,
        visibility=visibility,
        request=request,
        draws=[dict(draw) for draw in dice.draws],
        result=resolution.result,
        effects=resolution.effects,
        follows=follows,
    )
    apply_effects(session, campaign, resolution.effects)
    if catalog.is_roll_kind(kind) and epoch.first_roll_seq is None:
        update_current_epoch(session, campaign, epoch, first_roll_seq=entry.seq)
    return entry


def _set_path(document: dict[str, Any], path: str, value: Any) -> Any:
    """Set a dotted path in a sheet; returns the value it replaced."""
    *parents, leaf = path.split(".")
    node = document
    for part in parents:
        node = node.setdefault(part, {})
    before = node.get(leaf)
    node[leaf] = value
    return before


def apply_effects(
    session: Session, campaign: LockedCampaign, effects: list[dict[str, Any]]
) -> None:
    """Write the engine's sheet changes; each names the value it expects to replace."""
    sheets: dict[str, Character] = {}
    for effect in effects:
        character_id = effect.get("character_id")
        field = effect.get("field")
        if character_id is None or field is None or "after" not in effect:
            continue  # a narrative effect for the table, nothing to store
        character = sheets.get(character_id)
        if character is None:
            character = session.get(Character, uuid.UUID(character_id))
            if character is None or character.campaign_id != campaign.id:
                raise EngineError(f"effect on unknown character {character_id}")
            character.sheet = copy.deepcopy(character.sheet)
            sheets[character_id] = character
        before = _set_path(character.sheet, field, copy.deepcopy(effect["after"]))
        if "before" in effect and before != effect["before"]:
            raise EngineError(
                f"sheet of {character_id} changed under the rules: {field} was {before!r}, "
                f"expected {effect['before']!r}"
            )
    for character in sheets.values():
        session.add(character)


# --- reading the log (FAIR-13) -------------------------------------------------------------


def can_see(entry: Entry, access: CampaignAccess) -> bool:
    """public: everyone; gm and self: the roller and the GM; blind: the GM only."""
    if entry.visibility == "public" or access.is_gm:
        return True
    if entry.visibility in ("gm", "self"):
        return entry.actor_id == str(access.user.id)
    return False


def entry_view(entry: Entry, access: CampaignAccess) -> dict[str, Any]:
    """The entry as this member may see it, redacted when they may not (FAIR-13)."""
    full = entry.as_entry()
    return full if can_see(entry, access) else redact(full)


def public_view(entry: Entry, access: CampaignAccess) -> dict[str, Any]:
    """API shape of an entry: like the export, with `follows` always present when visible."""
    view = entry_view(entry, access)
    if not view.get("redacted"):
        view.setdefault("follows", None)
        view.setdefault("follow_ups", [])
    return view


def annotate_follow_ups(
    session: Session, access: CampaignAccess, views: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Add to each visible entry the follow-ups it received and where each stands.

    Derived for the API only (never hashed, never exported): a Talisman invocation shows
    `pending` until the GM's ruling follows it, then the ruling's status.
    """
    seqs = [view["seq"] for view in views if not view.get("redacted")]
    if not seqs:
        return views
    direct = _follow_up_rows(session, access, seqs)
    nested = _follow_up_rows(session, access, [row.seq for row in direct])
    latest_status = {row.follows: row.result.get("status") for row in nested}
    by_parent: dict[int, list[dict[str, Any]]] = {}
    for row in direct:
        item: dict[str, Any] = {"seq": row.seq, "kind": row.kind, "status": None}
        if can_see(row, access):
            item["status"] = latest_status.get(row.seq) or row.result.get("status")
        assert row.follows is not None
        by_parent.setdefault(row.follows, []).append(item)
    for view in views:
        if not view.get("redacted"):
            view["follow_ups"] = by_parent.get(view["seq"], [])
    return views


def _follow_up_rows(session: Session, access: CampaignAccess, seqs: list[int]) -> list[LogEntry]:
    if not seqs:
        return []
    return list(
        session.exec(
            select(LogEntry)
            .where(col(LogEntry.campaign_id) == access.campaign.id, col(LogEntry.follows).in_(seqs))
            .order_by(col(LogEntry.seq))
        ).all()
    )


def list_entries(
    session: Session,
    access: CampaignAccess,
    *,
    rolls_only: bool,
    after_seq: int,
    limit: int,
    character_id: uuid.UUID | None = None,
    kind: str | None = None,
) -> tuple[list[dict[str, Any]], int | None]:
    """Keyset page of entries after `after_seq`, and the cursor of the next page."""
    conditions = [col(LogEntry.campaign_id) == access.campaign.id]
    if rolls_only:
        roll_kinds = [name for name in catalog.KINDS if catalog.is_roll_kind(name)]
        conditions.append(col(LogEntry.kind).in_(roll_kinds))
    if kind is not None:
        conditions.append(col(LogEntry.kind) == kind)
    if character_id is not None:
        conditions.append(col(LogEntry.character_id) == str(character_id))
    views: list[dict[str, Any]] = []
    cursor = after_seq
    # Filtering by character must not reveal which hidden entries concern that character.
    hide_invisible = character_id is not None
    while True:
        rows = session.exec(
            select(LogEntry)
            .where(*conditions, col(LogEntry.seq) > cursor)
            .order_by(col(LogEntry.seq))
            .limit(PAGE_FETCH)
        ).all()
        for row in rows:
            cursor = row.seq
            if hide_invisible and not can_see(row, access):
                continue
            views.append(public_view(row, access))
            if len(views) == limit:
                return annotate_follow_ups(session, access, views), cursor
        if len(rows) < PAGE_FETCH:
            return annotate_follow_ups(session, access, views), None


def get_roll(session: Session, access: CampaignAccess, seq: int) -> LogEntry:
    entry = session.get(LogEntry, (access.campaign.id, seq))
    if entry is None or not catalog.is_roll_kind(entry.kind):
        raise NotFound(f"no roll with seq {seq} in this campaign")
    return entry


_JSON_FIELDS = ("request", "draws", "result", "effects")
_ENTRY_NAMES = (
    "seq",
    "epoch",
    "kind",
    "created_at",
    "actor_id",
    "character_id",
    "visibility",
    "request",
    "draws",
    "result",
    "effects",
    "follows",
    "prev_hash",
    "content_hash",
    "hash",
)
_SCALAR_NAMES = tuple(name for name in _ENTRY_NAMES if name not in _JSON_FIELDS)
_SCALAR_COLUMNS = [_log_table.c[name] for name in _SCALAR_NAMES]


def _text(sql: str) -> ColumnElement[str]:
    return literal_column(f"'{sql}'", Text)


# The four JSON fields joined into one JSON array text by the database and decoded by a
# single json.loads: several times faster than the driver's per-column decoding.
_JSON_ARRAY = _text("[") + cast(_log_table.c.request, Text)
for _name in _JSON_FIELDS[1:]:
    _JSON_ARRAY = _JSON_ARRAY + _text(",") + cast(_log_table.c[_name], Text)
_JSON_ARRAY = _JSON_ARRAY + _text("]")
_ENTRY_COLUMNS: list[Any] = [*_SCALAR_COLUMNS, _JSON_ARRAY]  # the array last: row[-1]


def iter_entries(
    session: Session,
    campaign: Campaign,
    kinds: Collection[str] = (),
    through_seq: int | None = None,
) -> Iterator[SealedEntry]:
    """Every entry (or those of `kinds`, up to `through_seq`) in seq order, read in pages."""
    cursor = 0
    while True:
        query = select(*_ENTRY_COLUMNS).where(
            _log_table.c.campaign_id == campaign.id, _log_table.c.seq > cursor
        )
        if through_seq is not None:
            query = query.where(_log_table.c.seq <= through_seq)
        if kinds:
            query = query.where(_log_table.c.kind.in_(kinds))
        rows = session.execute(query.order_by(_log_table.c.seq).limit(2000)).all()
        for row in rows:
            data = dict(zip(_SCALAR_NAMES, row, strict=False))
            data.update(zip(_JSON_FIELDS, json.loads(row[-1]), strict=True))
            if data["follows"] is None:
                del data["follows"]  # hashed only on follow-ups (FAIR-9)
            yield SealedEntry(data)
        if len(rows) < 2000:
            return
        cursor = rows[-1].seq


def verify_campaign(session: Session, campaign: Campaign) -> Report:
    """FAIR-14 on the stored log, streamed: the seeds are read ahead from the epoch entries.

    The campaign row holds the head, so a deleted tail is caught too; reading only up to
    that head keeps rolls appended meanwhile (read in later pages) out of this check.
    """
    head = (campaign.last_seq, campaign.last_hash)
    epoch_kinds = ("epoch_opened", "epoch_closed")
    epochs = iter_entries(session, campaign, kinds=epoch_kinds, through_seq=head[0])
    seeds = revealed_seeds(entry.data for entry in epochs)
    entries = iter_entries(session, campaign, through_seq=head[0])
    return verify_log(
        (entry.data for entry in entries),  # read, never changed
        campaign_id=str(campaign.id),
        head=head,
        seeds=seeds,
    )
