"""Combat encounters: roster, initiative by the system's rule, rounds, turns and actions.

Every step is an entry of the campaign log: the encounter's own events, the initiative
roll, and each action through the system's roll kinds. All of it runs under the
campaign row lock, like every other write to a campaign.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy import func
from sqlmodel import Session, col, select

from app.core.problems import Conflict, Forbidden, NotFound, Unprocessable
from app.engine import encounters as rules
from app.engine.errors import RuleRefusal
from app.engine.systems import get_ruleset
from app.models import Character, Encounter, LogEntry, User, utcnow
from app.models.encounter import (
    CombatantCreate,
    CombatantPublic,
    EncounterAction,
    EncounterCreate,
    EncounterPublic,
)
from app.models.fabulae import DiceModifier
from app.models.rolls import RollCreate
from app.services.access import (
    CampaignAccess,
    can_edit_character,
    get_campaign_access,
    get_campaign_character,
)
from app.services.log import SealedEntry, append_entry, public_view, record_resolution
from app.services.rolls import clock_request, create_roll

ROLL_BODY: TypeAdapter[Any] = TypeAdapter(RollCreate)
# What each ruleset shows of a combatant's condition.
CONDITION_FIELDS: dict[str, tuple[str, ...]] = {
    "jdr": ("wounds", "status", "destroyed"),
    "fabulae": ("states", "broken", "stress", "sequelae", "dead", "armor", "grappled_by"),
    "vampire": ("willpower",),
}
INITIATIVE_KIND = {
    "jdr": "jdr.initiative",
    "fabulae": "fabulae.initiative",
    "vampire": "vampire.initiative",
}


def _not_found(encounter_id: uuid.UUID) -> NotFound:
    return NotFound(f"encounter {encounter_id} not found, or not in one of your campaigns")


def load(
    session: Session, user: User, encounter_id: uuid.UUID, *, lock: bool = False
) -> tuple[Encounter, CampaignAccess]:
    """The encounter and the caller's access to its campaign (404 for non-members)."""
    encounter = session.get(Encounter, encounter_id)
    if encounter is None:
        raise _not_found(encounter_id)
    try:
        access = get_campaign_access(session, encounter.campaign_id, user, lock=lock)
    except NotFound:
        raise _not_found(encounter_id) from None
    if lock:
        # Read again under the campaign lock: another request may have just changed it.
        session.refresh(encounter)
    return encounter, access


def _family(access: CampaignAccess) -> str:
    return get_ruleset(access.campaign.system).family


def _combatant(character: Character, data: CombatantCreate) -> dict[str, Any]:
    return {
        "character_id": str(character.id),
        "name": character.name,
        "kind": character.kind,
        "side": data.side,
        "surprise": data.surprise,
        "off_guard": data.off_guard,
        "active": True,
        "initiative": None,
        "spent": {},
        "conditions": [],
    }


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


