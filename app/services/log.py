"""The campaign log: appending sealed entries, seed epochs, what each member may see.

Every function that appends takes the campaign as locked by the caller
(`get_campaign_access(..., lock=True)`): the lock is what makes seq gap-free (FAIR-5). The
one exception, a plain dice roll on the head its worker knows, appends with a statement
that checks the campaign's row instead of holding its lock (app/services/known_head.py).
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import secrets
import uuid
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Text,
    bindparam,
    cast,
    func,
    insert,
    literal_column,
    update,
)
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, col, select

from app.core.driver_sql import DriverStatement
from app.core.problems import Conflict, NotFound
from app.engine.audit import Report, revealed_seeds, seal, verify_log
from app.engine.canonical import decode_json
from app.engine.contract import Effect, Language, Model, Prepared, Resolution
from app.engine.dice import HmacDiceStream, commitment
from app.engine.errors import EngineError, InvalidInput, RuleRefusal
from app.engine.hidden import FAIRNESS_VERSION, SPAN
from app.engine.registry import CLOCK_KINDS, Registry, Rules
from app.engine.sheets import set_path
from app.models import Campaign, Character, HeldEffects, LogEntry, SeedEpoch, utcnow
from app.models.log import key_attachment
from app.services.access import (
    CampaignAccess,
    CurrentEpoch,
    LockedAccess,
    LockedCampaign,
    update_current_epoch,
    update_locked_campaign,
)
from app.services.commitments import commit_npc_values, is_npc
from app.services.feed.notices import CHANNEL, note_entry, notify_in_statement
from app.services.keys import key_tree
from app.services.luck import add_luck
from app.services.views import annotate_follow_ups, can_see, public_view

PAGE_FETCH = 200
logger = logging.getLogger("nocturne.rules")
_log_table = LogEntry.__table__  # type: ignore[attr-defined]
_campaign_table = Campaign.__table__  # type: ignore[attr-defined]
_epoch_table = SeedEpoch.__table__  # type: ignore[attr-defined]
_held_table = HeldEffects.__table__  # type: ignore[attr-defined]
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
# PostgreSQL runs both in one statement (a data-modifying CTE), which also sends the
# transaction's notice to the feed (delivered only if it commits): two round trips less on
# every append, while the campaign's lock is held. SQLite has no such CTE and takes them one
# at a time.
APPEND_AND_ADVANCE = HEAD_UPDATE.add_cte(LOG_INSERT.cte("appended")).returning(
    func.pg_notify(bindparam("notify_channel"), bindparam("notify_payload")),
    # The row's version once this transaction commits (app/services/known_head.py).
    cast(literal_column("campaign.xmin"), Text),
)
# Run on the driver's connection: every append takes it (issue 23, app/core/driver_sql.py).
_APPEND_AND_ADVANCE = DriverStatement(APPEND_AND_ADVANCE)
# session.info keys: the campaign row's version its last append left (PostgreSQL), and an
# append in place of APPEND_AND_ADVANCE for a roll on a known head; both known_head.py's.
CAMPAIGN_VERSION = "nocturne.campaign_version"
ON_KNOWN_HEAD = "nocturne.on_known_head"


@dataclass(frozen=True)
class SealedEntry:
    """An entry just appended, exactly as it was hashed."""

    data: dict[str, Any]
    # Entries a rule set off in the same transaction (a panic roll after a stress 1).
    triggered: list[SealedEntry] = field(default_factory=list)
    # The typed request and resolution of an entry the rules resolved, as they were made.
    request_model: Model | None = None
    resolution: Resolution[Any] | None = None
    # FAIR-17: a hidden entry's key and proof, for whoever may see it; never hashed.
    attachment: dict[str, Any] = field(default_factory=dict)
    # FAIR-18: what opens its commitments, for the GM (and everyone once disclosed).
    disclosures: list[dict[str, Any]] | None = None
    # FAIR-21: some of its effects wait for the GM (a roll just made; None when not known).
    effects_held: bool | None = None
    # Issue 21: the session and scene it was made in (recorded beside it, never hashed).
    session: int | None = None
    scene: int | None = None

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

    def key_attachment(self) -> dict[str, Any]:
        return self.attachment

    def value_disclosures(self) -> list[dict[str, Any]] | None:
        return self.disclosures

    def typed(self) -> tuple[Model, Model] | None:
        """Its request and result as the rules made them, when it was just resolved."""
        if self.request_model is None or self.resolution is None:
            return None
        return self.request_model, self.resolution.result


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
    rules: str | None = None,
    fairness: int | None = None,
    key: tuple[str, str] | None = None,
    disclosures: list[dict[str, Any]] | None = None,
    label: str | None = None,
) -> SealedEntry:
    """Seal the next entry onto the chain (FAIR-10/11) and advance the campaign's head.

    `rules` names the rules version that resolved it (e.g. "vampire@1") and `fairness` the
    fairness rules it was made under, both hashed with it; `key` is a hidden entry's key and
    joined proof (FAIR-17) and `disclosures` what opens its commitments (FAIR-18), both
    stored beside it, never hashed.
    """
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
    if rules is not None:
        content["rules"] = rules
    if fairness is not None:
        content["fairness"] = fairness
    if label is not None:
        content["label"] = label
    sealed = seal(content, campaign.last_hash)
    # Core statements: appending is the hot path, and the unit of work adds nothing here.
    entry_key, proof = key if key is not None else (None, None)
    # Issue 21: the session and scene it was made in, beside it and never hashed; a clock
    # entry belongs to the session and scene it opens (as the migration backfills them).
    if kind in CLOCK_KINDS and request is not None:
        session_number, scene_number = int(request["session"]), int(request["scene"])
    else:
        session_number, scene_number = campaign.current_session, campaign.current_scene
    row = {
        "campaign_id": campaign.id,
        "follows": None,
        "rules": None,
        "fairness": None,
        "label": None,
        **sealed,
        "entry_key": entry_key,
        "proof": proof,
        "disclosures": disclosures,
        "session": session_number,
        "scene": scene_number,
    }
    params = {f"entry_{name}": value for name, value in row.items()}
    note_entry(session, campaign.id, seq, kind, campaign.webhooks)
    if session.get_bind().dialect.name == "postgresql":
        params["notify_channel"] = CHANNEL
        params["notify_payload"] = notify_in_statement(session, campaign.id)
        on_known_head: Callable[[Session, dict[str, Any]], str] | None
        on_known_head = session.info.get(ON_KNOWN_HEAD)
        if on_known_head is not None:
            session.info[CAMPAIGN_VERSION] = on_known_head(session, params)
        else:
            appended = _APPEND_AND_ADVANCE.first(session, params)
            assert appended is not None  # the campaign is locked: its row is there
            session.info[CAMPAIGN_VERSION] = appended[1]
    else:
        session.execute(LOG_INSERT, params)
        session.execute(HEAD_UPDATE, params)
    campaign.last_seq = seq
    campaign.last_hash = sealed["hash"]
    return SealedEntry(
        sealed,
        attachment=key_attachment(entry_key, proof),
        disclosures=disclosures,
        session=session_number,
        scene=scene_number,
    )


# --- seed epochs (FAIR-1..4) -------------------------------------------------------------


def open_epoch(session: Session, campaign: LockedCampaign, actor_id: uuid.UUID) -> CurrentEpoch:
    """A fresh secret seed; its commitment is published as an entry before any roll (FAIR-2).

    FAIR-16: a second secret keys the hidden entries of the epoch's span; the root of those
    keys' Merkle tree is published beside the commitment.
    """
    seed, hidden_seed = secrets.token_bytes(32), secrets.token_bytes(32)
    number = campaign.current_epoch + 1
    opened_seq = campaign.last_seq + 1
    digest = commitment(seed)
    tree = key_tree(hidden_seed.hex(), str(campaign.id), number, opened_seq)
    entry = append_entry(
        session,
        campaign,
        kind="epoch_opened",
        actor_id=actor_id,
        epoch=number,
        result={"campaign_id": str(campaign.id), "commitment": digest, "hidden_root": tree.root},
        fairness=FAIRNESS_VERSION,
    )
    epoch = CurrentEpoch(
        number=number,
        server_seed=seed.hex(),
        commitment=digest,
        client_seed="",
        first_roll_seq=None,
        opened_seq=entry.seq,
        hidden_seed=hidden_seed.hex(),
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
            hidden_seed=epoch.hidden_seed,
            hidden_root=tree.root,
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
    """FAIR-4: close and reveal the current epoch, open the next, in one transaction. A
    deleted campaign (its seed kept by an older release) only reveals: nothing opens."""
    access.require_gm("rotate the seed")
    if access.campaign.deleted_at is not None:
        if access.epoch is None or _closed(session, access.campaign.id, access.epoch.number):
            raise Conflict("this campaign is deleted and every seed of it is revealed already")
        close_for_good(session, access)
        return
    _rotate(session, access, current_epoch(session, access))


def _closed(session: Session, campaign_id: uuid.UUID, number: int) -> bool:
    closed_seq = session.exec(
        select(SeedEpoch.closed_seq).where(
            col(SeedEpoch.campaign_id) == campaign_id, col(SeedEpoch.number) == number
        )
    ).first()
    return closed_seq is not None


def close_for_good(session: Session, access: LockedAccess) -> None:
    """A campaign being deleted reveals its open epoch's server seed (FAIR-4) and opens no
    other: every roll it made can then be verified, by its GM, for good."""
    if access.epoch is not None:
        _reveal(session, access, access.epoch)


def _rotate(session: Session, access: LockedAccess, epoch: CurrentEpoch) -> None:
    """Reveal the epoch's server seed to everyone; its hidden seed stays with the GM (FAIR-17)."""
    _reveal(session, access, epoch)
    access.epoch = open_epoch(session, access.campaign, access.user.id)


