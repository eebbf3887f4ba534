"""Rolls: every kind through one path. The kind prepares its request through the campaign's
`Table` (who may send it, what the rules read), the rules resolve it on the campaign's
stream, and the entry, its effects and whatever it set off land in one transaction."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, cast

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from sqlmodel import Session

from app.core.problems import Forbidden, Unprocessable
from app.engine.contract import (
    Aftermath,
    AnyKind,
    Effect,
    LoggedEntry,
    Prepared,
    Resolution,
    Visibility,
    acting_character_id,
    at_least_as_hidden,
)
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.registry import Registry, Rules
from app.models import Character, LogEntry, RollRequest
from app.services.access import (
    CampaignAccess,
    LockedAccess,
    get_campaign_character,
    makes_choices_of,
)
from app.services.awaiting import (
    RunningEncounters,
    answered,
    ask_other_side,
    awaited,
    check_outside_encounters,
)
from app.services.log import (
    SealedEntry,
    defer_follow_ons,
    is_held_back,
    record,
    rotate_near_span_end,
)
from app.services.table import CampaignTable, logged_entry


def create_roll(
    session: Session, access: LockedAccess, registry: Registry, body: BaseModel
) -> SealedEntry:
    """A client's roll of any kind its campaign's ruleset (or the generic dice) offers."""
    return record_roll(session, access, registry, check_roll(session, access, registry, body))


def check_roll(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    body: BaseModel,
    running: RunningEncounters | None = None,
) -> CheckedRoll:
    """Everything that may refuse a client's roll before it is recorded (who sends it,
    what the GM decides, the other side's choices, a running encounter, the rules' own
    checks of its inputs), read under the campaign's lock: nothing is written."""
    kind_name = str(getattr(body, "kind"))  # noqa: B009 (every roll body has its kind)
    rules = registry.in_campaign(access.campaign.system, kind_name)
    check_gm_decides(access, rules.kind, body)
    check_other_side(session, access, rules.kind, body)
    check_outside_encounters(session, access, rules.kind, body, running)
    allies = body_allies(session, access, body)
    return checked_roll(session, access, rules, body, allies=allies)


def body_allies(session: Session, access: CampaignAccess, body: BaseModel) -> list[str]:
    """The allies a roll body names (FAB-44: a panic it sets off reaches them), each a
    character of the campaign."""
    named = [str(ally) for ally in getattr(body, "allies", None) or []]
    for ally in named:
        get_campaign_character(session, access, uuid.UUID(ally))
    return named


def named_allies(
    session: Session, access: CampaignAccess, body: BaseModel, also: Sequence[str] = ()
) -> dict[str, list[str]]:
    """The allies a roll names, with `also` (an encounter's side), as the roller's."""
    roller = acting_character_id(body)
    named = body_allies(session, access, body)
    if roller is None or not (named or also):
        return {}
    return with_allies({}, roller, [*also, *named])


def with_allies(
    sides: Mapping[str, Sequence[str]], roller: str, allies: Sequence[str]
) -> dict[str, list[str]]:
    """`sides` with `allies` added to the roller's, who is not their own ally."""
    if roller in allies:
        raise Unprocessable("allies: the roller is not their own ally")
    found = {who: list(side) for who, side in sides.items()}
    found[roller] = list(dict.fromkeys([*found.get(roller, ()), *allies]))
    return found


def check_gm_decides(
    access: CampaignAccess,
    kind: AnyKind,
    body: BaseModel,
    decided_by_gm: frozenset[str] = frozenset(),
) -> None:
    """What the sources give the GM to decide (VAM-5's difficulty, modifiers and tense,
    VAM-20's automatic success, JDR-40's Mythos difficulty, FAB-12/14's difficulty and
    situation) a player sets only where the campaign lets players do so, or as the GM's
    roll request sets it (`decided_by_gm`, the request's fields)."""
    if access.is_gm or access.campaign.options.get("players_set_difficulty"):
        return
    decided = [
        (path, rule)
        for path, rule in kind.gm_decides
        if not _decided(path, decided_by_gm) and _is_set(body, path)
    ]
    if decided:
        fields = ", ".join(path for path, _ in decided)
        rules = ", ".join(sorted({rule for _, rule in decided}))
        # A required field (a Mythos test's difficulty) cannot be left out: the GM asks.
        without = (
            "" if any(_required(body, path) for path, _ in decided) else "roll without it, or "
        )
        raise Forbidden(
            f"{fields}: the GM decides this ({rules}); {without}the GM sets it for you in a "
            "roll request, or lets players set it with the campaign option "
            "players_set_difficulty",
            rule=decided[0][1],
        )


