"""Fabulae Tenebris roll kinds: who may act, and what each rule reads, recorded for replay."""

from __future__ import annotations

import uuid
from typing import Any

from sqlmodel import Session

from app.core.problems import RecordedRefusal, Unprocessable
from app.models import Character
from app.models.fabulae import (
    FabulaeAbsorbCreate,
    FabulaeActionCreate,
    FabulaeAttackCreate,
    FabulaeBreakFreeCreate,
    FabulaeDangerCreate,
    FabulaeDeathTestCreate,
    FabulaeDestinyAwardCreate,
    FabulaeEndEffectCreate,
    FabulaeGrappleCreate,
    FabulaeOpposedCreate,
    FabulaePanicCreate,
    FabulaePowerCreate,
    FabulaePushCreate,
    FabulaeRecoverCreate,
    FabulaeReloadCreate,
    FabulaeRepairCreate,
    FabulaeSecondWindCreate,
    FabulaeSequelaCreate,
    FabulaeStabilizeCreate,
    FabulaeStateChoiceCreate,
    FabulaeStrangleCreate,
    FabulaeStreetRatCreate,
    FabulaeStressCreate,
    FabulaeStressResistCreate,
)
from app.services.access import CampaignAccess, get_campaign_character
from app.services.log import SealedEntry, record_resolution
from app.services.rolls import (
    clock_request,
    controlled_character,
    load_entry,
    load_follow_ups,
    roll_handler,
    snapshot,
)

ROLL_FIELDS = ("attribute", "skill", "difficulty", "helpers", "modifiers", "talents", "passive")


def _record(
    session: Session,
    access: CampaignAccess,
    kind: str,
    request: dict[str, Any],
    character: Character | None,
    visibility: str,
    follows: int | None = None,
) -> SealedEntry:
    return record_resolution(
        session,
        access,
        kind=kind,
        request={**clock_request(access), **request},
        character_id=character.id if character else None,
        visibility=visibility,
        follows=follows,
    )


def _roll_inputs(body: Any) -> dict[str, Any]:
    return body.model_dump(mode="json", include=set(ROLL_FIELDS))  # type: ignore[no-any-return]


def _panicked(result: dict[str, Any]) -> list[str]:
    """Who rolled a 1 on a stress die in any roll of this result (FAB-42).

    "self" is the acting character, "target" the one acted on (the passive side of an
    opposed roll), or a character id for a power's target whose save panicked.
    """
    who: list[str] = []

    def mark(name: str) -> None:
        if name not in who:
            who.append(name)

    if result.get("outcome") == "panic" or result.get("panic") is True:
        mark("self")
    for side, name in (("active", "self"), ("passive", "target")):
        if isinstance(result.get(side), dict) and result[side].get("outcome") == "panic":
            mark(name)
    rolls = [a["roll"] for a in result.get("attacks", []) if "roll" in a]
    if isinstance(result.get("roll"), dict):
        rolls.append(result["roll"])
    for roll in rolls:
        if roll.get("outcome") == "panic" and "active" not in roll:
            mark("self")
        for side, name in (("active", "self"), ("passive", "target")):
            if isinstance(roll.get(side), dict) and roll[side].get("outcome") == "panic":
                mark(name)
    for target_id, hit in result.get("targets", {}).items():
        if isinstance(hit.get("save"), dict) and hit["save"].get("outcome") == "panic":
            mark(target_id)
    return who


def _after_roll(
    session: Session,
    access: CampaignAccess,
    entry: SealedEntry,
    characters: dict[str, Character],
    visibility: str,
) -> SealedEntry:
    """FAB-42: a stress 1 sets off the panic roll, as its own entry; FAB-14 is recorded."""
    for side in _panicked(entry.result):
        character = characters.get(side)
        if character is None:
            continue
        entry.triggered.append(
            _record(
                session,
                access,
                "fabulae.panic",
                {"character": snapshot(character), "allies": [], "modifier": 0},
                character,
                visibility,
                follows=entry.seq,
            )
        )
    outcome = entry.result.get("outcome")
    side = entry.result.get("active", entry.result)
    if outcome == "impossible":
        pool = (side.get("pool") or entry.result["pool"])["pool"]
        raise RecordedRefusal(
            f"FAB-14: the pool is {pool} dice after every modifier, so the action is "
            f"impossible; no dice were drawn and the attempt is recorded as seq {entry.seq}",
            rule="FAB-14",
            seq=entry.seq,
        )
    return entry


