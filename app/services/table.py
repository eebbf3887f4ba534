"""The campaign as the rules read it: the service's side of the engine's `Table` port.

A roll kind prepares its request through this object only: the characters it names (as
the caller may act for them), the entries it follows (as the caller may see them), the
clock and the options. Every read happens in the roll's transaction, under its lock.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, JsonValue
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from app.core.problems import Forbidden, NotFound
from app.engine.canonical import canonical_json
from app.engine.contract import (
    FollowUpRecord,
    LoggedEntry,
    Snapshot,
    Visibility,
    at_least_as_hidden,
)
from app.engine.errors import RuleRefusal
from app.engine.hidden import open_commitments
from app.engine.sheets import set_path
from app.models import Character, HeldEffects, LogEntry
from app.services.access import (
    CampaignAccess,
    can_edit_character,
    get_campaign_character,
    makes_choices_of,
)
from app.services.awaiting import running_encounters
from app.services.log import pending_waits
from app.services.views import can_see

SnapshotT = TypeVar("SnapshotT", bound=Snapshot)


def snapshot(
    character: Character, model: type[SnapshotT], sheet: dict[str, Any] | None = None
) -> SnapshotT:
    """What a rule reads of a character, recorded in the entry so it can be replayed."""
    return model.model_validate(
        {
            "id": str(character.id),
            "name": character.name,
            "kind": character.kind,
            "sheet": character.sheet if sheet is None else sheet,
        }
    )


def _uuids(value: Any) -> set[uuid.UUID]:
    """Every UUID in a dumped body, at any depth."""
    found: set[uuid.UUID] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, uuid.UUID):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def named_ids(bodies: Iterable[BaseModel]) -> set[uuid.UUID]:
    """Every id these roll bodies give: the characters they name, and ids of anything else,
    which match no character."""
    named: set[uuid.UUID] = set()
    for body in bodies:
        named |= _uuids(body.model_dump())
    return named


def load_characters(
    session: Session, campaign_id: uuid.UUID, ids: Collection[uuid.UUID]
) -> Sequence[Character]:
    """The campaign's characters among `ids`, read in one query and left in the session,
    where the rules' lookups (`get_campaign_character`) then find them without a query of
    their own. The caller holds the list while the rules run: the session's identity map
    keeps only weak references. A missing one is left for the rules' own lookup to
    refuse."""
    if not ids:
        return ()
    return session.exec(
        select(Character).where(Character.campaign_id == campaign_id, col(Character.id).in_(ids))
    ).all()


def _as_uuid(character_id: uuid.UUID | str) -> uuid.UUID:
    if isinstance(character_id, uuid.UUID):
        return character_id
    try:
        return uuid.UUID(character_id)
    except ValueError:
        raise NotFound(f"no character {character_id!r} in this campaign") from None


class CampaignTable:
    """The engine's `Table` for one caller in one campaign.

    `released` is the entry the request follows up or was set off by: a sheet waiting for
    that entry's GM (FAIR-21) is read with the entry's held changes, as the rules left it.
    A sheet check (`for_rolls=False`) reads the sheets as stored: it records nothing.
    """

    def __init__(
        self,
        session: Session,
        access: CampaignAccess,
        *,
        released: int | None = None,
        for_rolls: bool = True,
        gm_set: frozenset[str] = frozenset(),
        sides: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self._session = session
        self._sides = sides or {}
        self._access = access
        self._gm_set = gm_set
        self._released = released
        self._for_rolls = for_rolls
        self._waits: list[HeldEffects] | None = None
        # FAIR-21: the narrowest visibility among the entries the rules read; the entry they
        # make is at least that hidden, or it would show what those entries hide.
        self.read_visibility: Visibility = "public"
        # FAIR-21: the player characters whose sheets the rules read; a hidden entry waits
        # for the GM before the rules read them again.
        self.read_players: list[str] = []
        self._loaded: Sequence[Character] = ()  # see load_named

    def load_named(self, body: BaseModel) -> None:
        """Read at once the characters a body names, in one query rather than one each:
        the rules then find them in the session (an attack reads its attacker and its
        target)."""
        campaign_id = self._access.campaign.id
        # Those a batch of rolls read already (app/services/roll_batches.py) are not read
        # again; one character is one query either way.
        unread = [
            named
            for named in named_ids([body])
            if identity_key(Character, (campaign_id, named)) not in self._session.identity_map
        ]
        if len(unread) >= 2:
            # Held here: the session's identity map keeps only weak references.
            self._loaded = load_characters(self._session, campaign_id, unread)

    def _read(self, entry: LogEntry) -> None:
        if entry.visibility == "public" or entry.seq in self._access.disclosed():
            return
        # Hidden from the caller (a blind roll, someone else's gm roll): the GM alone may
        # read what carries it. Hidden but theirs: the caller and the GM.
        narrowest: Visibility = "gm" if can_see(entry, self._access) else "blind"
        self.read_visibility = at_least_as_hidden(self.read_visibility, narrowest)

    def fighting(self, character_id: str) -> bool:
        running = running_encounters(self._session, self._access.campaign.id)
        return any(
            c["character_id"] == character_id and c["active"]
            for encounter in running
            for c in encounter.combatants
        )

    def allies(self, character_id: str) -> list[str]:
        """The encounter's allies whose sheets the rules may read now."""
        return [ally for ally in self._sides.get(character_id, ()) if self.can_read(ally)]

    def can_read(self, character_id: str) -> bool:
        """Whether the rules may read the sheet now: one a hidden roll holds waits for the
        GM (FAIR-21), so what reads many sheets at once (a round, a panic's allies) passes
        it by, as it would pass by any sheet the roll does not read."""
        try:
            self.readable_sheet(self.record(character_id))
        except RuleRefusal:
            return False
        return True

    @property
    def system(self) -> str:
        return str(self._access.campaign.system)

    @property
    def session(self) -> int:
        return int(self._access.campaign.current_session)

    @property
    def scene(self) -> int:
        return int(self._access.campaign.current_scene)

    @property
    def options(self) -> Mapping[str, JsonValue]:
        options: Mapping[str, JsonValue] = self._access.campaign.options
        return options

    @property
    def is_gm(self) -> bool:
        return self._access.is_gm

    @property
    def gm_set(self) -> frozenset[str]:
        return self._gm_set

    def chooses_for(self, character_id: str, hidden: bool) -> bool:
        return makes_choices_of(self._access, self.record(character_id), hidden)

    def require_gm(self, action: str) -> None:
        self._access.require_gm(action)

    def record(self, character_id: uuid.UUID | str) -> Character:
        """The character's row (404 when the campaign has none by that id)."""
        return get_campaign_character(self._session, self._access, _as_uuid(character_id))

    def _read_sheet(self, character: Character, model: type[SnapshotT]) -> SnapshotT:
        return snapshot(character, model, self.readable_sheet(character))

    def readable_sheet(self, character: Character) -> dict[str, Any]:
        """FAIR-21: the character's sheet as the rules may read it now.

        A hidden roll that read a player character's sheet waits for the GM; until the GM
        applies it, only what continues that roll's thread of follow-ups (or was set off by
        it) reads the sheet, with the changes the GM holds. Every hidden roll that read a
        player character waits, changed or not, so this refusal tells nothing of a hidden
        outcome.
        """
        if character.kind == "npc" or not self._for_rolls:
            return character.sheet
        character_id = str(character.id)
        if character_id not in self.read_players:
            self.read_players.append(character_id)
        waits = [wait for wait in self._pending() if character_id in wait.characters]
        if not waits:
            return character.sheet
        if not all(self._in_released_thread(wait.seq) for wait in waits):
            raise RuleRefusal(
                f"FAIR-21: {character.name}'s sheet waits for the GM: hidden entry "
                f"{waits[0].seq} read it, and the GM applies it (POST "
                f".../log/{waits[0].seq}/apply) before the rules read it again",
                rule="FAIR-21",
            )
        sheet = copy.deepcopy(character.sheet)
        for wait in waits:
            # What it reads of the held roll makes the entry at least as hidden (FAIR-21):
            # a public retry beside a self one would show what the self one spent.
            held_entry = self._session.get(LogEntry, (self._access.campaign.id, wait.seq))
            if held_entry is not None:
                self._read(held_entry)
            for effect in wait.effects:
                if effect["character_id"] == character_id:
                    set_path(sheet, str(effect["field"]), copy.deepcopy(effect["after"]))
        return sheet

    def _in_released_thread(self, seq: int) -> bool:
        """Whether the entry is in the thread of follow-ups (FAIR-9) the request continues:
        the roll it follows, that roll's follow-ups and their own (a ruling, a push)."""
        return self._released is not None and self._thread_root(seq) == self._thread_root(
            self._released
        )

    def _thread_root(self, seq: int) -> int:
        campaign_id = self._access.campaign.id
        entry = self._session.get(LogEntry, (campaign_id, seq))
        while entry is not None and entry.follows is not None:
            seq = entry.follows
            entry = self._session.get(LogEntry, (campaign_id, seq))
        return seq

    def _pending(self) -> list[HeldEffects]:
        if self._waits is None:
            self._waits = pending_waits(self._session, self._access.campaign.id)
        return self._waits

    def acting(self, character_id: uuid.UUID | str, model: type[SnapshotT]) -> SnapshotT:
        character = self.record(character_id)
        if not can_edit_character(self._access, character):
            raise Forbidden(f"you may act only for your own characters, not {character.name}")
        return self._read_sheet(character, model)

    def character(self, character_id: uuid.UUID | str, model: type[SnapshotT]) -> SnapshotT:
        return self._read_sheet(self.record(character_id), model)

    def find(self, character_id: uuid.UUID | str, model: type[SnapshotT]) -> SnapshotT | None:
        try:
            return self.character(character_id, model)
        except NotFound:
            return None

    def entry(self, seq: int) -> LoggedEntry:
        """An entry the caller may act on.

        An entry the caller may not see cannot be followed up by them: whether the rules
        accepted it would reveal the outcome the visibility hides (FAIR-13).
        """
        entry = self._session.get(LogEntry, (self._access.campaign.id, seq))
        if entry is None:
            raise NotFound(f"follows: there is no entry with seq {seq} in this campaign's log")
        if not can_see(entry, self._access):
            raise RuleRefusal(
                f"FAIR-13: entry {seq} is {entry.visibility}: its outcome is hidden from you, "
                "so only the GM can act on it",
                rule="FAIR-13",
            )
        self._read(entry)
        return logged_entry(entry)

    def follow_ups(self, seq: int) -> list[FollowUpRecord]:
        rows = self._session.exec(
            select(LogEntry)
            .where(
                col(LogEntry.campaign_id) == self._access.campaign.id,
                col(LogEntry.follows) == seq,
            )
            .order_by(col(LogEntry.seq))
        ).all()
        for row in rows:
            self._read(row)
        return [
            FollowUpRecord(
                seq=row.seq,
                kind=row.kind,
                character_id=row.character_id,
                result=_opened(row)["result"],
            )
            for row in rows
        ]

    def scene_entries(self, kind: str) -> list[LoggedEntry]:
        """The entries of one kind made in the current scene that the caller may see,
        listed, not read: a rule that uses one reads it through `entry(seq)`, which makes
        the roll at least as hidden (FAIR-21). Reading them all would hide a roll behind
        every hidden roll of the scene."""
        rows = self._session.exec(self._in_scene(kind).order_by(col(LogEntry.seq))).all()
        return [logged_entry(row) for row in rows if self._listed(row)]

    def latest_scene_entries(self, kind: str, character_id: str) -> Iterator[LoggedEntry]:
        """`scene_entries` of one kind whose `character_id` is this character's (an entry
        made for several characters, such as an initiative, has none), newest first, read a
        page at a time as the caller goes on (issue 23): a rule that wants the latest one
        (VAM-30's last attempt) stops there, however many the campaign's scene holds."""
        query = self._in_scene(kind).where(col(LogEntry.character_id) == character_id)
        before: int | None = None
        while True:
            page = query if before is None else query.where(col(LogEntry.seq) < before)
            rows = self._session.exec(
                page.order_by(col(LogEntry.seq).desc()).limit(_SCENE_PAGE)
            ).all()
            for row in rows:
                if self._listed(row):
                    yield logged_entry(row)
            if len(rows) < _SCENE_PAGE:
                return
            before = rows[-1].seq

    def _in_scene(self, kind: str) -> SelectOfScalar[LogEntry]:
        """The campaign's entries of a kind whose request names the current scene, narrowed
        by the database rather than loaded to be dropped (a campaign that never starts a
        scene keeps every roll in scene 0); `_listed` decides."""
        scene = col(LogEntry.request)["scene"]
        if self._session.get_bind().dialect.name == "postgresql":
            # The value's text: a cast to integer would fail on a request whose scene is
            # not a number, and with it every roll that looks back at the scene.
            in_scene = scene.as_string() == str(self.scene)
        else:
            in_scene = scene.as_integer() == self.scene  # SQLite's JSON_EXTRACT: the number
        return select(LogEntry).where(
            col(LogEntry.campaign_id) == self._access.campaign.id,
            col(LogEntry.kind) == kind,
            in_scene,
        )

    def _listed(self, row: LogEntry) -> bool:
        # The scene again, exactly as the rules read it: SQLite's cast makes a scene of
        # "1" or true match 1, which the database's filter may let through.
        return row.request.get("scene") == self.scene and can_see(row, self._access)


# Entries read at a time when a rule looks back from the latest.
_SCENE_PAGE = 16


def _opened(entry: LogEntry) -> dict[str, Any]:
    """The entry as the rules read it: its NPC values opened (FAIR-18), the rules being the
    GM's side of the table."""
    if entry.disclosures:
        return open_commitments(entry.as_entry(), entry.disclosures, canonical_json)
    return {"request": entry.request, "result": entry.result, "effects": entry.effects}


def logged_entry(entry: LogEntry) -> LoggedEntry:
    """A stored entry as the rules read it (its NPC values opened)."""
    opened = _opened(entry)
    fields: dict[str, Any] = {
        "seq": entry.seq,
        "kind": entry.kind,
        "visibility": entry.visibility,
        "actor_id": entry.actor_id,
        "character_id": entry.character_id,
        "request": opened["request"],
        "result": opened["result"],
        "effects": opened["effects"],
        "draws": entry.draws,
    }
    return LoggedEntry.model_validate(fields)
