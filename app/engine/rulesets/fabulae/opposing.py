"""The passive side's answer (FAB-36): an opposed roll against a character the roller does
not play waits for that character's talents and helpers, then both sides roll at once."""

from __future__ import annotations

from app.engine.contract import Prepared, RollKind, Table
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
from app.engine.rulesets.fabulae.odds import opposed_odds
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter
from app.engine.rulesets.fabulae.stress import SETS_OFF_PANIC
from app.engine.rulesets.fabulae.waits import answer_visibility, waiting_entry

OPPOSE_KIND = "fabulae.oppose"


def prepare_oppose(body: FabulaeOpposeCreate, table: Table) -> Prepared[FabulaeOpposedRequest]:
    """The waiting opposed roll with both sheets as they are now and the passive side's
    choices. Its entry is the active side's roll, as the opposed roll's would have been
    (the active side pushes it, FAB-37)."""
    entry, waits = waiting_entry(
        table, body.follows, (OPPOSED.name,), OPPOSE_KIND, body.character_id
    )
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
    name=OPPOSE_KIND,
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
    odds=opposed_odds,
)