@roll_handler("fabulae.action")
def action(session: Session, access: CampaignAccess, body: FabulaeActionCreate) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    request: dict[str, Any] = {
        "character": snapshot(character),
        "roll": {**_roll_inputs(body), "in_combat": body.in_combat},
    }
    if body.target_id is not None:
        target = get_campaign_character(session, access, body.target_id)
        request.update({"target": snapshot(target), "intimidation": body.intimidation})
    entry = _record(session, access, body.kind, request, character, body.visibility)
    return _after_roll(session, access, entry, {"self": character}, body.visibility)


@roll_handler("fabulae.opposed")
def opposed(session: Session, access: CampaignAccess, body: FabulaeOpposedCreate) -> SealedEntry:
    active = controlled_character(session, access, body.active.character_id)
    passive = get_campaign_character(session, access, body.passive.character_id)
    if active.id == passive.id:
        raise Unprocessable("an opposed roll needs two different characters")
    request = {
        "active": {"character": snapshot(active), "roll": _roll_inputs(body.active)},
        "passive": {"character": snapshot(passive), "roll": _roll_inputs(body.passive)},
    }
    entry = _record(session, access, body.kind, request, active, body.visibility)
    sides = {"self": active, "target": passive}
    return _after_roll(session, access, entry, sides, body.visibility)


def _followed(
    session: Session, access: CampaignAccess, follows: int
) -> tuple[dict[str, Any], Character]:
    """The entry followed up and the character who rolled it, whom the caller must control."""
    entry = load_entry(session, access, follows)
    if entry["character_id"] is None:
        raise Unprocessable(f"follows: entry {follows} ({entry['kind']}) concerns no character")
    return entry, controlled_character(session, access, uuid.UUID(entry["character_id"]))


@roll_handler("fabulae.push")
def push(session: Session, access: CampaignAccess, body: FabulaePushCreate) -> SealedEntry:
    action, character = _followed(session, access, body.follows)
    request = {
        "character": snapshot(character),
        "action": {key: action[key] for key in ("seq", "kind", "request", "result")},
        "follow_ups": load_follow_ups(session, access, body.follows),
        "state": body.state,
        "absorb": body.absorb,
    }
    visibility = body.visibility or action["visibility"]
    entry = _record(session, access, body.kind, request, character, visibility, body.follows)
    sides = {"self": character}
    if entry.result.get("active", entry.result).get("outcome") == "panic":
        return _after_roll(session, access, entry, sides, visibility)
    return entry


def _threatened(threat: dict[str, Any], named: uuid.UUID | None) -> tuple[str, list[Any]]:
    """Whose states an entry threatens, and those threats (FAB-32, FAB-68, FAB-102)."""
    result = threat["result"]
    if threat["kind"] == "fabulae.power":
        pending = {
            target: hit["pending_states"]
            for target, hit in result.get("targets", {}).items()
            if hit.get("pending_states")
        }
        if named is None and len(pending) != 1:
            raise Unprocessable("this power threatens several targets: name character_id")
        owner = str(named) if named is not None else next(iter(pending))
        return owner, pending.get(owner, [])
    if threat["kind"] in ("fabulae.attack", "fabulae.strangle"):
        owner = str(threat["request"]["target"]["id"])  # the damage lands on the target
    else:
        owner = str(threat["character_id"])
    if named is not None and str(named) != owner:
        raise Unprocessable(f"entry {threat['seq']} threatens character {owner}, not {named}")
    return owner, list(result.get("pending_states", []))


def _settle(
    session: Session, access: CampaignAccess, body: Any, extra: dict[str, Any]
) -> SealedEntry:
    """A state about to be checked, accepted or absorbed by whoever it threatens (FAB-34)."""
    threat = load_entry(session, access, body.follows)
    owner, pending = _threatened(threat, body.character_id)
    character = controlled_character(session, access, uuid.UUID(owner))
    settled = [
        f for f in load_follow_ups(session, access, body.follows) if f["character_id"] == owner
    ]
    request = {
        "character": snapshot(character),
        "threat": {
            "seq": threat["seq"],
            "kind": threat["kind"],
            "result": {"pending_states": pending},
        },
        "settled": settled,
        **extra,
    }
    visibility = body.visibility or threat["visibility"]
    return _record(session, access, body.kind, request, character, visibility, body.follows)


