"""Combat encounters: roster, initiative by the system's rule, rounds, turns and actions.

Every step is an entry of the campaign log: the encounter's own events, the initiative
roll, and each action through the system's roll kinds. All of it runs under the campaign
row lock, like every other write to a campaign. What differs from one ruleset to another
(initiative, the order of turns, what an action costs, what binds a combatant) is the
ruleset's `Combat`; this module keeps the roster and the turns.

Every step also lands in the encounter's `history` (an action, a turn passed or passed
by, a combatant who joined or left) and changes its `version`, a digest of what every
member sees of its turns; a write may name the version (If-Match) or the turn
(`expected_turn`) it expects, and a stale one is refused (the turn guard).
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func
from sqlmodel import Session, col, select

from app.core.problems import Conflict, Forbidden, NotFound, Unprocessable
from app.engine.contract import (
    Combat,
    CombatAction,
    Combatant,
    Prepared,
    RecordedEntry,
    acting_character_id,
)
from app.engine.errors import RuleRefusal
from app.engine.registry import Registry, Rules
from app.models import Character, Encounter, LogEntry, User, utcnow
from app.models.encounter import CombatantCreate, EncounterCreate
from app.services import encounter_turns as turns
from app.services.access import (
    CampaignAccess,
    LockedAccess,
    can_edit_character,
    find_encounter,
    get_campaign_access,
    get_campaign_character,
)
from app.services.awaiting import open_waits
from app.services.encounter_guard import Expected, current, guard, version_of
from app.services.feed.notices import note_change
from app.services.log import SealedEntry, append_entry, record
from app.services.roll_requests import answering, request_public
from app.services.rolls import (
    check_gm_decides,
    check_other_side,
    checked_roll,
    named_allies,
    record_roll,
)
from app.services.table import CampaignTable
from app.services.views import can_see

# History items that are not actions: the turn passed on, passed one by who sits out
# (FAB-23), a combatant joined or left.
PASSED = "turn_passed"
SKIPPED = "turn_skipped"
JOINED = "joined"
LEFT = "left"
STEPS = frozenset({PASSED, SKIPPED, JOINED, LEFT})


def _not_found(encounter_id: uuid.UUID) -> NotFound:
    return NotFound(f"encounter {encounter_id} not found, or not in one of your campaigns")


def load(
    session: Session,
    user: User,
    encounter_id: uuid.UUID,
    *,
    lock: bool = False,
    expected: Expected | None = None,
) -> tuple[Encounter, CampaignAccess]:
    """The encounter and the caller's access to its campaign (404 for non-members); locked,
    checked against what the write expects of it (409 when stale)."""
    encounter = find_encounter(session, encounter_id)
    if encounter is None:
        raise _not_found(encounter_id)
    try:
        access = get_campaign_access(session, encounter.campaign_id, user, lock=lock)
    except NotFound:
        raise _not_found(encounter_id) from None
    if lock:
        # Read again under the campaign lock: another request may have just changed it.
        session.refresh(encounter)
        if expected is not None:
            guard(encounter, expected)
    return encounter, access


def combat_of(registry: Registry, access: CampaignAccess) -> Combat:
    """The campaign's combat rules, or 409 for a system that has none."""
    ruleset, _ = registry.system(access.campaign.system)
    if ruleset.combat is None:
        raise Conflict(f"{ruleset.name} has no combat rules: it runs no encounters")
    return ruleset.combat


def _roster(encounter: Encounter) -> list[Combatant]:
    return [Combatant.model_validate(combatant) for combatant in encounter.combatants]


def _keep(encounter: Encounter, combatants: list[Combatant]) -> None:
    encounter.combatants = [combatant.dump() for combatant in combatants]


def _combatant(character: Character, data: CombatantCreate) -> Combatant:
    return Combatant(
        character_id=str(character.id),
        name=character.name,
        kind=character.kind,
        side=data.side,
        surprise=data.surprise,
        off_guard=data.off_guard,
        active=True,
        initiative=None,
        spent={},
        conditions=[],
    )


