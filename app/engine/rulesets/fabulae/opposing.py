"""The passive side's answer (FAB-36): an opposed roll against a character the roller does
not play waits for that character's talents and helpers, then both sides roll at once."""

from __future__ import annotations

from pydantic import ConfigDict

from app.engine.contract import Model, Prepared, RollKind, Table
from app.engine.errors import InvalidInput, refusal
from app.engine.rulesets.fabulae.action import (
    OPPOSED,
    FabulaeOpposedRequest,
    FabulaeOpposedResult,
    after_opposed,
    opposed_outcome,
    opposed_summary,
    resolve_opposed,
)
from app.engine.rulesets.fabulae.bodies import FabulaeOpposeCreate
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter
from app.engine.rulesets.fabulae.stress import SETS_OFF_PANIC
from app.engine.rulesets.fabulae.waits import FabulaeAwaiting, answer_visibility


class _Waits(Model):
    model_config = ConfigDict(extra="ignore")
    awaiting: FabulaeAwaiting | None = None


def prepare_oppose(body: FabulaeOpposeCreate, table: Table) -> Prepared[FabulaeOpposedRequest]:
    """The waiting opposed roll with both sheets as they are now and the passive side's
    choices. Its entry is the active side's roll, as the opposed roll's would have been
    (the active side pushes it, FAB-37)."""
    entry = table.entry(body.follows)
    waits = _Waits.model_validate(entry.result).awaiting if entry.kind == OPPOSED.name else None
    if waits is None:
        raise InvalidInput(
            f"fabulae.oppose answers an opposed roll waiting for its passive side (FAB-36); "
            f"entry {entry.seq} ({entry.kind}) does not wait for one"
        )
    if str(body.character_id) != waits.character_id:
        raise InvalidInput(
            f"the opposed roll at seq {entry.seq} waits for character {waits.character_id}, "
            f"not {body.character_id}"
        )
    answered = [f.seq for f in table.follow_ups(entry.seq) if f.kind == OPPOSE.name]
    if answered:
        raise refusal("FAB-36", f"the passive side answered already, at seq {answered[0]}")
    waited = FabulaeOpposedRequest.model_validate(entry.request)
    passive = table.acting(waits.character_id, FabulaeCharacter)  # its player, or the GM
    active = table.character(waited.active.character.id, FabulaeCharacter)
    roll = waited.passive.roll.model_copy(
        update={"talents": list(body.talents), "helpers": body.helpers}
    )
    request = waited.model_copy(
        update={
            "session": table.session,
            "scene": table.scene,
            "active": waited.active.model_copy(update={"character": active}),
            "passive": waited.passive.model_copy(update={"character": passive, "roll": roll}),
            "passive_answers": False,
        }
    )
    return Prepared(
        request,
        character_id=active.id,
        visibility=answer_visibility(body.visibility, entry),
        follows=entry.seq,
    )


OPPOSE: RollKind[FabulaeOpposeCreate, FabulaeOpposedRequest, FabulaeOpposedResult] = RollKind(
    name="fabulae.oppose",
    npc_values=OPPOSED.npc_values,
    reaction=True,
    title="Opposed roll, answered",
    body=FabulaeOpposeCreate,
    request=FabulaeOpposedRequest,
    result=FabulaeOpposedResult,
    prepare=prepare_oppose,
    resolve=resolve_opposed,
    summary=opposed_summary,
    after=after_opposed,
    triggers=SETS_OFF_PANIC,
    outcome=opposed_outcome,
)