@roll_handler("fabulae.state_choice")
def state_choice(
    session: Session, access: CampaignAccess, body: FabulaeStateChoiceCreate
) -> SealedEntry:
    return _settle(session, access, body, {"state": body.state})


@roll_handler("fabulae.absorb")
def absorb(session: Session, access: CampaignAccess, body: FabulaeAbsorbCreate) -> SealedEntry:
    return _settle(session, access, body, {})


def _campaign_characters(
    session: Session, access: CampaignAccess, ids: list[uuid.UUID]
) -> list[Character]:
    if len(set(ids)) != len(ids):
        raise Unprocessable("a character is listed twice")
    return [get_campaign_character(session, access, character_id) for character_id in ids]


@roll_handler("fabulae.stress")
def stress(session: Session, access: CampaignAccess, body: FabulaeStressCreate) -> SealedEntry:
    access.require_gm("give stress")
    characters = _campaign_characters(session, access, body.character_ids)
    request = {
        "characters": [snapshot(c) for c in characters],
        "amount": body.amount,
        "reason": body.reason,
    }
    subject = characters[0] if len(characters) == 1 else None
    return _record(session, access, body.kind, request, subject, body.visibility)


@roll_handler("fabulae.stress_resist")
def stress_resist(
    session: Session, access: CampaignAccess, body: FabulaeStressResistCreate
) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    roll = {
        "attribute": body.attribute,
        "skill": "resistance",
        "helpers": body.helpers,
        "modifiers": [m.model_dump() for m in body.modifiers],
    }
    request = {"character": snapshot(character), "roll": roll}
    entry = _record(session, access, body.kind, request, character, body.visibility)
    return _after_roll(session, access, entry, {"self": character}, body.visibility)


@roll_handler("fabulae.panic")
def panic(session: Session, access: CampaignAccess, body: FabulaePanicCreate) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    if body.character_id in body.allies:
        raise Unprocessable("the panicking character is not one of their own allies")
    allies = _campaign_characters(session, access, body.allies)
    request = {
        "character": snapshot(character),
        "allies": [snapshot(a) for a in allies],
        "modifier": body.modifier,
    }
    return _record(session, access, body.kind, request, character, body.visibility)


@roll_handler("fabulae.recover")
def recover(session: Session, access: CampaignAccess, body: FabulaeRecoverCreate) -> SealedEntry:
    request: dict[str, Any] = {"mode": body.mode}
    if body.mode == "care":
        if body.healer_id is None or body.track is None:
            raise Unprocessable("care needs healer_id (who rolls Soin) and track")
        healer = controlled_character(session, access, body.healer_id)
        patient = get_campaign_character(session, access, body.character_id)
        roller = healer
        request.update(
            {
                "healer": snapshot(healer),
                "track": body.track,
                "helpers": body.helpers,
                "modifiers": [m.model_dump() for m in body.modifiers],
            }
        )
    else:
        patient = controlled_character(session, access, body.character_id)
        roller = patient
        if body.mode == "rest":
            if body.duration is None:
                raise Unprocessable("rest needs a duration: quart, tour or night")
            request["duration"] = body.duration
    request["patient"] = snapshot(patient)
    entry = _record(session, access, body.kind, request, roller, body.visibility)
    if body.mode == "rest":
        return entry
    return _after_roll(session, access, entry, {"self": roller}, body.visibility)


@roll_handler("fabulae.destiny_award")
def destiny_award(
    session: Session, access: CampaignAccess, body: FabulaeDestinyAwardCreate
) -> SealedEntry:
    access.require_gm("award Destiny")
    character = get_campaign_character(session, access, body.character_id)
    request = {"character": snapshot(character), "reason": body.reason}
    return _record(session, access, body.kind, request, character, body.visibility)


