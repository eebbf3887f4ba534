"""The body of POST .../rolls: one model per roll kind, told apart by `kind`.

The kind names are the contract VTT clients code against.
"""

from typing import Annotated

from pydantic import Field

from app.models.entries import DiceRollCreate
from app.models.fabulae import (
    FabulaeAbsorbCreate,
    FabulaeActionCreate,
    FabulaeDestinyAwardCreate,
    FabulaeOpposedCreate,
    FabulaePanicCreate,
    FabulaePushCreate,
    FabulaeRecoverCreate,
    FabulaeStateChoiceCreate,
    FabulaeStressCreate,
    FabulaeStressResistCreate,
)
from app.models.jdr import (
    JdrActionCreate,
    JdrAttackCreate,
    JdrContextCreate,
    JdrEffleurementCreate,
    JdrEffleurementRefusalCreate,
    JdrHolyWaterCreate,
    JdrInitiativeCreate,
    JdrJokerCreate,
    JdrMedicalCareCreate,
    JdrMythosCreate,
    JdrPenanceCreate,
    JdrSacrificeCreate,
    JdrTalismanCreate,
    JdrTalismanRulingCreate,
)

RollCreate = Annotated[
    DiceRollCreate
    | JdrActionCreate
    | JdrTalismanCreate
    | JdrTalismanRulingCreate
    | JdrEffleurementCreate
    | JdrEffleurementRefusalCreate
    | JdrJokerCreate
    | JdrContextCreate
    | JdrAttackCreate
    | JdrHolyWaterCreate
    | JdrInitiativeCreate
    | JdrMythosCreate
    | JdrSacrificeCreate
    | JdrPenanceCreate
    | JdrMedicalCareCreate
    | FabulaeActionCreate
    | FabulaeOpposedCreate
    | FabulaePushCreate
    | FabulaeStateChoiceCreate
    | FabulaeAbsorbCreate
    | FabulaeStressCreate
    | FabulaeStressResistCreate
    | FabulaePanicCreate
    | FabulaeRecoverCreate
    | FabulaeDestinyAwardCreate,
    Field(discriminator="kind"),
]
