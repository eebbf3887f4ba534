"""The action roll (VAM-10..30): attribute + ability D10 against a difficulty, Willpower,
automatic success, and retries."""

from __future__ import annotations

import difflib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pydantic import Field

from app.engine.bodies import MAX_SEQ, RollBody
from app.engine.contract import (
    Effect,
    Language,
    LoggedEntry,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    Visibility,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, RuleRefusal, invalid, not_permitted, refusal
from app.engine.odds import Odds
from app.engine.rulesets.vampire.health import cannot_act, incapacitated, wound_penalty
from app.engine.rulesets.vampire.labels import (
    ABILITIES,
    ATTRIBUTES,
    DIFFICULTIES,
    OUTCOMES,
    ability_label,
)
from app.engine.rulesets.vampire.sheet import (
    ATTRIBUTE_SCHEMA,
    Attribute,
    VampireCharacter,
    VampireOptions,
)

SYSTEM: Final = "vampire"
KIND: Final = "vampire.action"
# The rules version of the corrections of 2026-11-30 (VAM-2, VAM-20, VAM-30 "corrected"): a
# resolver applies a correction from this version on, so older entries replay as they were.
CORRECTED: Final = 2
DEFAULT_DIFFICULTY: Final = 6
EXPLOSIVE_ABOVE: Final = 4  # VAM-14: explosive by default when the attribute is above 4
Quality = Literal["marginal", "moderate", "complete"]


class VampireActionCreate(RollBody):
    """Attribute + ability (+ modifier) D10 against a difficulty (VAM-10..30)."""

    kind: Literal["vampire.action"]
    character_id: uuid.UUID
    attribute: Attribute = Field(json_schema_extra=ATTRIBUTE_SCHEMA)
    ability: str | None = Field(
        default=None, max_length=40, pattern=r"^[a-z][a-z0-9_]{0,39}$", description="VAM-2"
    )
    modifier: int = Field(default=0, ge=-10, le=10, description="the Storyteller's modifier")
    difficulty: int | None = Field(
        default=None, ge=2, le=10, description="VAM-11: 6 by default; a retry keeps its action's"
    )
    explosive: bool | None = Field(
        default=None,
        description="VAM-14: a 10 counts twice; by default when the attribute is 5 "
        "(the Storyteller sets or clears it)",
    )
    tense: bool = Field(
        default=False,
        description="VAM-20, VAM-30: combat or a tense situation: no automatic success, no "
        "retry penalty",
    )
    willpower: bool = Field(default=False, description="VAM-21: spend 1 Willpower for a success")
    take_automatic: bool = Field(
        default=False,
        description="VAM-20: take a marginal success without rolling, as the Storyteller "
        "allows (a roll request, or the campaign option players_take_automatic)",
    )
    retry_of: int | None = Field(
        default=None,
        ge=1,
        le=MAX_SEQ,
        description="VAM-30: seq of the latest failed attempt of the action this retries; "
        "left out, the character's failed attempt at the same attribute and ability in the "
        "scene",
    )
    waive_retry_penalty: bool = Field(
        default=False, description="VAM-30: the Storyteller waives the retry penalty"
    )
    new_action: bool = Field(
        default=False,
        description="VAM-30: the Storyteller rules this roll a new action, not a retry of "
        "the character's failed attempt at the same attribute and ability in the scene",
    )
    visibility: Visibility | None = Field(  # type: ignore[assignment]
        default=None, description="public by default; a retry keeps its action's visibility"
    )

    @property
    def follows(self) -> int | None:
        """The entry this request follows up (FAIR-9): the failed roll it retries."""
        return self.retry_of


class VampireAttempt(Model):
    """An earlier attempt of the action a retry repeats (VAM-30)."""

    seq: int
    outcome: Literal["success", "failure", "botch"]
    difficulty: int
    visibility: Visibility


class VampireRetry(Model):
    """VAM-30: the attempts before this one, oldest first, and whether the penalty is waived."""

    of: int = Field(description="seq of the attempt this retries")
    chain: list[VampireAttempt] = Field(min_length=1)
    waived: bool
    inferred: bool = Field(
        default=False,
        description="VAM-30 (rules version 2): taken as a retry without retry_of: the same "
        "character, attribute and ability again in the scene after a failure",
    )


class VampireActionRequest(Model):
    system: Literal["vampire"]
    session: int
    scene: int
    character: VampireCharacter
    options: VampireOptions
    attribute: Attribute
    ability: str | None = None
    modifier: int = 0
    difficulty: int | None = Field(default=None, description="6 when absent (VAM-11)")
    explosive: bool | None = None
    tense: bool = False
    willpower: bool = False
    take_automatic: bool = False
    retry: VampireRetry | None = None
    new_action: bool = Field(
        default=False, description="VAM-30: the Storyteller ruled it a new action, not a retry"
    )
    willpower_spent_this_turn: bool = False


class VampireActionResult(Model):
    pool: int = Field(description="attribute + ability + modifier (− wound penalty) dice")
    attribute_value: int
    ability_value: int
    modifier: int
    difficulty: int = Field(description="the difficulty rolled against, retry penalty included")
    difficulty_label: str | None
    explosive: bool
    retry_penalty: int
    wound_penalty: int = Field(
        default=0, description="VAM-40 (rules version 2): dice the wound level takes off"
    )
    automatic: bool = Field(description="an automatic success: no dice (VAM-20)")
    willpower_spent: bool
    botch_absorbed: bool = Field(description="a botch the blank-botch option absorbed (VAM-16)")
    dice: list[int]
    successes: int
    ones: int
    net: int
    outcome: Literal["success", "failure", "botch"]
    quality: Quality | None
    label: str


# --- reading the dice (VAM-12..15, VAM-21) ---------------------------------------------------


class Count(Model):
    successes: int
    ones: int


class Reading(Model):
    successes: int
    ones: int
    net: int
    outcome: Literal["success", "failure", "botch"]
    quality: Quality | None
    label: str


def count_dice(faces: Sequence[int], difficulty: int, explosive: bool) -> Count:
    """VAM-12..14: successes (a 10 always, twice when explosive) and ones."""
    successes = 0
    for face in faces:
        if face == 10:
            successes += 2 if explosive else 1
        elif face >= difficulty:
            successes += 1
    return Count(successes=successes, ones=sum(1 for face in faces if face == 1))


def quality_of(net: int) -> Quality:
    """VAM-15: 1 marginal, 2 moderate, 3 or more complete."""
    return "marginal" if net == 1 else "moderate" if net == 2 else "complete"


def read_roll(faces: Sequence[int], difficulty: int, explosive: bool, willpower: bool) -> Reading:
    """VAM-12..15, VAM-21: the outcome of the dice, a Willpower success included."""
    counted = count_dice(faces, difficulty, explosive)
    net = counted.successes - counted.ones
    if willpower:
        # VAM-21: one automatic success no 1 can cancel: never a botch, at least marginal.
        net = max(0, net) + 1
    quality: Quality | None = None
    outcome: Literal["success", "failure", "botch"]
    if net >= 1:
        outcome, quality = "success", quality_of(net)
        label = OUTCOMES[quality].fr
    else:
        outcome = "failure" if counted.successes or not counted.ones else "botch"
        label = OUTCOMES[outcome].fr
    return Reading(
        successes=counted.successes,
        ones=counted.ones,
        net=net,
        outcome=outcome,
        quality=quality,
        label=label,
    )


def difficulty_of(request: VampireActionRequest, version: RulesVersion) -> tuple[int, int]:
    """VAM-11 and VAM-30: the base difficulty and the one rolled after retries."""
    retry = request.retry
    if retry is not None:
        # VAM-30: the penalty counts from the action's first attempt.
        base = retry.chain[0].difficulty or DEFAULT_DIFFICULTY
    else:
        base = request.difficulty or DEFAULT_DIFFICULTY
    if not 2 <= base <= 10:
        raise InvalidInput(f"VAM-11: difficulty is 2..10, got {base}", rule="VAM-11")
    if retry is None:
        return base, base
    failures = sum(1 for attempt in retry.chain if attempt.outcome in ("failure", "botch"))
    if not request.options.retry_penalty or retry.waived:
        return base, base
    if version >= CORRECTED and request.tense:
        # VAM-30 corrected: « Dans des situations tendues… le conteur ne devra pas utiliser du
        # tout cette règle »: no penalty on a tense roll (an encounter's included).
        return base, base
    return base, min(10, base + failures)  # VAM-30: never above 10


def unknown_ability(ability: str | None, character: VampireCharacter) -> InvalidInput | None:
    """VAM-2 corrected: an ability is one of the V20 abilities or one the sheet lists; any
    other name is an error naming the nearest known ones, not a zero."""
    listed = character.sheet.abilities
    if ability is None or ability in ABILITIES or ability in listed:
        return None
    known = sorted({*ABILITIES, *listed})
    nearest = difflib.get_close_matches(ability, known, n=3, cutoff=0.6)
    if nearest:
        hint = "did you mean " + " or ".join(nearest) + "?"
    else:
        own = ", ".join(sorted(listed)) or "none"
        hint = f"{character.name}'s sheet lists {own}; the V20 abilities are in VAM-2"
    message = (
        f"unknown ability {ability!r}: neither one of the V20 abilities nor one "
        f"{character.name}'s sheet lists; {hint}"
    )
    return InvalidInput(
        f"VAM-2: {message}",
        rule="VAM-2",
        errors=[{"loc": ["body", "ability"], "msg": message, "type": "unknown_ability"}],
    )


@dataclass(frozen=True)
class ActionPool:
    """What an action rolls, as `resolve` reads it before the dice (its odds read it too)."""

    pool: int
    attribute_value: int
    ability_value: int
    penalty: int  # VAM-40's wound penalty, taken off the pool
    base: int  # the difficulty before the retry penalty
    difficulty: int
    explosive: bool


def action_pool(request: VampireActionRequest, version: RulesVersion) -> ActionPool:
    """The pool, difficulty and explosive tens, with every refusal made before the dice
    are known (VAM-2, VAM-10, VAM-11, VAM-30, VAM-40)."""
    character = request.character
    sheet = character.sheet
    if version >= CORRECTED and (unknown := unknown_ability(request.ability, character)):
        raise unknown
    attribute_value = getattr(sheet.attributes, request.attribute)
    ability = request.ability
    ability_value = sheet.abilities.get(ability, 0) if ability else 0
    penalty = 0
    if version >= CORRECTED:
        # VAM-40: the wound penalty applies to every pool; the Incapacitated cannot act.
        if incapacitated(sheet.health):
            raise cannot_act(character)
        penalty = wound_penalty(sheet.health)
    pool = attribute_value + ability_value + request.modifier - penalty
    if pool <= 0:
        wounded = f" (wound penalty −{penalty}, VAM-40)" if penalty else ""
        raise refusal("VAM-10", f"the pool is {pool} dice{wounded}; nothing can be rolled")
    base, difficulty = difficulty_of(request, version)
    retry = request.retry
    if retry is not None:
        # VAM-30: only a failed action is retried; corrected, a success closes its chain.
        closed = retry.chain if version >= CORRECTED else retry.chain[-1:]
        if any(attempt.outcome == "success" for attempt in closed):
            raise refusal("VAM-30", "only a failed action is retried; a success closes its chain")
    explosive = request.explosive
    if explosive is None:
        explosive = attribute_value > EXPLOSIVE_ABOVE
    return ActionPool(pool, attribute_value, ability_value, penalty, base, difficulty, explosive)


def resolve(
    request: VampireActionRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[VampireActionResult]:
    """VAM-10..30: attribute + ability (+ modifier) D10 against a difficulty."""
    character = request.character
    sheet = character.sheet
    rolled = action_pool(request, version)
    pool, difficulty, explosive = rolled.pool, rolled.difficulty, rolled.explosive
    label = DIFFICULTIES.get(str(difficulty))
    common = {
        "pool": pool,
        "attribute_value": rolled.attribute_value,
        "ability_value": rolled.ability_value,
        "modifier": request.modifier,
        "difficulty": difficulty,
        "difficulty_label": label.fr if label else None,
        "explosive": explosive,
        "retry_penalty": difficulty - rolled.base,
    }
    if rolled.penalty:
        # Set only when it takes dice: older entries replay.
        common["wound_penalty"] = rolled.penalty
    if request.take_automatic:
        # VAM-20: no dice when the pool reaches the difficulty and nothing is at stake.
        if request.tense:
            raise refusal("VAM-20", "no automatic success in combat or a tense situation")
        if pool < difficulty:
            raise refusal(
                "VAM-20", f"an automatic success needs a pool ({pool}) of at least {difficulty}"
            )
        automatic = VampireActionResult(
            **common,
            automatic=True,
            willpower_spent=False,
            botch_absorbed=False,
            dice=[],
            successes=1,
            ones=0,
            net=1,
            outcome="success",
            quality="marginal",
            label=OUTCOMES["marginal"].fr,
        )
        return Resolution(automatic)
    effects: list[Effect] = []
    if request.willpower:
        current = sheet.willpower.current
        if current <= 0:
            raise refusal("VAM-21", f"{character.name} has no Willpower left")
        if request.willpower_spent_this_turn:
            raise refusal("VAM-21", "Willpower is spent at most once per turn")
        after = sheet.willpower.model_copy(update={"current": current - 1})
        effects.append(effect(character.id, "willpower", sheet.willpower, after, "VAM-21"))
    faces = [dice.roll(10) for _ in range(pool)]
    reading = read_roll(faces, difficulty, explosive, request.willpower)
    botch_absorbed = False
    if (
        reading.outcome == "botch"
        and request.options.blank_botch
        and sheet.blank_botch_session != request.session
    ):
        # VAM-16: the first botch of each participant in each session is a simple failure.
        reading = reading.model_copy(update={"outcome": "failure", "label": OUTCOMES["failure"].fr})
        botch_absorbed = True
        effects.append(
            effect(
                character.id,
                "blank_botch_session",
                sheet.blank_botch_session,
                request.session,
                "VAM-16",
            )
        )
    result = VampireActionResult(
        **common,
        automatic=False,
        willpower_spent=request.willpower,
        botch_absorbed=botch_absorbed,
        dice=faces,
        **reading.model_dump(),
    )
    return Resolution(result, effects)


# --- preparing a roll ---------------------------------------------------------------------


def same_action(entry: LoggedEntry, body: VampireActionCreate) -> VampireActionRequest | None:
    """The entry's request when it is an action of the same character, attribute and
    ability as the body (VAM-30's same action), else None."""
    if entry.kind != KIND or entry.character_id != str(body.character_id):
        return None
    earlier = VampireActionRequest.model_validate(entry.request)
    return (
        earlier if (earlier.attribute, earlier.ability) == (body.attribute, body.ability) else None
    )


def retry_chain(table: Table, body: VampireActionCreate, of: int) -> list[VampireAttempt]:
    """VAM-30: the attempts of the action up to `of`, oldest first."""
    chain: list[VampireAttempt] = []
    seq: int | None = of
    while seq is not None:
        entry = table.entry(seq)
        earlier = same_action(entry, body)
        if earlier is None:
            raise invalid(
                "VAM-30",
                f"retry_of {seq} is not the same action (same character, attribute and ability)",
            )
        outcome = VampireActionResult.model_validate(entry.result).outcome
        chain.insert(
            0,
            VampireAttempt(
                seq=seq,
                outcome=outcome,
                difficulty=earlier.difficulty or DEFAULT_DIFFICULTY,
                visibility=entry.visibility,
            ),
        )
        seq = earlier.retry.of if earlier.retry else None
    return chain


def retried_already(table: Table, of: int) -> None:
    """VAM-30 corrected: a retry follows the latest attempt of its chain, so two retries
    never follow the same attempt. A retry hidden from the caller is refused as hidden
    (FAIR-13), whatever its outcome: only the GM continues that chain."""
    later = [follow_up for follow_up in table.follow_ups(of) if follow_up.kind == KIND]
    if later:
        seq = table.entry(later[0].seq).seq
        raise refusal(
            "VAM-30",
            f"attempt {of} was retried already (seq {seq}); a retry follows the latest "
            "attempt of its chain",
        )


def failed_attempt(table: Table, body: VampireActionCreate) -> int | None:
    """VAM-30 corrected: the character's latest attempt at the same attribute and ability
    in the scene, when it failed: a roll of the same action after it is its retry.

    An attempt hidden from the caller does not count (FAIR-13: whether it failed is hidden
    from them): the Storyteller, who sees it, names it in `retry_of`."""
    attempts = table.latest_scene_entries(KIND, str(body.character_id))
    last = next((entry for entry in attempts if same_action(entry, body)), None)
    if last is None:
        return None
    try:
        latest = table.entry(last.seq)
    except RuleRefusal as hidden:
        if hidden.rule != "FAIR-13":
            raise
        return None
    outcome = VampireActionResult.model_validate(latest.result).outcome
    return latest.seq if outcome in ("failure", "botch") else None


def check_gm_fields(body: VampireActionCreate, table: Table, options: VampireOptions) -> None:
    """What the Storyteller alone sets, or sets in the roll request the player answers."""
    if table.is_gm:
        return
    gm_set = table.gm_set
    if body.explosive is not None and "explosive" not in gm_set:
        raise not_permitted("VAM-14", "only the Storyteller sets or clears explosive")
    if body.waive_retry_penalty and "waive_retry_penalty" not in gm_set:
        raise not_permitted("VAM-30", "only the Storyteller waives the retry penalty")
    if body.new_action and "new_action" not in gm_set:
        raise not_permitted(
            "VAM-30", "only the Storyteller rules a roll a new action rather than a retry"
        )
    allowed = options.players_take_automatic or options.players_set_difficulty
    if body.take_automatic and "take_automatic" not in gm_set and not allowed:
        raise not_permitted(
            "VAM-20",
            "take_automatic: the Storyteller allows an automatic success (VAM-20); roll "
            "without it, or the GM sets it for you in a roll request, or lets players take "
            "it with the campaign option players_take_automatic (or players_set_difficulty)",
        )


def prepare(body: VampireActionCreate, table: Table) -> Prepared[VampireActionRequest]:
    character = table.acting(body.character_id, VampireCharacter)
    options = VampireOptions.model_validate(table.options)
    check_gm_fields(body, table, options)
    if unknown := unknown_ability(body.ability, character):
        raise unknown
    if body.new_action and body.retry_of is not None:
        raise invalid("VAM-30", "new_action and retry_of: a roll is a new action or a retry")
    if body.take_automatic and body.willpower:
        raise InvalidInput(
            "VAM-20/21: an automatic success rolls no dice; Willpower adds nothing", rule="VAM-20"
        )
    of, inferred = body.retry_of, False
    if of is None and not (body.new_action or body.tense) and options.retry_penalty:
        # VAM-30 corrected: the same action again after a failure is a retry, unless the
        # Storyteller rules it a new action; a tense roll does not use the rule at all.
        of = failed_attempt(table, body)
        inferred = of is not None
    retry = None
    visibility = body.visibility or "public"
    if of is not None:
        chain = retry_chain(table, body, of)
        retried_already(table, of)
        first = chain[0].difficulty
        if body.difficulty is not None and body.difficulty != first:
            taken = (
                f"this roll is taken as a retry of {of}, the same action after a failure in "
                "this scene (VAM-30); "
                if inferred
                else ""
            )
            way_out = "; or the Storyteller rules it a new action (new_action)" if inferred else ""
            raise invalid(
                "VAM-30",
                f"{taken}a retry is the same action, at its difficulty ({first}); the "
                f"penalty is added by the rules{way_out}",
            )
        retry = VampireRetry(of=of, chain=chain, waived=body.waive_retry_penalty)
        if inferred:
            retry.inferred = True
        visibility = body.visibility or chain[-1].visibility
    request = VampireActionRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        options=options,
        attribute=body.attribute,
        ability=body.ability,
        modifier=body.modifier,
        difficulty=body.difficulty,
        explosive=body.explosive,
        tense=body.tense,
        willpower=body.willpower,
        take_automatic=body.take_automatic,
    )
    if retry is not None:
        request.retry = retry
    if body.new_action:
        request.new_action = True
    return Prepared(request, character_id=character.id, visibility=visibility, follows=of)


# --- words ----------------------------------------------------------------------------------


def outcome(result: VampireActionResult) -> Outcome:
    return Outcome("outcome", result.quality or result.outcome)


def summary(request: VampireActionRequest, result: VampireActionResult, language: Language) -> str:
    """« Lucien — Dextérité + Athlétisme, 5D10 diff. 6 : 10 8 3 1 6 → 2 succès, Réussite
    modérée »; a Willpower success and an absorbed botch say so (VAM-16, VAM-21)."""
    what = ATTRIBUTES[request.attribute].text(language)
    if request.ability:
        what += f" + {ability_label(request.ability).text(language)}"
    verdict = OUTCOMES[result.quality or result.outcome].text(language)
    net = result.net
    if language == "fr":
        dice = f"{result.pool}D10 diff. {result.difficulty}"
        tail = "succès automatique" if result.automatic else " ".join(map(str, result.dice))
        count = f"{net} succès" if net > 0 else "aucun succès"
        count += " dont 1 de Volonté" if result.willpower_spent else ""
        verdict += " (échec critique évité)" if result.botch_absorbed else ""
        return f"{request.character.name} — {what}, {dice} : {tail} → {count}, {verdict}"
    dice = f"{result.pool}d10 vs {result.difficulty}"
    tail = "automatic success" if result.automatic else " ".join(map(str, result.dice))
    count = f"{net} success{'es' if net > 1 else ''}" if net > 0 else "no success"
    count += ", 1 from Willpower" if result.willpower_spent else ""
    verdict += " (botch absorbed)" if result.botch_absorbed else ""
    return f"{request.character.name} — {what}, {dice}: {tail} → {count}, {verdict}"


def odds(request: VampireActionRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds of the roll (vampire/odds.py, which builds on this module)."""
    from app.engine.rulesets.vampire.odds import action_odds

    return action_odds(request, version)


ACTION: RollKind[VampireActionCreate, VampireActionRequest, VampireActionResult] = RollKind(
    name="vampire.action",
    roller_decides=(("willpower", "VAM-21"),),
    gm_decides=(
        ("difficulty", "VAM-5"),
        ("modifier", "VAM-5"),
        ("tense", "VAM-5"),
    ),
    gm_rules_on=(
        ("explosive", "VAM-14"),
        ("waive_retry_penalty", "VAM-30"),
        ("new_action", "VAM-30"),
        ("take_automatic", "VAM-20"),
    ),
    npc_values=(
        ("/attribute_value", "/character"),
        ("/ability_value", "/character"),
        ("/explosive", "/character"),
        ("/successes", "/character"),
        ("/net", "/character"),
        ("/wound_penalty", "/character"),
    ),
    title="Action roll",
    body=VampireActionCreate,
    request=VampireActionRequest,
    result=VampireActionResult,
    prepare=prepare,
    resolve=resolve,
    summary=summary,
    outcome=outcome,
    odds=odds,
)