# --- combat and beyond (issue: FAB-50..76, FAB-90, FAB-100..102) ---------------------------


def _pair(
    session: Session, access: CampaignAccess, attacker_id: uuid.UUID, target_id: uuid.UUID
) -> tuple[Character, Character]:
    attacker = controlled_character(session, access, attacker_id)
    target = get_campaign_character(session, access, target_id)
    if attacker.id == target.id:
        raise Unprocessable("a character does not attack themselves: choose another target")
    return attacker, target


@roll_handler("fabulae.attack")
def attack(session: Session, access: CampaignAccess, body: FabulaeAttackCreate) -> SealedEntry:
    attacker, target = _pair(session, access, body.attacker_id, body.target_id)
    request = {
        "attacker": snapshot(attacker),
        "target": snapshot(target),
        **body.model_dump(
            mode="json",
            include={
                "mode",
                "weapon",
                "defense",
                "situation",
                "aimed",
                "snap_shot",
                "burst",
                "burst_fire",
                "cover",
                "talents",
                "modifiers",
                "states",
            },
        ),
    }
    entry = _record(session, access, body.kind, request, attacker, body.visibility)
    sides = {"self": attacker, "target": target}
    return _after_roll(session, access, entry, sides, body.visibility)


@roll_handler("fabulae.grapple")
def grapple(session: Session, access: CampaignAccess, body: FabulaeGrappleCreate) -> SealedEntry:
    attacker, target = _pair(session, access, body.attacker_id, body.target_id)
    request = {
        "attacker": snapshot(attacker),
        "target": snapshot(target),
        "defense": body.defense,
        "modifiers": [m.model_dump() for m in body.modifiers],
    }
    entry = _record(session, access, body.kind, request, attacker, body.visibility)
    sides = {"self": attacker, "target": target}
    return _after_roll(session, access, entry, sides, body.visibility)


@roll_handler("fabulae.break_free")
def break_free(
    session: Session, access: CampaignAccess, body: FabulaeBreakFreeCreate
) -> SealedEntry:
    victim = controlled_character(session, access, body.character_id)
    holder_id = victim.sheet.get("grappled_by")
    if holder_id is None:
        raise Unprocessable(f"{victim.name} is not held by anyone (FAB-63)")
    holder = get_campaign_character(session, access, uuid.UUID(holder_id))
    request = {"character": snapshot(victim), "holder": snapshot(holder)}
    entry = _record(session, access, body.kind, request, victim, body.visibility)
    return _after_roll(session, access, entry, {"self": victim, "target": holder}, body.visibility)


@roll_handler("fabulae.strangle")
def strangle(session: Session, access: CampaignAccess, body: FabulaeStrangleCreate) -> SealedEntry:
    attacker, target = _pair(session, access, body.attacker_id, body.target_id)
    request = {"attacker": snapshot(attacker), "target": snapshot(target), "states": body.states}
    return _record(session, access, body.kind, request, attacker, body.visibility)


@roll_handler("fabulae.sequela")
def sequela(session: Session, access: CampaignAccess, body: FabulaeSequelaCreate) -> SealedEntry:
    access.require_gm("call for a sequela roll")
    character = get_campaign_character(session, access, body.character_id)
    request = {
        "character": snapshot(character),
        "table": body.table,
        "weapon_mod": body.weapon_mod,
        "feats": body.feats,
        "butcher": body.butcher,
    }
    return _record(session, access, body.kind, request, character, body.visibility)


@roll_handler("fabulae.death_test")
def death_test(
    session: Session, access: CampaignAccess, body: FabulaeDeathTestCreate
) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    request = {"character": snapshot(character), "sequela": body.sequela}
    entry = _record(session, access, body.kind, request, character, body.visibility)
    return _after_roll(session, access, entry, {"self": character}, body.visibility)


@roll_handler("fabulae.stabilize")
def stabilize(
    session: Session, access: CampaignAccess, body: FabulaeStabilizeCreate
) -> SealedEntry:
    healer = controlled_character(session, access, body.healer_id)
    patient = get_campaign_character(session, access, body.character_id)
    request = {"healer": snapshot(healer), "patient": snapshot(patient), "sequela": body.sequela}
    entry = _record(session, access, body.kind, request, healer, body.visibility)
    return _after_roll(session, access, entry, {"self": healer}, body.visibility)


