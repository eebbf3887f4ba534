"""What passing the turn reads and records beyond the roster: the states an action left
pending (FAB-34), who sits out their turn (FAB-23 corrected), and the entry a new round
records (FAB-50 corrected). The ruleset's `Combat` decides each; this module reads the
campaign for it and records what it asks."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from app.engine.contract import Combat, Combatant
from app.engine.registry import Registry
from app.models import Character, HeldEffects, LogEntry
from app.services.access import CampaignAccess, LockedAccess
from app.services.log import record
from app.services.table import CampaignTable
from app.services.views import can_see


@dataclass(frozen=True)
class Unsettled:
    """States an action's entry still holds pending for a character (FAB-34)."""

    character_id: str
    seq: int
    count: int

    def public(self) -> dict[str, Any]:
        return {"character_id": self.character_id, "seq": self.seq, "count": self.count}


def unsettled(
    session: Session, access: CampaignAccess, combat: Combat, seqs: Iterable[int]
) -> list[Unsettled]:
    """The pending states of the encounter's actions the caller may see, oldest first."""
    wanted = sorted(set(seqs))
    if not wanted:
        return []
    rows = session.exec(
        select(LogEntry).where(
            col(LogEntry.campaign_id) == access.campaign.id, col(LogEntry.seq).in_(wanted)
        )
    ).all()  # loaded once: the table's reads below find them in the session
    table = CampaignTable(session, access)
    found = []
    for row in sorted(rows, key=lambda r: r.seq):
        if can_see(row, access):
            for character_id, count in combat.unsettled(table, row.seq).items():
                found.append(Unsettled(character_id, row.seq, count))
    return found


def unapplied_hidden(session: Session, access: CampaignAccess, seqs: set[int]) -> list[LogEntry]:
    """Of these entries, the hidden ones (not public) whose GM has not applied them yet."""
    if not seqs:
        return []
    rows = session.exec(
        select(LogEntry).where(
            col(LogEntry.campaign_id) == access.campaign.id,
            col(LogEntry.seq).in_(seqs),
            col(LogEntry.visibility) != "public",
        )
    ).all()
    applied = set(
        session.exec(
            select(HeldEffects.seq).where(
                col(HeldEffects.campaign_id) == access.campaign.id,
                col(HeldEffects.seq).in_([row.seq for row in rows]),
                col(HeldEffects.applied_seq).is_not(None),
            )
        ).all()
    )
    return [row for row in rows if row.seq not in applied]


def told(session: Session, access: CampaignAccess, combatant: Combatant) -> Combatant:
    """The combatant with the bindings the table may know of: one set by a hidden entry the
    GM has not applied would, passing its turn by, tell that entry's outcome (FAIR-21);
    its next action's refusal waits for the GM instead."""
    seqs = {c.seq for c in combatant.conditions if c.seq is not None}
    hidden = {row.seq for row in unapplied_hidden(session, access, seqs)}
    if not hidden:
        return combatant
    kept = [c for c in combatant.conditions if c.seq not in hidden]
    return combatant.model_copy(update={"conditions": kept})


def sheets(
    session: Session, access: CampaignAccess, combatants: Sequence[Combatant]
) -> dict[str, dict[str, Any]]:
    """The combatants' sheets as they are now."""
    ids = [uuid.UUID(c.character_id) for c in combatants]
    rows = session.exec(
        select(Character).where(
            col(Character.campaign_id) == access.campaign.id, col(Character.id).in_(ids)
        )
    ).all()
    return {str(row.id): dict(row.sheet) for row in rows}


def pass_round(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    combat: Combat,
    combatants: Sequence[Combatant],
) -> bool:
    """Record the entry a new round asks for (its sheet changes with it); whether it did.
    The encounter records it for whoever passed the turn: the players' turns pass rounds
    as the GM's do, while only the GM may post one directly."""
    table = CampaignTable(session, access)
    fighting = [c for c in combatants if c.active]  # one who left may be deleted since
    body = combat.new_round([c for c in fighting if table.can_read(c.character_id)])
    if body is None:
        return False
    rules = registry.in_campaign(access.campaign.system, str(getattr(body, "kind")))  # noqa: B009
    assert rules.kind.prepare is not None
    prepared = rules.kind.prepare(body, table)
    record(session, access, rules, prepared, table.read_players)
    return True