def _reveal(session: Session, access: LockedAccess, epoch: CurrentEpoch) -> None:
    campaign = access.campaign
    entry = append_entry(
        session,
        campaign,
        kind="epoch_closed",
        actor_id=access.user.id,
        epoch=epoch.number,
        result={"server_seed": epoch.server_seed, "commitment": epoch.commitment},
    )
    update_current_epoch(session, campaign, epoch, closed_seq=entry.seq)


# Entries one request may still append (a roll and what it sets off): an epoch this close to
# the end of its span rotates once the request is done, not in the middle of the next one.
SPAN_MARGIN = 64


def rotate_near_span_end(session: Session, access: LockedAccess) -> None:
    """FAIR-16 with FAIR-3: an epoch rotates before its span runs out, at the end of a
    request, so the next epoch's seeds are drawn before any request that will use them is
    known, and the members may set its client seed first."""
    epoch = access.epoch
    if epoch is None or epoch.hidden_seed is None:
        return
    if access.campaign.last_seq + 1 >= epoch.opened_seq + SPAN - SPAN_MARGIN:
        _rotate(session, access, epoch)


def epoch_for_next_roll(session: Session, access: LockedAccess) -> CurrentEpoch:
    """The open epoch, rotated first when the next entry would fall past its keyed span
    (FAIR-16): every hidden entry needs a key its epoch committed to. Requests rotate
    ahead of that (`rotate_near_span_end`); this is for one longer than the margin."""
    epoch = current_epoch(session, access)
    if epoch.hidden_seed is not None and access.campaign.last_seq + 1 >= epoch.opened_seq + SPAN:
        _rotate(session, access, epoch)
        epoch = current_epoch(session, access)
    return epoch