def _log(
    session: Session,
    access: CampaignAccess,
    encounter: Encounter,
    kind: str,
    **details: Any,
) -> SealedEntry:
    return append_entry(
        session,
        access.campaign,
        kind=kind,
        actor_id=access.user.id,
        request={"encounter_id": str(encounter.id), **details},
        result={"status": encounter.status, "round": encounter.round},
    )


def _save(session: Session, encounter: Encounter) -> None:
    encounter.updated_at = utcnow()
    session.add(encounter)
    note_change(session, encounter.campaign_id, "encounters", encounter.id)


def create(
    session: Session, access: CampaignAccess, registry: Registry, data: EncounterCreate
) -> Encounter:
    access.require_gm("set up an encounter")
    combat_of(registry, access)
    encounter = Encounter(campaign_id=access.campaign.id, name=data.name)
    seen: set[uuid.UUID] = set()
    combatants = []
    for entry in data.combatants:
        if entry.character_id in seen:
            raise Unprocessable(f"combatant {entry.character_id} is listed twice")
        seen.add(entry.character_id)
        character = get_campaign_character(session, access, entry.character_id)
        combatants.append(_combatant(character, entry))
    _keep(encounter, combatants)
    session.add(encounter)
    note_change(session, encounter.campaign_id, "encounters", encounter.id)
    session.flush()
    _log(
        session,
        access,
        encounter,
        "encounter.created",
        name=data.name,
        combatants=[c.character_id for c in combatants],
    )
    return encounter


def list_encounters(
    session: Session, access: CampaignAccess, *, limit: int, offset: int
) -> tuple[list[Encounter], int]:
    condition = col(Encounter.campaign_id) == access.campaign.id
    count = session.exec(select(func.count()).select_from(Encounter).where(condition)).one()
    rows = session.exec(
        select(Encounter)
        .where(condition)
        .order_by(col(Encounter.created_at).desc(), col(Encounter.id))
        .limit(limit)
        .offset(offset)
    ).all()
    return list(rows), count


# --- initiative ----------------------------------------------------------------------------


