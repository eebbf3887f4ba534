"""The action roll (VAM-10..30): attribute + ability D10 against a difficulty, Willpower,
automatic success, and retries."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Final, Literal

from pydantic import Field

from app.engine.bodies import MAX_SEQ, RollBody
from app.engine.contract import (
    Effect,
    Language,
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
from app.engine.errors import InvalidInput, invalid, not_permitted, refusal
from app.engine.rulesets.vampire.labels import ATTRIBUTES, DIFFICULTIES, OUTCOMES, ability_label
from app.engine.rulesets.vampire.sheet import (
    ATTRIBUTE_SCHEMA,
    Attribute,
    VampireCharacter,
    VampireOptions,
)

SYSTEM: Final = "vampire"
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
    tense: bool = Field(default=False, description="VAM-20: combat or a tense situation")
    willpower: bool = Field(default=False, description="VAM-21: spend 1 Willpower for a success")
    take_automatic: bool = Field(
        default=False, description="VAM-20: take a marginal success without rolling"
    )
    retry_of: int | None = Field(
        default=None, ge=1, le=MAX_SEQ, description="VAM-30: seq of the failed roll this retries"
    )
    waive_retry_penalty: bool = Field(
        default=False, description="VAM-30: the Storyteller waives the retry penalty"
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
    willpower_spent_this_turn: bool = False


class VampireActionResult(Model):
    pool: int = Field(description="attribute + ability + modifier dice")
    attribute_value: int
    ability_value: int
    modifier: int
    difficulty: int = Field(description="the difficulty rolled against, retry penalty included")
    difficulty_label: str | None
    explosive: bool
    retry_penalty: int
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


def difficulty_of(request: VampireActionRequest) -> tuple[int, int]:
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
    return base, min(10, base + failures)  # VAM-30: never above 10


def resolve(
    request: VampireActionRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[VampireActionResult]:
    """VAM-10..30: attribute + ability (+ modifier) D10 against a difficulty."""
    character = request.character
    sheet = character.sheet
    attribute_value = getattr(sheet.attributes, request.attribute)
    ability = request.ability
    ability_value = sheet.abilities.get(ability, 0) if ability else 0
    pool = attribute_value + ability_value + request.modifier
    if pool <= 0:
        raise refusal("VAM-10", f"the pool is {pool} dice; nothing can be rolled")
    base, difficulty = difficulty_of(request)
    retry = request.retry
    if retry is not None and retry.chain[-1].outcome == "success":
        raise refusal("VAM-30", "only a failed action is retried")
    explosive = request.explosive
    if explosive is None:
        explosive = attribute_value > EXPLOSIVE_ABOVE
    label = DIFFICULTIES.get(str(difficulty))
    common = {
        "pool": pool,
        "attribute_value": attribute_value,
        "ability_value": ability_value,
        "modifier": request.modifier,
        "difficulty": difficulty,
        "difficulty_label": label.fr if label else None,
        "explosive": explosive,
        "retry_penalty": difficulty - base,
    }
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


def retry_chain(table: Table, body: VampireActionCreate) -> list[VampireAttempt]:
    """VAM-30: the earlier attempts of the same action, oldest first."""
    chain: list[VampireAttempt] = []
    seq: int | None = body.retry_of
    while seq is not None:
        entry = table.entry(seq)
        same = entry.kind == "vampire.action" and entry.character_id == str(body.character_id)
        earlier = VampireActionRequest.model_validate(entry.request) if same else None
        if earlier is None or (earlier.attribute, earlier.ability) != (
            body.attribute,
            body.ability,
        ):
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
    first = chain[0].difficulty
    if body.difficulty is not None and body.difficulty != first:
        raise invalid(
            "VAM-30",
            f"a retry is the same action, at its difficulty ({first}); the penalty is added "
            "by the rules",
        )
    return chain


def prepare(body: VampireActionCreate, table: Table) -> Prepared[VampireActionRequest]:
    character = table.acting(body.character_id, VampireCharacter)
    # The Storyteller's alone, or set in the Storyteller's roll request the player answers.
    if not table.is_gm and body.explosive is not None and "explosive" not in table.gm_set:
        raise not_permitted("VAM-14", "only the Storyteller sets or clears explosive")
    waived = "waive_retry_penalty" in table.gm_set
    if not table.is_gm and body.waive_retry_penalty and not waived:
        raise not_permitted("VAM-30", "only the Storyteller waives the retry penalty")
    retry = None
    visibility = body.visibility or "public"
    if body.retry_of is not None:
        chain = retry_chain(table, body)
        retry = VampireRetry(of=body.retry_of, chain=chain, waived=body.waive_retry_penalty)
        visibility = body.visibility or chain[-1].visibility
    if body.take_automatic and body.willpower:
        raise InvalidInput(
            "VAM-20/21: an automatic success rolls no dice; Willpower adds nothing", rule="VAM-20"
        )
    request = VampireActionRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        options=VampireOptions.model_validate(table.options),
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
    return Prepared(
        request, character_id=character.id, visibility=visibility, follows=body.retry_of
    )


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


ACTION: RollKind[VampireActionCreate, VampireActionRequest, VampireActionResult] = RollKind(
    name="vampire.action",
    roller_decides=(("willpower", "VAM-21"),),
    gm_decides=(
        ("difficulty", "VAM-5"),
        ("modifier", "VAM-5"),
        ("tense", "VAM-5"),
        ("take_automatic", "VAM-20"),
    ),
    npc_values=(
        ("/attribute_value", "/character"),
        ("/ability_value", "/character"),
        ("/explosive", "/character"),
        ("/successes", "/character"),
        ("/net", "/character"),
    ),
    title="Action roll",
    body=VampireActionCreate,
    request=VampireActionRequest,
    result=VampireActionResult,
    prepare=prepare,
    resolve=resolve,
    summary=summary,
    outcome=outcome,
)
