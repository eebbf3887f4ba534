"""What an entry waits for from the other side (FAB-62's defense): asked as a roll request
of whoever controls that character, answered by the follow-up that resolves the entry."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from pydantic import BaseModel
from sqlmodel import Session, col, select

from app.core.problems import Conflict
from app.engine.contract import AnyKind, Awaiting, Prepared, Visibility, acting_character_id
from app.models import Character, Encounter, RollRequest
from app.services.access import CampaignAccess
from app.services.log import SealedEntry


def ask_other_side(
    session: Session, access: CampaignAccess, entry: SealedEntry, awaits: Awaiting
) -> None:
    """The entry waits: its answer is asked of the character's side, listed with the GM's
    roll requests (its values name the entry the answer follows)."""
    session.add(
        RollRequest(
            campaign_id=access.campaign.id,
            kind=awaits.kind,
            character_ids=[awaits.character_id],
            values={"follows": entry.seq},
            visibility=cast(Visibility, entry.visibility),
            note=awaits.note,
            seq=entry.seq,
        )
    )


def awaited(
    session: Session, access: CampaignAccess, kind: str, prepared: Prepared[Any]
) -> RollRequest | None:
    """The wait a follow-up answers, if any (one character's: the rules checked it is that
    character's answer); refused once the GM cancelled it."""
    if prepared.follows is None:
        return None
    row = session.exec(
        select(RollRequest).where(
            col(RollRequest.campaign_id) == access.campaign.id,
            col(RollRequest.seq) == prepared.follows,
            col(RollRequest.kind) == kind,
        )
    ).first()
    if row is None:
        return None
    if row.status == "cancelled":
        raise Conflict(
            f"the GM cancelled the wait for this {kind} (roll request {row.id}); entry "
            f"{prepared.follows} stays unresolved"
        )
    return row


def answered(session: Session, row: RollRequest, character_id: str, seq: int) -> None:
    """Record the entry that answered for the character; closed once every one has."""
    row.answers = {**row.answers, character_id: seq}
    close_if_answered(session, row)


def close_if_answered(session: Session, row: RollRequest) -> None:
    """A request closes once every character it asks has answered or was retired."""
    waiting = [uuid.UUID(c) for c in row.character_ids if c not in row.answers]
    live = session.exec(
        select(Character.id).where(
            col(Character.campaign_id) == row.campaign_id,
            col(Character.id).in_(waiting),
            col(Character.deleted_at).is_(None),
        )
    ).first()
    if live is None:
        row.status = "closed"
    session.add(row)


def character_retired(session: Session, character: Character) -> None:
    """The open requests a retired character had not answered close once nobody else is
    left to answer them."""
    rows = session.exec(
        select(RollRequest).where(
            col(RollRequest.campaign_id) == character.campaign_id,
            col(RollRequest.status) == "open",
        )
    ).all()
    for row in rows:
        if str(character.id) in row.character_ids and str(character.id) not in row.answers:
            close_if_answered(session, row)


def open_waits(session: Session, access: CampaignAccess, seqs: Iterable[int]) -> list[RollRequest]:
    """The waits still open on these entries (an encounter's actions), as the caller may
    see them: a player sees those of public entries."""
    wanted = list(seqs)
    if not wanted:
        return []
    rows = session.exec(
        select(RollRequest)
        .where(
            col(RollRequest.campaign_id) == access.campaign.id,
            col(RollRequest.status) == "open",
            col(RollRequest.seq).in_(wanted),
        )
        .order_by(col(RollRequest.seq))
    ).all()
    return [row for row in rows if access.is_gm or row.visibility == "public"]


# The campaign's running encounters, read when first asked for: a batch of rolls reads
# them once (app/services/roll_batches.py).
RunningEncounters = Callable[[], Sequence[Encounter]]


def running_encounters(session: Session, campaign_id: uuid.UUID) -> Sequence[Encounter]:
    """The campaign's encounters under way (not set up, not ended)."""
    return session.exec(
        select(Encounter).where(
            col(Encounter.campaign_id) == campaign_id, col(Encounter.status) == "active"
        )
    ).all()


def check_outside_encounters(
    session: Session,
    access: CampaignAccess,
    kind: AnyKind,
    body: BaseModel,
    running: RunningEncounters | None = None,
) -> None:
    """What a running encounter charges goes through it, not POST .../rolls: an answer to
    one of its actions (a parry's fast action, FAB-62), and a combatant's own action while
    it fights (its turn and its limits); the GM acts out of turn there with `override`."""
    follows = getattr(body, "follows", None)
    acting = acting_character_id(body)
    charged = not kind.reaction and acting is not None
    if not (kind.answered_in_encounter and follows is not None) and not charged:
        return
    if running is None:
        running = functools.partial(running_encounters, session, access.campaign.id)
    for encounter in running():
        if kind.answered_in_encounter and any(item["seq"] == follows for item in encounter.history):
            raise Conflict(
                f"entry {follows} is an action of the encounter {encounter.name!r}: answer "
                f"with POST /encounters/{encounter.id}/actions, where the {kind.name} costs "
                "its action"
            )
        fighting = next(
            (c for c in encounter.combatants if c["character_id"] == acting and c["active"]),
            None,
        )
        if charged and fighting is not None:
            raise Conflict(
                f"{fighting['name']} is fighting in the encounter {encounter.name!r}: act "
                f"with POST /encounters/{encounter.id}/actions, where the {kind.name} takes "
                "its turn and its round's actions (the GM: with override, out of turn)"
            )