def set_client_seed(session: Session, access: LockedAccess, client_seed: str) -> None:
    """FAIR-3: any member sets the client seed while the epoch has served no roll."""
    epoch = current_epoch(session, access)
    if epoch.first_roll_seq is not None:
        raise RuleRefusal(
            f"FAIR-3: epoch {epoch.number} already served a roll (seq {epoch.first_roll_seq}), "
            "so its client seed is frozen; the GM can rotate the seed to open a new epoch",
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


def record(
    session: Session,
    access: LockedAccess,
    rules: Rules,
    prepared: Prepared[Any],
    read_players: Sequence[str] = (),
    actor_id: uuid.UUID | None = None,
) -> SealedEntry:
    """Run the rules on the campaign's stream for the next seq, log it, apply its effects.

    `read_players` are the player characters whose sheets the rules read: a hidden entry
    waits for the GM before they are read again (FAIR-21). `actor_id` is the caller unless
    the entry carries on another member's roll (a panic it set off, rolled later).
    """
    campaign = access.campaign
    epoch = epoch_for_next_roll(session, access)
    seq = campaign.last_seq + 1
    key: tuple[str, str] | None = None
    stream_key = bytes.fromhex(epoch.server_seed)
    if epoch.hidden_seed is not None and prepared.visibility != "public":
        # FAIR-17: a hidden entry's dice come from its own committed key, not the epoch seed.
        tree = key_tree(epoch.hidden_seed, str(campaign.id), epoch.number, epoch.opened_seq)
        stream_key = tree.key(seq)
        key = (stream_key.hex(), "".join(tree.proof(seq)))
    dice = HmacDiceStream(stream_key, str(campaign.id), epoch.number, epoch.client_seed, seq)
    kind = rules.kind
    try:
        resolution = kind.resolve(prepared.request, dice, rules.version)
    except EngineError as exc:
        if dice.draws:
            # The next request gets this seq, and these dice: a refusal that depends on them
            # would show them unpaid. Rules refuse before drawing; this guards the mistake.
            logger.error("%s refused after drawing dice: %s", kind.name, exc.detail)
            raise type(exc)(
                f"{exc.rule or 'the rules'}: this request was refused; check its inputs",
                rule=exc.rule,
            ) from None
        raise
    request = prepared.request.dump()
    result = resolution.result.dump()
    effects = [effect.dump() for effect in resolution.effects]
    disclosures = None
    if epoch.hidden_seed is not None:
        # FAIR-18: what the rules read of NPCs, and their changes, hashed as commitments.
        disclosures = commit_npc_values(
            session, campaign.id, request, result, effects, kind.npc_values
        )
    entry = append_entry(
        session,
        campaign,
        kind=kind.name,
        actor_id=actor_id or access.user.id,
        epoch=epoch.number,
        character_id=uuid.UUID(prepared.character_id) if prepared.character_id else None,
        visibility=prepared.visibility,
        request=request,
        draws=[dict(draw) for draw in dice.draws],
        result=result,
        effects=effects,
        follows=prepared.follows,
        rules=rules.rules_id,
        fairness=FAIRNESS_VERSION if epoch.hidden_seed is not None else None,
        key=key,
        disclosures=disclosures or None,
        label=prepared.label,
    )
    applied = resolution.effects
    held = False
    if epoch.hidden_seed is not None and prepared.visibility != "public":
        applied = hold_readable_effects(
            session, campaign, entry.seq, resolution.effects, read_players
        )
        held = bool(read_players) or len(applied) != len(resolution.effects)
    apply_effects(session, campaign, applied)
    # FAIR-20: any entry that draws a die is a roll, whatever its kind says.
    if (kind.is_roll or entry.data["draws"]) and epoch.first_roll_seq is None:
        update_current_epoch(session, campaign, epoch, first_roll_seq=entry.seq)
    return dataclasses.replace(
        entry, request_model=prepared.request, resolution=resolution, effects_held=held
    )


def hold_readable_effects(
    session: Session,
    campaign: LockedCampaign,
    seq: int,
    effects: list[Effect],
    read_players: Sequence[str],
) -> list[Effect]:
    """FAIR-21: a hidden roll's changes to a player character's sheet, which every member
    reads, wait for the GM (`apply_held_effects`); its changes to NPCs, the GM's alone, are
    applied now. Returns the effects to apply now.

    The roll waits whenever it read or changed a player character, changes or not: the
    rules refuse to read those sheets until the GM applies it, and a wait that came only
    with changes would tell the players the outcome it hides.
    """
    held = [effect for effect in effects if not is_npc(session, campaign.id, effect.character_id)]
    characters = sorted({*read_players, *(effect.character_id for effect in held)})
    if characters:
        forget_waits(session)
        session.execute(
            insert(_held_table).values(
                campaign_id=campaign.id,
                seq=seq,
                effects=[effect.dump() for effect in held],
                characters=characters,
            )
        )
    return [effect for effect in effects if effect not in held]


def is_held_back(entry: SealedEntry) -> bool:
    """FAIR-21: a hidden roll under FAIR-16..21, whose consequences wait for the GM."""
    return entry.visibility != "public" and entry.data.get("fairness") is not None


def defer_follow_ons(session: Session, campaign: LockedCampaign, seq: int) -> None:
    """FAIR-21: what a hidden roll sets off (a panic) is rolled when the GM applies it;
    logged now, even redacted, its kind would tell the outcome (a stress die showed 1)."""
    forget_waits(session)
    if session.get(HeldEffects, (campaign.id, seq)) is None:
        session.execute(
            insert(_held_table).values(
                campaign_id=campaign.id, seq=seq, effects=[], characters=[], sets_off=True
            )
        )
    else:
        session.execute(
            update(_held_table)
            .where(_held_table.c.campaign_id == campaign.id, _held_table.c.seq == seq)
            .values(sets_off=True)
        )


# The session.info key under which a batch of rolls keeps the waits it read (FAIR-21),
# while it holds the campaign's lock: each roll of the batch gets them without a query,
# until a roll of the batch writes held effects (`forget_waits`).
SHARED_WAITS = "nocturne.shared_waits"


def pending_waits(session: Session, campaign_id: uuid.UUID) -> list[HeldEffects]:
    """FAIR-21: the hidden rolls waiting for the GM, in log order."""
    shared: dict[uuid.UUID, list[HeldEffects]] | None = session.info.get(SHARED_WAITS)
    if shared is not None and campaign_id in shared:
        return list(shared[campaign_id])
    waits = list(
        session.exec(
            select(HeldEffects)
            .where(
                col(HeldEffects.campaign_id) == campaign_id,
                col(HeldEffects.applied_seq).is_(None),
            )
            .order_by(col(HeldEffects.seq))
        ).all()
    )
    if shared is not None:
        shared[campaign_id] = waits
    return list(waits)


def forget_waits(session: Session) -> None:
    """Every write of held effects calls this first: the waits a batch kept are read again
    (an earlier hidden roll of the batch now holds a sheet, FAIR-21)."""
    shared: dict[uuid.UUID, list[HeldEffects]] | None = session.info.get(SHARED_WAITS)
    if shared is not None:
        shared.clear()


def apply_held_effects(session: Session, access: LockedAccess, seq: int) -> SealedEntry:
    """The GM applies the changes a hidden roll made to player characters' sheets: a public
    `effects_applied` entry follows the roll and shows them (FAIR-21)."""
    access.require_gm("apply a hidden roll's effects")
    campaign = access.campaign
    held = session.get(HeldEffects, (campaign.id, seq))
    if held is None:
        raise NotFound(f"entry {seq} holds no effects waiting for the GM")
    if held.applied_seq is not None:
        raise Conflict(f"the effects of entry {seq} were applied at seq {held.applied_seq}")
    for wait in pending_waits(session, campaign.id):
        if wait.seq < seq and set(wait.characters) & set(held.characters):
            # Its changes were made on the sheets the earlier entry left: in log order.
            raise RuleRefusal(
                f"FAIR-21: entry {wait.seq} waits for the GM on the same sheets: apply it first",
                rule="FAIR-21",
            )
    effects = [Effect.model_validate(effect) for effect in held.effects]
    try:
        apply_effects(session, campaign, effects)
    except EngineError as exc:
        raise Conflict(
            f"the sheet changed since entry {seq}: {exc.detail}; override it by hand instead"
        ) from None
    entry = append_entry(
        session,
        campaign,
        kind="effects_applied",
        actor_id=access.user.id,
        request={"seq": seq},
        effects=list(held.effects),
        follows=seq,
    )
    forget_waits(session)
    session.execute(
        update(_held_table)
        .where(_held_table.c.campaign_id == campaign.id, _held_table.c.seq == seq)
        .values(applied_seq=entry.seq)
    )
    return entry


def apply_effects(session: Session, campaign: LockedCampaign, effects: list[Effect]) -> None:
    """Write the rules' sheet changes; each names the value it expects to replace.

    A character the rules changed is stamped `updated_at`, so clients caching sheets by it
    see the change.
    """
    sheets: dict[str, Character] = {}
    for effect in effects:
        character = sheets.get(effect.character_id)
        if character is None:
            character = session.get(Character, (campaign.id, uuid.UUID(effect.character_id)))
            if character is None:
                raise EngineError(f"effect on unknown character {effect.character_id}")
            character.sheet = copy.deepcopy(character.sheet)
            sheets[effect.character_id] = character
        before = set_path(character.sheet, effect.field, copy.deepcopy(effect.after))
        if before != effect.before:
            raise EngineError(
                f"sheet of {effect.character_id} changed under the rules: {effect.field} was "
                f"{before!r}, expected {effect.before!r}"
            )
    now = utcnow()
    for character in sheets.values():
        # Changed in place: an autoflush between two of its effects (the next character's
        # load) would otherwise leave the later ones untracked.
        flag_modified(character, "sheet")
        character.updated_at = now
        session.add(character)


# --- reading the log (FAIR-13) -------------------------------------------------------------


@dataclass(frozen=True)
class EntryFilters:
    """The audit's filters on a log listing (issue 21); all optional, all combined."""

    actor_id: uuid.UUID | None = None
    character_id: uuid.UUID | None = None
    # Exact, or a prefix when it ends in "." ("fabulae." lists every Fabulae kind).
    kind: str | None = None
    session: int | None = None
    scene: int | None = None
    visibility: str | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None

    def active(self) -> bool:
        return any(value is not None for value in dataclasses.astuple(self))

    def check_kind(self, registry: Registry) -> None:
        """A kind no entry can have is a mistake to say, not an empty answer to give."""
        if self.kind is None:
            return
        known = registry.entry_kinds()
        if self.kind.endswith("."):
            if not any(name.startswith(self.kind) for name in known):
                raise InvalidInput(
                    f"no entry kind starts with {self.kind!r}; prefixes are a ruleset's "
                    "family followed by a dot (jdr., fabulae., vampire., encounter.)"
                )
        elif self.kind not in known:
            raise InvalidInput(
                f"no entry has the kind {self.kind!r}: use an exact kind (jdr.action, dice, "
                "epoch_opened; GET /systems/{id} lists each ruleset's) or a prefix ending in '.'"
            )

    def conditions(self) -> list[ColumnElement[bool]]:
        found: list[ColumnElement[bool]] = []
        if self.actor_id is not None:
            found.append(col(LogEntry.actor_id) == str(self.actor_id))
        if self.character_id is not None:
            found.append(col(LogEntry.character_id) == str(self.character_id))
        if self.kind is not None:
            if self.kind.endswith("."):
                found.append(col(LogEntry.kind).startswith(self.kind, autoescape=True))
            else:
                found.append(col(LogEntry.kind) == self.kind)
        if self.session is not None:
            found.append(col(LogEntry.session) == self.session)
        if self.scene is not None:
            found.append(col(LogEntry.scene) == self.scene)
        if self.visibility is not None:
            found.append(col(LogEntry.visibility) == self.visibility)
        # FAIR-10's created_at is fixed-width RFC 3339 UTC: its text sorts as its time.
        if self.created_after is not None:
            # Half-open, [after, before): consecutive windows share no entry and miss none.
            found.append(col(LogEntry.created_at) >= rfc3339(self.created_after))
        if self.created_before is not None:
            found.append(col(LogEntry.created_at) < rfc3339(self.created_before))
        return found


def rfc3339(moment: datetime) -> str:
    """A moment in FAIR-10's created_at form (UTC, microseconds, Z); naive means UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    utc = moment.astimezone(UTC)
    return utc.isoformat(timespec="microseconds").replace("+00:00", "Z")


def list_entries(
    session: Session,
    access: CampaignAccess,
    registry: Registry,
    language: Language,
    *,
    rolls_only: bool,
    after_seq: int,
    limit: int,
    filters: EntryFilters | None = None,
    with_odds: bool = False,
) -> tuple[list[dict[str, Any]], int | None]:
    """Keyset page of entries after `after_seq`, and the cursor of the next page."""
    filters = filters or EntryFilters()
    filters.check_kind(registry)
    conditions = [col(LogEntry.campaign_id) == access.campaign.id, *filters.conditions()]
    if rolls_only:
        conditions.append(col(LogEntry.kind).in_(registry.roll_kind_names()))
    views: list[dict[str, Any]] = []
    cursor = after_seq
    # A filter must not reveal which hidden entries match it (their character, actor,
    # kind, session): a filtered listing leaves out the entries the caller may not see.
    hide_invisible = filters.active()
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
            views.append(public_view(row, access, registry, language))
            if len(views) == limit:
                return _finish(session, access, views, registry, language, with_odds), cursor
        if len(rows) < PAGE_FETCH:
            return _finish(session, access, views, registry, language, with_odds), None


def _finish(
    session: Session,
    access: CampaignAccess,
    views: list[dict[str, Any]],
    registry: Registry,
    language: Language,
    with_odds: bool,
) -> list[dict[str, Any]]:
    views = annotate_follow_ups(session, access, views, registry, language)
    if with_odds:
        for view in views:
            add_luck(view, registry)
    return views


def get_roll(session: Session, access: CampaignAccess, registry: Registry, seq: int) -> LogEntry:
    entry = session.get(LogEntry, (access.campaign.id, seq))
    if entry is None or not registry.is_roll(entry.kind):
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
    "rules",
    "fairness",
    "label",
    "prev_hash",
    "content_hash",
    "hash",
    "entry_key",
    "proof",
)
_ATTACHED_JSON = "disclosures"  # read with the JSON fields, null on most entries
_SCALAR_NAMES = tuple(name for name in _ENTRY_NAMES if name not in _JSON_FIELDS)
_SCALAR_COLUMNS = [_log_table.c[name] for name in _SCALAR_NAMES]


def _text(sql: str) -> ColumnElement[str]:
    return literal_column(f"'{sql}'", Text)


# The four JSON fields and the disclosures, joined into one JSON array text by the database
# and decoded by a single decode_json (orjson): several times faster than the driver's
# per-column decoding.
_JSON_ARRAY = _text("[") + cast(_log_table.c.request, Text)
for _name in _JSON_FIELDS[1:]:
    _JSON_ARRAY = _JSON_ARRAY + _text(",") + cast(_log_table.c[_name], Text)
_JSON_ARRAY = (
    _JSON_ARRAY
    + _text(",")
    + func.coalesce(cast(_log_table.c[_ATTACHED_JSON], Text), _text("null"))
    + _text("]")
)
_ENTRY_COLUMNS: list[Any] = [*_SCALAR_COLUMNS, _JSON_ARRAY]  # the array last: row[-1]


def _stored_entries(
    session: Session,
    campaign: Campaign,
    kinds: Collection[str] = (),
    through_seq: int | None = None,
) -> Iterator[tuple[dict[str, Any], str | None, str | None, list[dict[str, Any]] | None]]:
    """Each entry's hashed fields, key, proof and disclosures, in seq order, read in pages."""

    def page(after: int) -> Sequence[Sequence[Any]]:
        if not kinds:  # the whole log (verification, export): on the driver's connection
            last = through_seq if through_seq is not None else _LAST_SEQ
            bounds = {"campaign_id": campaign.id, "after": after, "through": last}
            return _LOG_PAGE.all(session, {**bounds, "page_size": _PAGE})
        query = select(*_ENTRY_COLUMNS).where(
            _log_table.c.campaign_id == campaign.id, _log_table.c.seq > after
        )
        if through_seq is not None:
            query = query.where(_log_table.c.seq <= through_seq)
        query = query.where(_log_table.c.kind.in_(kinds))
        return session.execute(query.order_by(_log_table.c.seq).limit(_PAGE)).all()

    for rows in _read_ahead(page):
        for row in rows:
            data = dict(zip(_SCALAR_NAMES, row, strict=False))
            *content, disclosures = decode_json(row[-1])
            data.update(zip(_JSON_FIELDS, content, strict=True))
            if data["follows"] is None:
                del data["follows"]  # hashed only on follow-ups (FAIR-9)
            if data["rules"] is None:
                del data["rules"]  # hashed only on entries made since rules versions
            if data["fairness"] is None:
                del data["fairness"]  # hashed only on entries made since FAIR-16
            if data["label"] is None:
                del data["label"]  # hashed only on entries whose roller named them
            yield data, data.pop("entry_key"), data.pop("proof"), disclosures


_PAGE = 2000
_SEQ = _SCALAR_NAMES.index("seq")
_LAST_SEQ = 2**31 - 1  # the seq column's largest (an INTEGER): no upper bound
# A page of the whole log, up to a seq, run on psycopg directly on PostgreSQL (issue 23):
# without SQLAlchemy's result rows, reading an entry for verification takes 12% fewer
# instructions (bench/profile.md).
_LOG_PAGE = DriverStatement(
    select(*_ENTRY_COLUMNS)
    .where(
        _log_table.c.campaign_id == bindparam("campaign_id"),
        _log_table.c.seq > bindparam("after"),
        _log_table.c.seq <= bindparam("through"),
    )
    .order_by(_log_table.c.seq)
    .limit(bindparam("page_size"))
)


def _read_ahead(
    page: Callable[[int], Sequence[Sequence[Any]]],
) -> Iterator[Sequence[Sequence[Any]]]:
    """The log's pages in seq order, each read in a thread while the caller works through
    the one before: the database's time and the verifier's overlap (issue 23).

    The session is used by one thread at a time: the caller's only between pages, which
    it does not touch, and leaving early waits for the page being read.
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="log-pages") as reader:
        pending: Future[Sequence[Sequence[Any]]] | None = reader.submit(page, 0)
        while pending is not None:
            rows = pending.result()
            pending = reader.submit(page, rows[-1][_SEQ]) if len(rows) == _PAGE else None
            yield rows


def iter_entries(
    session: Session,
    campaign: Campaign,
    kinds: Collection[str] = (),
    through_seq: int | None = None,
) -> Iterator[SealedEntry]:
    """Every entry (or those of `kinds`, up to `through_seq`) in seq order, read in pages."""
    for data, entry_key, proof, disclosures in _stored_entries(
        session, campaign, kinds, through_seq
    ):
        attachment = key_attachment(entry_key, proof)
        yield SealedEntry(data, attachment=attachment, disclosures=disclosures)


def opened_for_audit(entry: SealedEntry) -> dict[str, Any]:
    """The entry with its key and disclosures beside it, as the GM's export carries it."""
    return _audit_form(entry.data, entry.attachment, entry.disclosures)


def _audit_form(
    data: dict[str, Any], attachment: dict[str, Any], disclosures: list[dict[str, Any]] | None
) -> dict[str, Any]:
    if not attachment and disclosures is None:
        return data
    full = {**data, **attachment}
    if disclosures is not None:
        full["disclosures"] = disclosures
    return full


def iter_audit_entries(
    session: Session, campaign: Campaign, through_seq: int | None = None
) -> Iterator[dict[str, Any]]:
    """`opened_for_audit` of every entry, without a SealedEntry for each: verification reads
    whole logs."""
    for data, entry_key, proof, disclosures in _stored_entries(
        session, campaign, through_seq=through_seq
    ):
        attachment = key_attachment(entry_key, proof) if entry_key is not None else {}
        yield _audit_form(data, attachment, disclosures)


def verify_campaign(session: Session, campaign: Campaign, registry: Registry) -> Report:
    """FAIR-14 on the stored log, streamed: the seeds are read ahead from the epoch entries.

    The campaign row holds the head, so a deleted tail is caught too; reading only up to
    that head keeps rolls appended meanwhile (read in later pages) out of this check.
    """
    head = (campaign.last_seq, campaign.last_hash)
    epoch_kinds = ("epoch_opened", "epoch_closed")
    epochs = iter_entries(session, campaign, kinds=epoch_kinds, through_seq=head[0])
    seeds = revealed_seeds(entry.data for entry in epochs)
    return verify_log(
        # read, never changed; with every key and disclosure: the service sees everything
        iter_audit_entries(session, campaign, through_seq=head[0]),
        registry=registry,
        campaign_id=str(campaign.id),
        head=head,
        seeds=seeds,
    )