def check_other_side(
    session: Session,
    access: CampaignAccess,
    kind: AnyKind,
    body: BaseModel,
    decided_by_gm: frozenset[str] = frozenset(),
) -> None:
    """Each side answers for itself: the roller names the other side, never makes its
    choices (its talents, its helpers, its defense); whoever plays that character does, or
    the GM for an NPC. What the roll itself asks of the other side (`asks_other_side`: a
    defense, an Absorb) the GM leaves to a player's character too, unless the roll is
    hidden from that player."""
    hidden = getattr(body, "visibility", None) not in (None, "public")
    for path, character_path, rule in kind.other_side:
        if _decided(path, decided_by_gm) or not _is_set(body, path):
            continue
        if access.is_gm and (hidden or path not in kind.asks_other_side):
            continue
        named = _value(body, character_path)  # one character, or a list (a power's targets)
        for character_id in named if isinstance(named, list) else [named]:
            character = session.get(Character, (access.campaign.id, uuid.UUID(str(character_id))))
            if character is None:
                continue  # the rules answer 404 for it
            if makes_choices_of(access, character, hidden):
                continue
            if not access.is_gm:
                raise Forbidden(
                    f"{path}: {character.name}'s choice ({rule}), made by whoever plays "
                    f"{character.name} or the GM; the roller names the other side, never "
                    "spends its choices",
                    rule=rule,
                )
            if access.is_gm:
                raise Forbidden(
                    f"{path}: {character.name}'s player chooses ({rule}); leave it out and the "
                    "roll waits for their answer, which the GM may give for a player who is "
                    "away (a hidden roll sets it)",
                    rule=rule,
                )


def _required(body: BaseModel, path: str) -> bool:
    """Whether the body must give the field at this dotted path (it has no default)."""
    found = _field(body, path)
    return found is not None and found[1].is_required()


def _decided(path: str, decided_by_gm: frozenset[str]) -> bool:
    """Whether the GM's request set the field at this dotted path, or a part holding it."""
    parts = path.split(".")
    return any(".".join(parts[:n]) in decided_by_gm for n in range(1, len(parts) + 1))


def _value(body: BaseModel, path: str) -> object:
    node: object = body
    for name in path.split("."):
        node = getattr(node, name, None)
    return node


def _field(body: BaseModel, path: str) -> tuple[BaseModel, FieldInfo] | None:
    """The part of the body holding the field at this dotted path, and that field."""
    *parents, leaf = path.split(".")
    node: object = body
    for name in parents:
        node = getattr(node, name, None)
    if not isinstance(node, BaseModel) or leaf not in type(node).model_fields:
        return None
    return node, type(node).model_fields[leaf]


def _is_set(body: BaseModel, path: str) -> bool:
    """Whether the body gives the field at this dotted path a value other than its default."""
    found = _field(body, path)
    if found is None:
        return False
    part, field = found
    default = field.get_default(call_default_factory=True)
    return bool(getattr(part, path.split(".")[-1]) != default)


def prepare(
    session: Session,
    access: CampaignAccess,
    rules: Rules,
    body: BaseModel,
    gm_set: frozenset[str] = frozenset(),
) -> tuple[Prepared[Any], CampaignTable]:
    """Who may send this request, and every input its rules will read: the request the
    roll would resolve, with the table that read it. Nothing is drawn or written."""
    kind = rules.kind
    if kind.prepare is None:
        raise InvalidInput(f"{kind.name} is not rolled directly; the service makes it")
    if kind.gm_only is not None:
        access.require_gm(kind.gm_only)
    # A follow-up reads the sheets its entry left, held or not (FAIR-21).
    table = CampaignTable(session, access, released=getattr(body, "follows", None), gm_set=gm_set)
    table.load_named(body)
    prepared = kind.prepare(body, table)
    # Every roll body may name what the roll is for (issue 21); the entry files it.
    label = getattr(body, "label", None)
    if label is not None:
        prepared = dataclasses.replace(prepared, label=label)
    # FAIR-21: an entry that carries what hidden entries hold is at least as hidden.
    visibility = at_least_as_hidden(prepared.visibility, table.read_visibility)
    if visibility != prepared.visibility:
        prepared = dataclasses.replace(prepared, visibility=visibility)
    return prepared, table


def prepare_without_rolling(
    session: Session,
    access: CampaignAccess,
    rules: Rules,
    body: BaseModel,
    gm_set: frozenset[str] = frozenset(),
) -> tuple[Prepared[Any], CampaignTable]:
    """A client's roll body prepared as POST /rolls would prepare it (who may send it, the
    sheets as they are now), for what reads it without rolling (its odds): the campaign is
    not locked, nothing is drawn or logged.

    Asking decides nothing, so what the GM decides and the other side's choices may be
    supposed (a difficulty of 8, the defender's dodge): the roll itself still checks them.
    The encounter check is left out: odds of an action are worth knowing before its turn."""
    decided = (*rules.kind.gm_decides, *rules.kind.gm_rules_on)
    supposed = frozenset(name for name, _ in decided) | {"visibility"}
    return prepare(session, access, rules, body, gm_set | supposed)


@dataclasses.dataclass(frozen=True)
class CheckedRoll:
    """A roll prepared and checked under the campaign's lock, nothing of it yet written:
    its rules, the request they resolve with the table that read it, the allies of each
    side and the wait it answers."""

    rules: Rules
    prepared: Prepared[Any]
    table: CampaignTable
    sides: Mapping[str, Sequence[str]] | None
    wait: RollRequest | None