@roll_handler("fabulae.danger")
def danger(session: Session, access: CampaignAccess, body: FabulaeDangerCreate) -> SealedEntry:
    access.require_gm("expose a character to a danger")
    character = get_campaign_character(session, access, body.character_id)
    request = {
        "character": snapshot(character),
        **body.model_dump(
            mode="json",
            include={"danger", "intensity", "round", "damage", "medium_range", "phase", "states"},
        ),
    }
    entry = _record(session, access, body.kind, request, character, body.visibility)
    return _after_roll(session, access, entry, {"self": character}, body.visibility)


@roll_handler("fabulae.power")
def power(session: Session, access: CampaignAccess, body: FabulaePowerCreate) -> SealedEntry:
    caster = controlled_character(session, access, body.character_id)
    targets = _campaign_characters(session, access, body.targets)
    request = {
        "caster": snapshot(caster),
        "targets": [snapshot(t) for t in targets],
        "power": body.power,
        "pp": body.pp,
        "option": body.option,
        "states": body.states,
        "powers_allowed": bool(access.campaign.options.get("powers_allowed")),
    }
    entry = _record(session, access, body.kind, request, caster, body.visibility)
    horror = entry.result.get("must_roll_panic")
    if horror:
        # FAB-102 horror: each target rolls on the panic table (-1), each its own entry.
        by_id = {str(t.id): t for t in targets}
        for target_id in horror["characters"]:
            target = by_id[target_id]
            entry.triggered.append(
                _record(
                    session,
                    access,
                    "fabulae.panic",
                    {"character": snapshot(target), "allies": [], "modifier": horror["modifier"]},
                    target,
                    body.visibility,
                    follows=entry.seq,
                )
            )
    sides = {"self": caster, **{str(t.id): t for t in targets}}
    if len(targets) == 1:
        sides["target"] = targets[0]
    return _after_roll(session, access, entry, sides, body.visibility)


@roll_handler("fabulae.repair")
def repair(session: Session, access: CampaignAccess, body: FabulaeRepairCreate) -> SealedEntry:
    mechanic = controlled_character(session, access, body.character_id)
    owner = get_campaign_character(session, access, body.owner_id)
    request = {
        "character": snapshot(mechanic),
        "owner": snapshot(owner),
        "attribute": body.attribute,
        "helpers": body.helpers,
        "talents": list(body.talents),
        "modifiers": [m.model_dump() for m in body.modifiers],
    }
    entry = _record(session, access, body.kind, request, mechanic, body.visibility)
    return _after_roll(session, access, entry, {"self": mechanic}, body.visibility)


@roll_handler("fabulae.second_wind")
def second_wind(
    session: Session, access: CampaignAccess, body: FabulaeSecondWindCreate
) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    entry = _record(
        session, access, body.kind, {"character": snapshot(character)}, character, body.visibility
    )
    return _after_roll(session, access, entry, {"self": character}, body.visibility)


@roll_handler("fabulae.end_effect")
def end_effect(
    session: Session, access: CampaignAccess, body: FabulaeEndEffectCreate
) -> SealedEntry:
    access.require_gm("end a power's effect")
    character = get_campaign_character(session, access, body.character_id)
    request = {"character": snapshot(character), "source": body.source}
    return _record(session, access, body.kind, request, character, body.visibility)


@roll_handler("fabulae.reload")
def reload(session: Session, access: CampaignAccess, body: FabulaeReloadCreate) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    request = {"character": snapshot(character), "weapon": body.weapon}
    return _record(session, access, body.kind, request, character, body.visibility)


@roll_handler("fabulae.street_rat")
def street_rat(
    session: Session, access: CampaignAccess, body: FabulaeStreetRatCreate
) -> SealedEntry:
    action, character = _followed(session, access, body.follows)
    request = {
        "character": snapshot(character),
        "action": {key: action[key] for key in ("seq", "kind", "request", "result")},
        "follow_ups": load_follow_ups(session, access, body.follows),
        "die": body.die,
    }
    visibility = body.visibility or action["visibility"]
    return _record(session, access, body.kind, request, character, visibility, body.follows)