def _roll_initiative(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    encounter: Encounter,
    combatants: list[Combatant],
    tie_order: list[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Roll the system's initiative for these combatants: each one's row, in order. A
    ruleset whose initiative request takes an `order` (JDR-30a) gets the players' order
    between tied PCs; another breaks its ties itself."""
    combat = combat_of(registry, access)
    rules = registry.in_campaign(access.campaign.system, combat.initiative_kind)
    request = combat.initiative(CampaignTable(session, access), encounter.deck, combatants)
    if tie_order:
        if "order" not in type(request).model_fields:
            ruleset, _ = registry.system(access.campaign.system)
            raise Unprocessable(
                f"{ruleset.name} breaks initiative ties by its own rule: send no tie_order"
            )
        request = request.model_copy(update={"order": tie_order})
    entry = record(session, access, rules, Prepared(request))
    assert entry.resolution is not None
    result = entry.resolution.result
    state = combat.initiative_state(result)
    if state is not None:
        encounter.deck = state
    return {row.character_id: row.row for row in combat.initiative_rows(result)}


def start(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    encounter: Encounter,
    tie_order: list[uuid.UUID] | None = None,
) -> None:
    """Roll initiative for everyone by the system's rule; round 1 begins, passing by whoever
    sits out. `tie_order`: the players' order between tied PCs (JDR-30a)."""
    access.require_gm("roll initiative")
    if encounter.status != "setup":
        raise Conflict(f"the encounter is {encounter.status}; initiative is rolled once, at setup")
    roster = _roster(encounter)
    live = [c for c in roster if c.active]
    if not live:
        raise Unprocessable("add combatants before rolling initiative")
    _fighting_elsewhere(session, encounter, live)
    order = _tie_order(live, tie_order or [])
    rows = _roll_initiative(session, access, registry, encounter, live, order)
    by_id = {c.character_id: c for c in roster}
    ordered = [by_id[cid].model_copy(update={"initiative": rows[cid]}) for cid in rows]
    rest = [c for c in roster if c.character_id not in rows]
    combatants = ordered + rest
    _keep(encounter, combatants)
    encounter.status, encounter.round, encounter.turn = "active", 1, 0
    combat = combat_of(registry, access)
    if _sits_out(session, access, combat, combatants[0]) is not None:
        _advance(session, access, registry, combat, encounter, combatants, 0)
    _save(session, encounter)


def _tie_order(live: list[Combatant], tie_order: list[uuid.UUID]) -> list[str]:
    """JDR-30a: the players choose the order between tied PCs: each a PC of the encounter,
    named once."""
    fighting = {c.character_id: c for c in live}
    order = [str(character_id) for character_id in tie_order]
    for character_id in order:
        combatant = fighting.get(character_id)
        if combatant is None:
            raise Unprocessable(f"tie_order: character {character_id} is not in this encounter")
        if combatant.kind != "pc":
            raise Unprocessable(
                f"JDR-30a: tie_order names {combatant.name}, an NPC; the order between "
                "tied PCs is the players' choice",
                rule="JDR-30a",
            )
    if len(set(order)) != len(order):
        raise Unprocessable("tie_order names a character twice")
    return order


def _fighting_elsewhere(
    session: Session, encounter: Encounter, combatants: list[Combatant]
) -> None:
    """A character fights in one running encounter at a time: 409 naming the other."""
    wanted = {c.character_id for c in combatants if c.active}
    running = session.exec(
        select(Encounter).where(
            col(Encounter.campaign_id) == encounter.campaign_id,
            col(Encounter.status) == "active",
            col(Encounter.id) != encounter.id,
        )
    ).all()
    for other in running:
        for fighter in other.combatants:
            if fighter["active"] and fighter["character_id"] in wanted:
                raise Conflict(
                    f"{fighter['name']} is already fighting in the encounter {other.name!r} "
                    f"({other.id}): remove them from it, or end it, first",
                    encounter_id=str(other.id),
                )


# --- roster changes ------------------------------------------------------------------------


def join(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    encounter: Encounter,
    data: CombatantCreate,
) -> None:
    """A newcomer; mid-fight they get initiative by the system's rule (FAB-61's deck goes on)."""
    access.require_gm("add combatants")
    if encounter.status == "ended":
        raise Conflict("the encounter has ended")
    combat = combat_of(registry, access)
    character = get_campaign_character(session, access, data.character_id)
    roster = _roster(encounter)
    if any(c.character_id == str(character.id) and c.active for c in roster):
        raise Conflict(f"{character.name} is already in this encounter")
    newcomer = _combatant(character, data)
    if encounter.status == "active":
        _fighting_elsewhere(session, encounter, [newcomer])
    combatants = []
    for index, combatant in enumerate(roster):
        if combatant.character_id == newcomer.character_id:
            if index < encounter.turn:
                encounter.turn -= 1  # the rows after it move up; the turn stays with its owner
            continue
        combatants.append(combatant)
    if encounter.status == "active":
        rows = _roll_initiative(session, access, registry, encounter, [newcomer])
        newcomer.initiative = rows.get(newcomer.character_id)
        combatants = _insert(combat, combatants, newcomer, encounter.turn)
    else:
        combatants.append(newcomer)
    _keep(encounter, combatants)
    logged = _log(session, access, encounter, "encounter.joined", character_id=str(character.id))
    _note(encounter, JOINED, newcomer.character_id, logged.seq)
    _save(session, encounter)


def _insert(
    combat: Combat, combatants: list[Combatant], newcomer: Combatant, turn: int
) -> list[Combatant]:
    """Place a newcomer by their initiative among those who already act, after the turn."""
    for index, other in enumerate(combatants):
        if index > turn and combat.acts_before(newcomer, other):
            return [*combatants[:index], newcomer, *combatants[index:]]
    return [*combatants, newcomer]


def leave(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    encounter: Encounter,
    character_id: uuid.UUID,
) -> None:
    """The GM takes a combatant out; on their turn, the turn passes on."""
    access.require_gm("remove combatants")
    if encounter.status == "ended":
        raise Conflict("the encounter has ended")
    if not _remove(session, access, registry, encounter, str(character_id), "removed"):
        raise NotFound(f"character {character_id} is not fighting in this encounter")


def character_deleted(
    session: Session, access: LockedAccess, registry: Registry, character_id: uuid.UUID
) -> None:
    """A deleted character leaves every encounter not ended yet, passing the turn on if
    it was theirs."""
    for encounter in session.exec(
        select(Encounter)
        .where(
            col(Encounter.campaign_id) == access.campaign.id,
            col(Encounter.status) != "ended",
        )
        .order_by(col(Encounter.created_at), col(Encounter.id))
    ).all():
        _remove(session, access, registry, encounter, str(character_id), "deleted")


def _remove(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    encounter: Encounter,
    character_id: str,
    reason: str,
) -> bool:
    """The combatant no longer fights (their row stays, for the history); whether they did."""
    roster = _roster(encounter)
    index = next(
        (i for i, c in enumerate(roster) if c.character_id == character_id and c.active), None
    )
    if index is None:
        return False
    on_turn = encounter.status == "active" and index == encounter.turn
    roster[index].active = False
    _keep(encounter, roster)
    logged = _log(session, access, encounter, "encounter.left", character_id=character_id)
    _note(encounter, LEFT, character_id, logged.seq, reason=reason)
    if on_turn:
        combat = combat_of(registry, access)
        # Passed on to whoever may act; when nobody may now, the GM's next passes rounds.
        if any(_sits_out(session, access, combat, c) is None for c in roster if c.active):
            _advance(session, access, registry, combat, encounter, roster, index + 1, roster[index])
    _save(session, encounter)
    return True


# --- turns ---------------------------------------------------------------------------------


def next_turn(
    session: Session, access: LockedAccess, registry: Registry, encounter: Encounter
) -> None:
    """The turn passes to the next combatant able to act; past the last, a new round. Not
    while an action's states wait to be settled (FAB-34); those who sit out (the dead, the
    Broken, FAB-23) have their turns passed, shown in the history."""
    if encounter.status != "active":
        raise Conflict(f"the encounter is {encounter.status}; only an active one has turns")
    acting = current(encounter)
    if not access.is_gm and not (acting and _controls(session, access, acting["character_id"])):
        raise Forbidden("the GM, or the player whose turn it is, passes the turn")
    combat = combat_of(registry, access)
    waiting = turns.unsettled(session, access, combat, _action_seqs(encounter))
    if waiting:
        raise Conflict(_waiting_detail(session, access, waiting))
    combatants = _roster(encounter)
    passing = combatants[encounter.turn]
    combat.after_turn(passing)
    _advance(session, access, registry, combat, encounter, combatants, encounter.turn + 1, passing)
    _save(session, encounter)


def _sits_out(
    session: Session, access: CampaignAccess, combat: Combat, combatant: Combatant
) -> str | None:
    """Why the combatant, as the table may know it, loses its turn now (or None)."""
    sheet = turns.sheets(session, access, [combatant]).get(combatant.character_id, {})
    return combat.sits_out(turns.told(session, access, combatant), sheet)


def _advance(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    combat: Combat,
    encounter: Encounter,
    combatants: list[Combatant],
    first: int,
    passing: Combatant | None = None,
) -> None:
    """The turn goes to the first combatant able to act from position `first` on; past
    the last, a new round. Those who sit out are passed by (`turn_skipped`, with the round
    of the turn they lost); `passing`, whose turn ended, is shown `turn_passed`. One
    `encounter.turn` entry records it all."""
    turn, new_round = first, encounter.round
    sheets = turns.sheets(session, access, combatants)
    skipped: list[tuple[Combatant, int, str]] = []  # with the round of the turn it lost
    # Two rounds at most: a round that passes may wake a combatant (FAB-50's Sonné).
    for _ in range(2 * len(combatants)):
        if turn >= len(combatants):
            turn, new_round = 0, new_round + 1
            for combatant in combatants:
                combatant.spent = {}
            if combat.initiative_each_round:  # VAM-40: rolled again for the new round
                live = [c for c in combatants if c.active]
                rows = _roll_initiative(session, access, registry, encounter, live)
                for combatant in live:
                    combatant.initiative = rows.get(combatant.character_id, combatant.initiative)
            # From round 2 the standing order holds: newcomers sorted in, JDR-31a's
            # first-round surprise and off guard lifted.
            combatants = [
                c
                for _, c in sorted(
                    enumerate(combatants), key=lambda p: combat.standing_key(p[1], p[0])
                )
            ]
            if turns.pass_round(session, access, registry, combat, combatants):
                sheets = turns.sheets(session, access, combatants)
        candidate = combatants[turn]
        if candidate.active:
            known = turns.told(session, access, candidate)
            reason = combat.sits_out(known, sheets.get(candidate.character_id, {}))
            if reason is None:
                break
            skipped.append((candidate, new_round, reason))
            combat.after_turn(candidate)
        turn += 1
    else:
        raise Conflict("no combatant is left able to act; end the encounter")
    _keep(encounter, combatants)
    passed_round = encounter.round
    encounter.turn, encounter.round = turn, new_round
    if passing is None and not skipped:
        return  # the first turn of the fight: nothing passed
    passed_by = {"skipped": [c.character_id for c, _, _ in skipped]} if skipped else {}
    to = combatants[turn].character_id
    logged = _log(
        session, access, encounter, "encounter.turn", turn=turn, character_id=to, **passed_by
    )
    if passing is not None:
        _note(encounter, PASSED, passing.character_id, logged.seq, round=passed_round, to=to)
    for combatant, lost, reason in skipped:
        _note(encounter, SKIPPED, combatant.character_id, logged.seq, round=lost, reason=reason)


def _note(encounter: Encounter, kind: str, actor_id: str, seq: int, **fields: Any) -> None:
    """A step in the encounter's history (in the current round unless told)."""
    item = {"round": encounter.round, "actor_id": actor_id, "kind": kind, "seq": seq, **fields}
    encounter.history = [*encounter.history, item]


def _actions(encounter: Encounter) -> list[dict[str, Any]]:
    """The history's actions: its items of the system's roll kinds."""
    return [item for item in encounter.history if item["kind"] not in STEPS]


def _action_seqs(encounter: Encounter) -> list[int]:
    return [int(item["seq"]) for item in _actions(encounter)]


def _waiting_detail(
    session: Session, access: CampaignAccess, waiting: list[turns.Unsettled]
) -> str:
    names = {
        str(c.id): c.name
        for c in session.exec(
            select(Character).where(
                col(Character.campaign_id) == access.campaign.id,
                col(Character.id).in_([uuid.UUID(w.character_id) for w in waiting]),
            )
        ).all()
    }
    pending = "; ".join(
        f"{names.get(w.character_id, w.character_id)}: {w.count} from seq {w.seq}" for w in waiting
    )
    return (
        f"FAB-34: states wait to be settled before the turn passes ({pending}); the "
        "character's player accepts (fabulae.state_choice) or absorbs (fabulae.absorb) "
        "each, or the GM accepts them"
    )


def end(session: Session, access: CampaignAccess, encounter: Encounter) -> None:
    access.require_gm("end the encounter")
    if encounter.status == "ended":
        raise Conflict("the encounter has already ended")
    encounter.status = "ended"
    encounter.ended_at = utcnow()
    _save(session, encounter)
    _log(session, access, encounter, "encounter.ended")


# --- actions -------------------------------------------------------------------------------


def _character(session: Session, access: CampaignAccess, character_id: str) -> Character:
    return get_campaign_character(session, access, uuid.UUID(character_id))


def _controls(session: Session, access: CampaignAccess, character_id: str) -> bool:
    return can_edit_character(access, _character(session, access, character_id))


def act(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    encounter: Encounter,
    action: BaseModel,
    request_id: uuid.UUID | None = None,
) -> SealedEntry:
    """One action of the system's roll kinds, by the combatant whose turn it is; with
    `request_id`, the answer to what the GM imposed in a roll request."""
    if encounter.status == "setup":
        raise Conflict("the encounter has not started: roll initiative first")
    if encounter.status == "ended":
        raise Conflict("the encounter has ended; no more actions")
    combat = combat_of(registry, access)
    kind_name = str(getattr(action, "kind"))  # noqa: B009 (every action has its kind)
    rules: Rules = registry.in_campaign(access.campaign.system, kind_name)
    ruleset, _ = registry.system(access.campaign.system)
    if rules.ruleset is not ruleset or rules.kind.body is None:
        raise Unprocessable(f"a {access.campaign.system} encounter takes {ruleset.name} roll kinds")
    # What the client sent, no more: a request's values may fill what it left out.
    sent = action.model_dump(exclude={"actor_id", "override", "expected_turn"}, exclude_unset=True)
    body = rules.kind.body.model_validate(sent)
    actor_id = str(getattr(action, "actor_id"))  # noqa: B009
    override_asked = bool(getattr(action, "override", False))
    combatants = _roster(encounter)
    actor = next((c for c in combatants if c.character_id == actor_id and c.active), None)
    if actor is None:
        raise Unprocessable(f"character {actor_id} is not fighting in this encounter")
    acting = acting_character_id(body)
    if acting is not None and acting != actor_id:
        raise Unprocessable(f"the action is for character {acting}, not the actor {actor_id}")
    if not _controls(session, access, actor_id):
        raise Forbidden(f"you may act only for your own characters, not {actor.name}")
    if override_asked and not access.is_gm:
        raise Forbidden("only the GM acts out of turn")
    override = override_asked and access.is_gm
    turn_of = current(encounter)
    reaction = rules.kind.reaction
    if not reaction and not override and (turn_of is None or turn_of["character_id"] != actor_id):
        whose = turn_of["name"] if turn_of else "nobody"
        raise Conflict(f"it is {whose}'s turn, not {actor.name}'s")
    reply = None
    if request_id is not None:
        reply = answering(session, access, rules.kind, body, request_id)
        body = reply.body
    # FAIR-21 first: the rules of the fight (a panic's binding) read the actor's sheet and
    # conditions, which a hidden roll may hold; refused by them, the answer would tell it.
    table = CampaignTable(session, access, released=getattr(body, "follows", None))
    sheet = table.readable_sheet(_character(session, access, actor_id))
    context = CombatAction(
        kind=rules.kind,
        body=body,
        actor=actor,
        combatants=combatants,
        round=encounter.round,
        override=override,
        reaction=reaction,
        sheet=sheet,
        turn_of=turn_of["character_id"] if turn_of else None,
        untold=frozenset(
            row.seq
            for row in turns.unapplied_hidden(
                session,
                access,
                {c.seq for fighter in combatants for c in fighter.conditions if c.seq},
            )
        ),
    )
    if reply is None:
        check_gm_decides(access, rules.kind, body)
        check_other_side(session, access, rules.kind, body)
    if not reaction and not override:
        combat.check_action(context)
    context.body = combat.prepare_action(context)
    # FAB-44: a panic this action sets off reaches the actor's side and the allies it names.
    sides = _sides(combatants)
    foes = {c.character_id: c.name for c in combatants if c.side != actor.side}
    named = [str(ally) for ally in getattr(context.body, "allies", None) or []]
    if against := [foes[ally] for ally in named if ally in foes]:
        raise Unprocessable(f"allies: {', '.join(against)} fights on the other side (FAB-44)")
    sides.update(named_allies(session, access, context.body, sides.get(actor_id, [])))
    try:
        checked = checked_roll(
            session,
            access,
            rules,
            context.body,
            answering=reply.seq if reply else None,
            gm_set=reply.gm_set if reply else frozenset(),
            sides=sides,
        )
        entry = record_roll(session, access, registry, checked)
    except RuleRefusal as refusal:
        if reply is not None and refusal.recorded_seq is not None:
            reply.answered(session, refusal.recorded_seq)  # the attempt is logged (FAB-14)
        raise
    if reply is not None:
        reply.answered(session, entry.seq)
    recorded = [
        # As the rules made them: the stored result may hold commitments (FAIR-18).
        RecordedEntry(
            e.seq,
            e.kind,
            e.data.get("character_id"),
            e.resolution.result.dump() if e.resolution is not None else e.result,
            e.request_model,
        )
        for e in [entry, *entry.triggered]
    ]
    combat.after_action(context, recorded)
    _keep(encounter, combatants)
    encounter.history = [
        *encounter.history,
        {"round": encounter.round, "actor_id": actor_id, "kind": kind_name, "seq": entry.seq},
    ]
    _save(session, encounter)
    return entry


def _sides(combatants: list[Combatant]) -> dict[str, list[str]]:
    """Each combatant's allies: those still fighting on its side."""
    return {
        c.character_id: [
            o.character_id
            for o in combatants
            if o.active and o.side == c.side and o.character_id != c.character_id
        ]
        for c in combatants
    }


class _Applied(BaseModel):
    """The GM's apply, which has no body of its own."""


def sides_of_action(session: Session, access: CampaignAccess, seq: int) -> dict[str, list[str]]:
    """The allies of the running encounter the entry is an action of (FAB-44), or none."""
    for encounter in session.exec(
        select(Encounter).where(
            col(Encounter.campaign_id) == access.campaign.id, col(Encounter.status) == "active"
        )
    ).all():
        if any(item["seq"] == seq for item in _actions(encounter)):
            return _sides(_roster(encounter))
    return {}


def bind_set_off(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    seq: int,
    entries: list[SealedEntry],
) -> None:
    """FAIR-21: what a hidden action of an encounter set off, rolled when the GM applied it
    (a panic), binds its combatant from now on, during whoever's turn it is."""
    if not entries:
        return
    for encounter in session.exec(
        select(Encounter).where(
            col(Encounter.campaign_id) == access.campaign.id, col(Encounter.status) == "active"
        )
    ).all():
        item = next((h for h in _actions(encounter) if h["seq"] == seq), None)
        turn_of = current(encounter)
        if item is None or turn_of is None:
            continue
        combatants = _roster(encounter)
        actor = next(c for c in combatants if c.character_id == turn_of["character_id"])
        context = CombatAction(
            kind=registry.in_campaign(access.campaign.system, item["kind"]).kind,
            body=_Applied(),
            actor=actor,
            combatants=combatants,
            round=encounter.round,
            override=False,
            reaction=True,  # nobody acted: what binds the one whose turn it is stays
            sheet={},
        )
        recorded = [
            RecordedEntry(
                e.seq,
                e.kind,
                e.data.get("character_id"),
                e.resolution.result.dump(),
                e.request_model,
            )
            for e in entries
            if e.resolution is not None
        ]
        combat_of(registry, access).after_action(context, recorded)
        _keep(encounter, combatants)
        _save(session, encounter)


# --- views ---------------------------------------------------------------------------------


def _hidden_from(session: Session, access: CampaignAccess, encounter: Encounter) -> set[int]:
    """The seqs of the entries behind the combatants' conditions that the caller may not see
    and the GM has not applied yet (FAIR-21: applied, the binding is told by the refusal of
    the next action anyway, so the view says it too)."""
    seqs = {
        condition["seq"]
        for combatant in encounter.combatants
        for condition in combatant["conditions"]
        if condition.get("seq") is not None
    }
    return {
        row.seq for row in turns.unapplied_hidden(session, access, seqs) if not can_see(row, access)
    }


def _acted_unseen(session: Session, access: CampaignAccess, encounter: Encounter) -> set[str]:
    """The combatants who acted this round in an entry the caller may not see."""
    seqs = {
        item["seq"]: item["actor_id"]
        for item in _actions(encounter)
        if item["round"] == encounter.round
    }
    if not seqs:
        return set()
    rows = session.exec(
        select(LogEntry).where(
            col(LogEntry.campaign_id) == access.campaign.id, col(LogEntry.seq).in_(list(seqs))
        )
    ).all()
    return {seqs[row.seq] for row in rows if not can_see(row, access)}


def view(
    session: Session, access: CampaignAccess, registry: Registry, encounter: Encounter
) -> dict[str, Any]:
    """The encounter as the caller may see it: players see of an NPC its place in the order,
    not its condition, initiative inputs, spending or bindings."""
    combat = combat_of(registry, access)
    fields = tuple(combat.condition.model_fields)
    characters = {
        str(c.id): c
        for c in session.exec(
            select(Character).where(
                col(Character.campaign_id) == encounter.campaign_id,
                col(Character.id).in_([uuid.UUID(x["character_id"]) for x in encounter.combatants]),
            )
        ).all()
    }

    hidden = set() if access.is_gm else _hidden_from(session, access, encounter)
    unseen = set() if access.is_gm else _acted_unseen(session, access, encounter)

    def public(combatant: dict[str, Any]) -> dict[str, Any]:
        character = characters.get(combatant["character_id"])
        if combatant["character_id"] in unseen and "willpower" in combatant["spent"]:
            # FAIR-21: a spend made in an action hidden from the caller is that action's.
            spent = {k: v for k, v in combatant["spent"].items() if k != "willpower"}
            combatant = {**combatant, "spent": spent}
        if hidden:
            # FAIR-21: a binding set by an entry the caller may not see (the panic after a
            # blind roll) would tell its outcome.
            conditions = [c for c in combatant["conditions"] if c.get("seq") not in hidden]
            combatant = {**combatant, "conditions": conditions}
        if combatant["kind"] == "npc" and not access.is_gm:
            # FAIR-21: an NPC's sheet is the GM's; its initiative row holds the attributes
            # it was rolled with, and what it spent or is bound by tells its state.
            return {
                **combatant,
                "surprise": None,  # committed in the initiative entry too (FAIR-18)
                "initiative": None,
                "spent": {},
                "conditions": [],
                "condition": None,
            }
        condition = None
        if character is not None:
            condition = {name: character.sheet.get(name) for name in fields}
        return {**combatant, "condition": condition}

    kinds = {c["character_id"]: c["kind"] for c in encounter.combatants}

    def step(item: dict[str, Any]) -> dict[str, Any]:
        if item["kind"] == SKIPPED and not access.is_gm and kinds.get(item["actor_id"]) != "pc":
            # FAIR-21: why an NPC sits out (dead, Broken, frozen…) is its sheet's, the GM's.
            return {key: value for key, value in item.items() if key != "reason"}
        return item

    turn_of = current(encounter)
    return {
        "id": encounter.id,
        "campaign_id": encounter.campaign_id,
        "name": encounter.name,
        "status": encounter.status,
        "version": version_of(encounter),
        "round": encounter.round,
        "current": public(turn_of) if turn_of else None,
        "combatants": [public(c) for c in encounter.combatants],
        "history": [step(item) for item in encounter.history],
        "pending_states": [
            waiting.public()
            for waiting in turns.unsettled(session, access, combat, _action_seqs(encounter))
        ],
        "awaiting": [
            request_public(row) for row in open_waits(session, access, _action_seqs(encounter))
        ],
        "created_at": encounter.created_at,
    }