def checked_roll(
    session: Session,
    access: LockedAccess,
    rules: Rules,
    body: BaseModel,
    answering: int | None = None,
    gm_set: frozenset[str] = frozenset(),
    sides: Mapping[str, Sequence[str]] | None = None,
    allies: Sequence[str] = (),
) -> CheckedRoll:
    """A roll prepared under the campaign's lock, and the wait it answers found, or its
    refusal; nothing is drawn or written (`record_roll` does that). `answering` is the seq
    of the GM's roll request it answers, which the entry then follows (FAIR-9), `gm_set`
    the body fields that request set, `sides` each combatant's allies in an encounter, and
    `allies` those the body names, the roller's once the roll names its roller (a push: the
    followed roll's, FAB-44)."""
    prepared, table = prepare(session, access, rules, body, gm_set)
    if allies and prepared.character_id is not None:
        sides = with_allies(sides or {}, prepared.character_id, allies)
    if answering is not None and prepared.follows is None:
        # A retry answering a request keeps following the roll it retries (VAM-30); the
        # request records the answer either way.
        prepared = dataclasses.replace(prepared, follows=answering)
    # A follow-up answering what an entry waits for (FAB-62's defense) closes the wait.
    wait = awaited(session, access, rules.kind.name, prepared) if answering is None else None
    return CheckedRoll(rules, prepared, table, sides, wait)


def record_roll(
    session: Session, access: LockedAccess, registry: Registry, checked: CheckedRoll
) -> SealedEntry:
    """Resolve and record the checked roll, and roll what it set off."""
    rules, prepared, sides, wait = checked.rules, checked.prepared, checked.sides, checked.wait
    kind = rules.kind
    entry = record(session, access, rules, prepared, checked.table.read_players)
    if wait is not None:
        answered(session, wait, wait.character_ids[0], entry.seq)
    if kind.after is None or entry.resolution is None:
        rotate_near_span_end(session, access)
        return entry
    aftermath = kind.after(prepared, entry.resolution, entry.seq)
    if aftermath.awaits is not None:
        ask_other_side(session, access, entry, aftermath.awaits)
    if aftermath.follow_ons and is_held_back(entry):
        defer_follow_ons(session, access.campaign, entry.seq)
        entry = dataclasses.replace(entry, effects_held=True)
    else:
        entry.triggered.extend(
            set_off(session, access, registry, rules, entry, aftermath, sides=sides)
        )
    rotate_near_span_end(session, access)
    if aftermath.refusal is not None:
        refusal = aftermath.refusal
        raise RuleRefusal(refusal.detail, rule=refusal.rule, recorded_seq=entry.seq)
    return entry


def set_off(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    rules: Rules,
    trigger: LoggedEntry | SealedEntry,
    aftermath: Aftermath,
    *,
    sides: Mapping[str, Sequence[str]] | None = None,
) -> list[SealedEntry]:
    """Record what a roll set off (FAB-42's panic), each following it: at once, or for a
    hidden roll when the GM applies it (FAIR-21), as the roller's."""
    entries = []
    for follow_on in aftermath.follow_ons:
        # Prepared now: it reads the sheets as the triggering entry left them.
        follow_table = CampaignTable(session, access, released=trigger.seq, sides=sides)
        triggered = follow_on.prepare(follow_table)
        follow_rules = registry.sibling(rules, follow_on.kind)
        # FAIR-21: what a hidden roll sets off is at least as hidden.
        visibility = at_least_as_hidden(triggered.visibility, cast(Visibility, trigger.visibility))
        entries.append(
            record(
                session,
                access,
                follow_rules,
                dataclasses.replace(triggered, follows=trigger.seq, visibility=visibility),
                follow_table.read_players,
                actor_id=uuid.UUID(str(trigger.actor_id)),
            )
        )
    return entries


def set_off_when_applied(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    seq: int,
    sides: Mapping[str, Sequence[str]] | None = None,
) -> list[SealedEntry]:
    """FAIR-21: the follow-ons a hidden roll set off, rolled once the GM applied it, from
    the roll as it was logged (its rules replay it the same way); `sides`, the allies of an
    encounter it was an action of."""
    stored = session.get(LogEntry, (access.campaign.id, seq))
    assert stored is not None
    trigger = logged_entry(stored)
    rules = registry.for_entry(stored.as_entry())
    kind = rules.kind
    assert kind.after is not None
    prepared = Prepared(
        kind.parse_request(trigger.request),
        character_id=trigger.character_id,
        visibility=trigger.visibility,
        follows=stored.follows,
    )
    resolution = Resolution(
        kind.parse_result(trigger.result),
        [Effect.model_validate(effect) for effect in trigger.effects],
    )
    aftermath = kind.after(prepared, resolution, seq)
    return set_off(session, access, registry, rules, trigger, aftermath, sides=sides)
