"""Roll requests: the GM asks characters for a roll with the values the GM decides
(difficulty, modifiers, tense, visibility); each character's player answers once, and the
answer keeps the GM's values (VAM-5, JDR-40, FAB-12/14)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from pydantic import BaseModel, ValidationError, create_model
from pydantic.fields import FieldInfo
from sqlmodel import Session, col, select

from app.core.problems import Conflict, NotFound, Unprocessable
from app.engine.contract import AnyKind, acting_character_id
from app.engine.errors import RuleRefusal
from app.engine.registry import Registry
from app.models import Character, RollRequest, RollRequestCreate, RollRequestPublic
from app.services.access import CampaignAccess, LockedAccess, get_campaign_character
from app.services.awaiting import answered, check_outside_encounters
from app.services.feed.notices import note_change
from app.services.log import SealedEntry, append_entry
from app.services.rolls import (
    body_allies,
    check_gm_decides,
    check_other_side,
    checked_roll,
    record_roll,
)

# What the answer itself names: the kind, whoever answers, and the visibility (the GM's).
_ANSWER_FIELDS = frozenset({"kind", "character_id", "attacker_id", "healer_id", "visibility"})


def request_public(row: RollRequest) -> RollRequestPublic:
    return RollRequestPublic.model_validate(row.model_dump())


def create_request(
    session: Session, access: LockedAccess, registry: Registry, data: RollRequestCreate
) -> RollRequestPublic:
    """Ask characters for a roll; logged as a public `roll_requested` entry."""
    access.require_gm("ask for rolls")
    campaign = access.campaign
    kind = registry.in_campaign(campaign.system, data.kind).kind
    body = kind.body
    if body is None or kind.prepare is None or kind.gm_only or "follows" in body.model_fields:
        raise Unprocessable(
            f"kind: {data.kind} is not asked for: a player answers a roll they make "
            "themselves, not a follow-up or the GM's own kind"
        )
    character_ids = list(dict.fromkeys(str(c) for c in data.character_ids))
    for character_id in character_ids:
        get_campaign_character(session, access, uuid.UUID(character_id))
    for name in data.values:
        part = next((p for p in data.values if name.startswith(f"{p}.")), None)
        if part is not None:
            raise Unprocessable(f"values: {part} and {name} both set it; give one of them")
    for path, rule in kind.roller_decides:
        if _names(data.values, path):
            raise Unprocessable(
                f"values.{path}: the answering player's own choice ({rule}), made in the answer"
            )
    for path, _character, rule in kind.other_side:
        if _names(data.values, path):
            raise Unprocessable(
                f"values.{path}: the other side's choice ({rule}), made by whoever plays that "
                "character when the roll asks them"
            )
    values = _checked_values(body, data.values)
    entry = append_entry(
        session,
        campaign,
        kind="roll_requested",
        actor_id=access.user.id,
        # A hidden roll's request is the GM's too: its note and values would tell its aim.
        visibility="public" if data.visibility == "public" else "gm",
        request={
            "kind": data.kind,
            "character_ids": character_ids,
            "values": values,
            "visibility": data.visibility,
            "note": data.note,
        },
    )
    row = RollRequest(
        campaign_id=campaign.id,
        kind=data.kind,
        character_ids=character_ids,
        values=values,
        visibility=data.visibility,
        note=data.note,
        seq=entry.seq,
    )
    session.add(row)
    note_change(session, campaign.id, "requests", row.id)
    return request_public(row)


def _checked_values(body: type[BaseModel], values: dict[str, Any]) -> dict[str, Any]:
    """The GM's values, each checked against the kind's body field it sets; a dotted name
    sets a field of one part (`passive.difficulty`, one side of an opposed roll)."""
    checked: dict[str, Any] = {}
    for name, value in values.items():
        field = _field_at(body, name)
        # The field alone, with its type and constraints, as the answer's body will read it;
        # strictly, as JSON: "yes" is not true, "7" not 7.
        one = create_model("Value", value=(field.annotation or Any, field))
        try:
            read = one.model_validate_json(json.dumps({"value": value}), strict=True)
            checked[name] = read.model_dump(mode="json")["value"]
        except ValidationError as exc:
            problem = exc.errors()[0]["msg"]
            raise Unprocessable(f"values.{name}: {problem}") from None
    return checked


def _field_at(body: type[BaseModel], path: str) -> FieldInfo:
    """The body's field at a dotted path, through its nested models."""
    model: type[BaseModel] = body
    *parents, leaf = path.split(".")
    for part in parents:
        annotation = model.model_fields[part].annotation if part in model.model_fields else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            raise Unprocessable(
                f"values.{path}: {part} has no fields to name one by one; set {part} whole"
                if part in model.model_fields
                else f"values.{path}: {part} is not a part of this kind's roll"
            )
        model = annotation
    field = model.model_fields.get(leaf)
    if field is None or leaf in _ANSWER_FIELDS:
        settable = sorted(set(model.model_fields) - _ANSWER_FIELDS)
        raise Unprocessable(f"values.{path}: not a field this kind's roll sets ({settable})")
    return field


def _names(values: dict[str, Any], path: str) -> bool:
    """Whether the values set the field at this dotted path, or a part that holds it."""
    parts = path.split(".")
    return any(".".join(parts[:n]) in values for n in range(1, len(parts) + 1))