def create(session: Session, access: CampaignAccess, data: EncounterCreate) -> Encounter:
    access.require_gm("set up an encounter")
    encounter = Encounter(campaign_id=access.campaign.id, name=data.name)
    seen: set[uuid.UUID] = set()
    for entry in data.combatants:
        if entry.character_id in seen:
            raise Unprocessable(f"combatant {entry.character_id} is listed twice")
        seen.add(entry.character_id)
        character = get_campaign_character(session, access, entry.character_id)
        encounter.combatants = [*encounter.combatants, _combatant(character, entry)]
    session.add(encounter)
    session.flush()
    _log(
        session,
        access,
        encounter,
        "encounter.created",
        name=data.name,
        combatants=[c["character_id"] for c in encounter.combatants],
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


def _initiative_request(
    session: Session, access: CampaignAccess, encounter: Encounter, combatants: list[dict[str, Any]]
) -> dict[str, Any]:
    """What the system's initiative rule reads of the combatants."""
    family = _family(access)
    sheets = {
        c["character_id"]: _character(session, access, c["character_id"]).sheet for c in combatants
    }
    if family == "jdr":
        earlier = _jdr_initiative_this_scene(session, access)
        rolling = [c for c in combatants if c["character_id"] not in earlier]
        return {
            "combatants": [
                {
                    "id": c["character_id"],
                    "name": c["name"],
                    "kind": c["kind"],
                    "physique": sheets[c["character_id"]]["traits"]["physique"],
                    "wounds": sheets[c["character_id"]].get("wounds", []),
                    "surprise": c["surprise"],
                    "off_guard": c["off_guard"],
                }
                for c in rolling
            ],
            # JDR-31: initiative is rolled once per scene; earlier totals carry over, and
            # this encounter's own surprise and off guard apply to its first round.
            "carried": [
                _carried(earlier[c["character_id"]], c)
                for c in combatants
                if c["character_id"] in earlier
            ],
            "already_rolled": [],
        }
    if family == "fabulae":
        return {
            "combatants": [
                {
                    "id": c["character_id"],
                    "name": c["name"],
                    "kind": c["kind"],
                    "quick_draw_initiative": "quick_draw_initiative"
                    in sheets[c["character_id"]].get("talents", []),
                }
                for c in combatants
            ],
            "deck": encounter.deck.get("deck", 1),
            "drawn": encounter.deck.get("drawn", []),
        }
    return {
        "combatants": [
            {
                "id": c["character_id"],
                "name": c["name"],
                "kind": c["kind"],
                "dexterite": sheets[c["character_id"]]["attributes"]["dexterite"],
                "astuce": sheets[c["character_id"]]["attributes"]["astuce"],
            }
            for c in combatants
        ]
    }


def _carried(row: dict[str, Any], combatant: dict[str, Any]) -> dict[str, Any]:
    surprise = 2 if combatant["surprise"] else 0
    base = int(row["total"]) - int(row.get("surprise", 0))
    return {
        **row,
        "total": base + surprise,
        "surprise": surprise,
        "off_guard": combatant["off_guard"],
    }


def _jdr_initiative_this_scene(
    session: Session, access: CampaignAccess
) -> dict[str, dict[str, Any]]:
    """JDR-31: each combatant's initiative row already rolled in the current scene."""
    rows = session.exec(
        select(LogEntry).where(
            col(LogEntry.campaign_id) == access.campaign.id, col(LogEntry.kind) == "jdr.initiative"
        )
    ).all()
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.request.get("scene") == access.campaign.current_scene:
            for item in row.result["order"]:
                kept = {k: v for k, v in item.items() if k not in ("rank", "carried")}
                found[item["character_id"]] = kept
    return found


def _roll_initiative(
    session: Session, access: CampaignAccess, encounter: Encounter, combatants: list[dict[str, Any]]
) -> SealedEntry:
    family = _family(access)
    request = {
        **clock_request(access),
        **_initiative_request(session, access, encounter, combatants),
    }
    entry = record_resolution(session, access, kind=INITIATIVE_KIND[family], request=request)
    if family == "fabulae":
        encounter.deck = {"deck": entry.result["deck"], "drawn": entry.result["drawn"]}
    return entry


def start(session: Session, access: CampaignAccess, encounter: Encounter) -> SealedEntry:
    """Roll initiative for everyone by the system's rule; round 1 begins."""
    access.require_gm("roll initiative")
    if encounter.status != "setup":
        raise Conflict(f"the encounter is {encounter.status}; initiative is rolled once, at setup")
    live = [c for c in encounter.combatants if c["active"]]
    if not live:
        raise Unprocessable("add combatants before rolling initiative")
    entry = _roll_initiative(session, access, encounter, live)
    rows = {row["character_id"]: row for row in entry.result["order"]}
    by_id = {c["character_id"]: c for c in encounter.combatants}
    ordered = [{**by_id[cid], "initiative": rows[cid]} for cid in rows]
    rest = [c for c in encounter.combatants if c["character_id"] not in rows]
    encounter.combatants = ordered + rest
    encounter.status, encounter.round, encounter.turn = "active", 1, 0
    _save(session, encounter)
    return entry


# --- roster changes ------------------------------------------------------------------------


def join(
    session: Session, access: CampaignAccess, encounter: Encounter, data: CombatantCreate
) -> None:
    """A newcomer; mid-fight they get initiative by the system's rule (FAB-61's deck goes on)."""
    access.require_gm("add combatants")
    if encounter.status == "ended":
        raise Conflict("the encounter has ended")
    character = get_campaign_character(session, access, data.character_id)
    present = {c["character_id"]: c for c in encounter.combatants}
    if present.get(str(character.id), {}).get("active"):
        raise Conflict(f"{character.name} is already in this encounter")
    newcomer = _combatant(character, data)
    combatants = []
    for index, combatant in enumerate(encounter.combatants):
        if combatant["character_id"] == str(character.id):
            if index < encounter.turn:
                encounter.turn -= 1  # the rows after it move up; the turn stays with its owner
            continue
        combatants.append(combatant)
    if encounter.status == "active":
        entry = _roll_initiative(session, access, encounter, [newcomer])
        newcomer["initiative"] = entry.result["order"][0] if entry.result["order"] else None
        combatants = _insert(combatants, newcomer, _family(access), encounter.turn)
    else:
        combatants.append(newcomer)
    encounter.combatants = combatants
    _save(session, encounter)
    _log(session, access, encounter, "encounter.joined", character_id=str(character.id))


def _insert(
    combatants: list[dict[str, Any]], newcomer: dict[str, Any], family: str, turn: int
) -> list[dict[str, Any]]:
    """Place a newcomer by their initiative among those who already act, after the turn."""

    def before(other: dict[str, Any]) -> bool:
        mine, theirs = newcomer["initiative"] or {}, other.get("initiative") or {}
        if family == "fabulae":
            return (mine.get("card", 99), mine.get("deck", 9)) < (
                theirs.get("card", 99),
                theirs.get("deck", 9),
            )
        return int(mine.get("total", 0)) > int(theirs.get("total", 0))

    for index, other in enumerate(combatants):
        if index > turn and before(other):
            return [*combatants[:index], newcomer, *combatants[index:]]
    return [*combatants, newcomer]


def leave(
    session: Session, access: CampaignAccess, encounter: Encounter, character_id: uuid.UUID
) -> None:
    access.require_gm("remove combatants")
    if encounter.status == "ended":
        raise Conflict("the encounter has ended")
    combatants = copy.deepcopy(encounter.combatants)
    for combatant in combatants:
        if combatant["character_id"] == str(character_id) and combatant["active"]:
            combatant["active"] = False
            break
    else:
        raise NotFound(f"character {character_id} is not fighting in this encounter")
    encounter.combatants = combatants
    _save(session, encounter)
    _log(session, access, encounter, "encounter.left", character_id=str(character_id))


# --- turns ---------------------------------------------------------------------------------


def current(encounter: Encounter) -> dict[str, Any] | None:
    if encounter.status != "active" or not encounter.combatants:
        return None
    return encounter.combatants[encounter.turn % len(encounter.combatants)]


def next_turn(session: Session, access: CampaignAccess, encounter: Encounter) -> None:
    """The turn passes to the next combatant still fighting; past the last, a new round."""
    if encounter.status != "active":
        raise Conflict(f"the encounter is {encounter.status}; only an active one has turns")
    acting = current(encounter)
    if not access.is_gm and not (acting and _controls(session, access, acting["character_id"])):
        raise Forbidden("the GM, or the player whose turn it is, passes the turn")
    combatants = copy.deepcopy(encounter.combatants)
    ended = combatants[encounter.turn]
    ended["conditions"] = rules.after_turn(ended.get("conditions", []))
    turn, new_round = encounter.turn, encounter.round
    for _ in range(len(combatants)):
        turn += 1
        if turn >= len(combatants):
            turn, new_round = 0, new_round + 1
            for combatant in combatants:
                combatant["spent"] = {}
            # From round 2 the standing order holds: newcomers sorted in, JDR-31a's
            # first-round surprise and off guard lifted.
            family = _family(access)
            combatants = [
                c
                for _, c in sorted(
                    enumerate(combatants), key=lambda p: rules.standing_key(family, p[1], p[0])
                )
            ]
        if combatants[turn]["active"]:
            break
    else:
        raise Conflict("no combatant is left in the fight; end the encounter")
    encounter.combatants, encounter.turn, encounter.round = combatants, turn, new_round
    _save(session, encounter)
    _log(
        session,
        access,
        encounter,
        "encounter.turn",
        turn=turn,
        character_id=combatants[turn]["character_id"],
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


def _acting_id(body: Any) -> str | None:
    """The character a roll body acts for, when it names one."""
    for field in ("attacker_id", "healer_id", "character_id"):
        value = getattr(body, field, None)
        if value is not None:
            return str(value)
    active = getattr(body, "active", None)
    return str(active.character_id) if active is not None else None


def act(
    session: Session, access: CampaignAccess, encounter: Encounter, action: EncounterAction
) -> SealedEntry:
    """One action of the system's roll kinds, by the combatant whose turn it is."""
    if encounter.status == "setup":
        raise Conflict("the encounter has not started: roll initiative first")
    if encounter.status == "ended":
        raise Conflict("the encounter has ended; no more actions")
    family = _family(access)
    payload = action.model_dump(exclude={"actor_id", "override"})
    if not str(action.kind).startswith(f"{family}."):
        raise Unprocessable(f"a {access.campaign.system} encounter takes {family}.* roll kinds")
    try:
        body = ROLL_BODY.validate_python(payload)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise Unprocessable(f"invalid {action.kind} action: {where}: {first['msg']}") from None
    actor_id = str(action.actor_id)
    combatants = copy.deepcopy(encounter.combatants)
    actor = next((c for c in combatants if c["character_id"] == actor_id and c["active"]), None)
    if actor is None:
        raise Unprocessable(f"character {actor_id} is not fighting in this encounter")
    acting = _acting_id(body)
    if acting is not None and acting != actor_id:
        raise Unprocessable(f"the action is for character {acting}, not the actor {actor_id}")
    if not _controls(session, access, actor_id):
        raise Forbidden(f"you may act only for your own characters, not {actor['name']}")
    override = action.override and access.is_gm
    if action.override and not access.is_gm:
        raise Forbidden("only the GM acts out of turn")
    turn_of = current(encounter)
    reaction = action.kind in rules.REACTION_KINDS
    if not reaction and not override and (turn_of is None or turn_of["character_id"] != actor_id):
        whose = turn_of["name"] if turn_of else "nobody"
        raise Conflict(f"it is {whose}'s turn, not {actor['name']}'s")
    if not reaction and not override:
        rules.check_conditions(actor.get("conditions", []), action.kind, actor["name"])
    sheet = _character(session, access, actor_id).sheet
    _prepare(family, encounter, combatants, actor, body, sheet, override)
    entry = create_roll(session, access, body)
    _after(combatants, actor, body, entry, reaction)
    encounter.combatants = combatants
    encounter.history = [
        *encounter.history,
        {"round": encounter.round, "actor_id": actor_id, "kind": action.kind, "seq": entry.seq},
    ]
    _save(session, encounter)
    return entry


def _prepare(
    family: str,
    encounter: Encounter,
    combatants: list[dict[str, Any]],
    actor: dict[str, Any],
    body: Any,
    sheet: dict[str, Any],
    override: bool,
) -> None:
    """The encounter's part of the rules: the round's budget and what combat changes."""
    spent = actor.setdefault("spent", {})
    if family == "fabulae":
        dumped = body.model_dump(mode="json")
        cost = rules.fabulae_cost(body.kind, dumped, sheet)
        if not override:
            rules.check_fabulae_budget(spent, cost, actor["name"])
        for key in ("slow", "fast"):
            spent[key] = int(spent.get(key, 0)) + cost[key]
        if body.kind == "fabulae.attack" and body.defense != "none":
            defender = next(
                (c for c in combatants if c["character_id"] == str(body.target_id)), None
            )
            if defender is not None:
                defense = rules.check_defense(defender.setdefault("spent", {}), defender["name"])
                defender["spent"]["fast"] = int(defender["spent"].get("fast", 0)) + defense["fast"]
        malus = rules.habilete_malus(actor.get("conditions", []))
        rolls_habilete = (body.kind == "fabulae.action" and body.attribute == "habilete") or (
            body.kind == "fabulae.attack" and body.mode == "ranged"
        )
        if malus and rolls_habilete:
            body.modifiers = [*body.modifiers, DiceModifier(source="panic tremors", dice=malus)]
        if body.kind == "fabulae.action":
            body.in_combat = True  # FAB-75
    elif family == "vampire" and body.kind == "vampire.action":
        body.tense = True  # VAM-20: no automatic success in combat
        if body.willpower:
            if spent.get("willpower"):
                raise RuleRefusal(
                    f"VAM-21: {actor['name']} already spent Willpower this round", rule="VAM-21"
                )
            spent["willpower"] = True
    elif (
        family == "jdr"
        and body.kind == "jdr.action"
        and encounter.round == 1
        and actor.get("off_guard")
        and actor.get("kind") == "pc"
    ):
        body.no_talent_bonus = True  # JDR-31a


def _after(
    combatants: list[dict[str, Any]],
    actor: dict[str, Any],
    body: Any,
    entry: SealedEntry,
    reaction: bool,
) -> None:
    """Panic results bind their combatant (FAB-44); next-action constraints lift."""
    if not reaction:
        actor["conditions"] = rules.after_action(actor.get("conditions", []))
    for panic in [entry, *entry.triggered]:
        if panic.kind != "fabulae.panic":
            continue
        who = panic.data.get("character_id")
        condition = rules.panic_condition(
            str(panic.result.get("code")), during_own_turn=who == actor["character_id"]
        )
        if condition is None or who is None:
            continue
        for combatant in combatants:
            if combatant["character_id"] == who:
                combatant["conditions"] = [*combatant.get("conditions", []), condition]


# --- views ---------------------------------------------------------------------------------


def view(session: Session, access: CampaignAccess, encounter: Encounter) -> EncounterPublic:
    """The encounter as the caller may see it: players do not see NPCs' condition."""
    fields = CONDITION_FIELDS[_family(access)]
    characters = {
        str(c.id): c
        for c in session.exec(
            select(Character).where(
                col(Character.id).in_([uuid.UUID(x["character_id"]) for x in encounter.combatants])
            )
        ).all()
    }

    def public(combatant: dict[str, Any]) -> CombatantPublic:
        character = characters.get(combatant["character_id"])
        hidden = combatant["kind"] == "npc" and not access.is_gm
        condition = None
        if character is not None and not hidden:
            condition = {name: character.sheet.get(name) for name in fields}
        return CombatantPublic.model_validate(
            {
                **{
                    k: combatant[k]
                    for k in (
                        "character_id",
                        "name",
                        "kind",
                        "side",
                        "surprise",
                        "off_guard",
                        "active",
                    )
                },
                "initiative": combatant.get("initiative"),
                "spent": combatant.get("spent", {}),
                "conditions": combatant.get("conditions", []),
                "condition": condition,
            }
        )

    turn_of = current(encounter)
    return EncounterPublic(
        id=encounter.id,
        campaign_id=encounter.campaign_id,
        name=encounter.name,
        status=encounter.status,
        round=encounter.round,
        current=public(turn_of) if turn_of else None,
        combatants=[public(c) for c in encounter.combatants],
        history=encounter.history,
        created_at=encounter.created_at,
    )


def action_view(access: CampaignAccess, entry: SealedEntry) -> dict[str, Any]:
    view_ = public_view(entry, access)
    if not view_.get("redacted"):
        view_["triggered"] = [public_view(t, access) for t in entry.triggered]
    return view_