def _at(document: dict[str, Any], path: str) -> tuple[bool, Any]:
    """Whether a dotted path is present in a JSON object, and its value there."""
    node: Any = document
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _set_at(document: dict[str, Any], path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    node = document
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value


def _request(session: Session, access: CampaignAccess, request_id: uuid.UUID) -> RollRequest:
    row = session.get(RollRequest, (access.campaign.id, request_id))
    if row is None:
        raise NotFound(f"no roll request {request_id} in this campaign")
    return row


class Answer:
    """A roll answering a request: the body with the GM's values, and whom it answers for."""

    def __init__(self, row: RollRequest, body: BaseModel, character_id: str) -> None:
        self.row = row
        self.body = body
        self.character_id = character_id
        # The fields the GM set: the rules take them as the GM's.
        self.gm_set = frozenset(row.values) | {"visibility"}

    @property
    def seq(self) -> int:
        """The request's entry, which the answer follows (FAIR-9)."""
        return self.row.seq

    def answered(self, session: Session, seq: int) -> None:
        """Record the roll that answered; the request closes once every character has."""
        answered(session, self.row, self.character_id, seq)
        note_change(session, self.row.campaign_id, "requests", self.row.id)


def answering(
    session: Session,
    access: LockedAccess,
    kind: AnyKind,
    body: BaseModel,
    request_id: uuid.UUID,
) -> Answer:
    """Check a roll answering the request and give it the GM's values: the body may not
    change them, nor set what else the GM decides; one answer per character."""
    row = _request(session, access, request_id)
    if row.status != "open":
        raise Conflict(f"roll request {request_id} is {row.status}; it takes no more answers")
    if kind.name != row.kind:
        raise Unprocessable(f"kind: the request asks for {row.kind}, not {kind.name}")
    character_id = acting_character_id(body)
    if character_id is None or character_id not in row.character_ids:
        raise Unprocessable("the request asks other characters for this roll")
    if character_id in row.answers:
        seq = row.answers[character_id]
        raise Conflict(f"this character answered the request already, at seq {seq}")
    given = body.model_dump(mode="json", exclude_unset=True)
    whole = body.model_dump(mode="json")  # nested values with their defaults, as stored
    fixed = {**row.values, "visibility": row.visibility}
    for name, value in fixed.items():
        if _at(given, name)[0] and _at(whole, name)[1] != value:
            raise Unprocessable(
                f"{name}: the GM's request sets it to {value!r}; leave it out of the answer"
            )
    check_gm_decides(access, kind, body, decided_by_gm=frozenset(fixed))
    check_other_side(session, access, kind, body, decided_by_gm=frozenset(fixed))
    for name, value in fixed.items():
        _set_at(given, name, value)
    merged = type(body).model_validate(given)
    return Answer(row, merged, character_id)


def answer(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    body: BaseModel,
    request_id: uuid.UUID,
) -> SealedEntry:
    """A character's roll answering the request (POST .../rolls?request_id=)."""
    rules = registry.in_campaign(access.campaign.system, str(getattr(body, "kind")))  # noqa: B009
    reply = answering(session, access, rules.kind, body, request_id)
    check_outside_encounters(session, access, rules.kind, reply.body)
    try:
        checked = checked_roll(
            session,
            access,
            rules,
            reply.body,
            answering=reply.seq,
            gm_set=reply.gm_set,
            allies=body_allies(session, access, reply.body),
        )
        entry = record_roll(session, access, registry, checked)
    except RuleRefusal as refusal:
        if refusal.recorded_seq is not None:  # the attempt is logged (FAB-14): it answered
            reply.answered(session, refusal.recorded_seq)
        raise
    reply.answered(session, entry.seq)
    return entry


def cancel_request(session: Session, access: LockedAccess, request_id: uuid.UUID) -> None:
    """The GM withdraws a request; logged as `roll_request_cancelled`, following it."""
    access.require_gm("cancel roll requests")
    row = _request(session, access, request_id)
    if row.status != "open":
        raise Conflict(f"roll request {request_id} is {row.status} already")
    append_entry(
        session,
        access.campaign,
        kind="roll_request_cancelled",
        actor_id=access.user.id,
        request={"request_id": str(row.id)},
        follows=row.seq,
    )
    row.status = "cancelled"
    session.add(row)
    note_change(session, row.campaign_id, "requests", row.id)


def list_requests(
    session: Session, access: CampaignAccess, *, status: str | None, limit: int, offset: int
) -> tuple[list[RollRequestPublic], int]:
    """The GM's every request; a player's, those that ask one of their characters."""
    conditions = [col(RollRequest.campaign_id) == access.campaign.id]
    if status is not None:
        conditions.append(col(RollRequest.status) == status)
    rows = list(
        session.exec(
            select(RollRequest).where(*conditions).order_by(col(RollRequest.seq).desc())
        ).all()
    )
    if not access.is_gm:
        owned = _owned(session, access)
        rows = [row for row in rows if owned & set(row.character_ids)]
    return [request_public(row) for row in rows[offset : offset + limit]], len(rows)


def get_request(
    session: Session, access: CampaignAccess, request_id: uuid.UUID
) -> RollRequestPublic:
    row = _request(session, access, request_id)
    if not access.is_gm and not _owned(session, access) & set(row.character_ids):
        raise NotFound(f"no roll request {request_id} for your characters")
    return request_public(row)


def _owned(session: Session, access: CampaignAccess) -> set[str]:
    """The ids of the caller's characters in the campaign: the requests a player sees."""
    rows = session.exec(
        select(Character.id).where(
            col(Character.campaign_id) == access.campaign.id,
            col(Character.owner_id) == access.user.id,
        )
    ).all()
    return {str(character_id) for character_id in rows}
